import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// The checks the internal-checks build runs after every operation: sound
/// after real work, and each disagreement named when the bookkeeping is
/// broken on purpose.
@Suite struct ContextInvariantsTests {
    @Test func theBookkeepingIsSoundThroughInsertsSavesDeletesAndRollbacks() throws {
        let container = try PersistentContainer(store: .inMemory(), model: .readingList())
        let context = container.newContext()
        ReadingList.fill(context)
        #expect(context.invariantViolations().isEmpty)
        try context.save()
        #expect(context.invariantViolations().isEmpty)
        let articles = try context.fetch(FetchRequest<Article>())
        context.delete(articles[0])
        articles[1].title = "changed"
        _ = Article(context: context)
        // Inserted, then deleted: it leaves the context but stays listed, without changes.
        context.delete(Article(context: context))
        #expect(context.invariantViolations().isEmpty)
        context.rollback()
        #expect(context.invariantViolations().isEmpty)
        context.delete(articles[2])
        try context.save()
        #expect(context.invariantViolations().isEmpty)
    }

    @Test func aFlagThatDisagreesWithItsListIsNamed() throws {
        let container = try PersistentContainer(store: .inMemory(), model: .readingList())
        let context = container.newContext()
        let article = Article(context: context)
        article.isInPendingList = false
        #expect(context.invariantViolations().contains { $0.contains("in the pending list without its flag") })
        article.isInPendingList = true
        context.pending.append(article)
        #expect(context.invariantViolations().contains { $0.contains("in the pending list twice") })
        context.pending.removeAll()
        #expect(context.invariantViolations().contains { $0.contains("pending flag is true") })
        #expect(context.invariantViolations().contains { $0.contains("is inserted but not in the pending list") })
    }

    @Test func anObjectRegisteredUnderAnotherKeyOrEntityIsNamed() throws {
        let container = try PersistentContainer(store: .inMemory(), model: .readingList())
        let context = container.newContext()
        ReadingList.fill(context)
        try context.save()
        let article = try #require(try context.fetch(FetchRequest<Article>()).first)
        let registry = context.registry(for: article.entity)
        registry.objects[article.objectID.number + 1000] = article
        #expect(context.invariantViolations().contains { $0.contains("is registered under key") })
    }
}
