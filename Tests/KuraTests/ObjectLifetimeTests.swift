import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// Objects kept after their context, their container and their model are
/// gone: what they answer is defined (their loaded values, a clear error or
/// an empty answer for what needs the store), never memory that was freed.
/// `swift test --sanitize=address --filter ObjectLifetimeTests` checks the
/// last part.
@Suite struct ObjectLifetimeTests {
    /// An article, its writer and a remark, saved; the article is returned
    /// faulted except for its title, with everything else let go.
    private static func keptArticle(in directory: TemporaryDirectory) throws -> (Article, fault: Article) {
        let container = try PersistentContainer(path: directory.file("store.kura"), model: .readingList())
        defer { container.close() }
        let context = container.newContext()
        let writer = Writer(context: context)
        writer.name = "Ann"
        let article = Article(context: context)
        article.url = "kura://1"
        article.title = "Kept"
        article.writer = writer
        let remark = Remark(context: context)
        remark.text = "nice"
        remark.article = article
        try context.save()
        let reader = container.newContext()
        let fetched = try reader.fetch(FetchRequest<Article>())
        _ = fetched[0].title
        let fault = try #require(try container.newContext().object(with: article.objectID) as? Article)
        return (fetched[0], fault)
    }

    @Test func anObjectOutlivingItsContextContainerAndModelKeepsItsLoadedValues() throws {
        let directory = try TemporaryDirectory()
        let (article, _) = try Self.keptArticle(in: directory)
        #expect(article.managedObjectContext == nil)
        #expect(article.title == "Kept")
        #expect(article.objectID.entity.name == "Article")
        #expect(try article.value(forKey: "url") == .string("kura://1"))
        #expect(throws: KuraError.objectDetached(article.objectID)) { try article.committedValues(forKeys: nil) }
        // A report of the object (a failed expectation's, `dump`) reads no freed entity.
        var dumped = ""
        dump(article, to: &dumped)
        #expect(dumped.contains("Kept"))
    }

    @Test func itsRelationshipsAreEmptyOrAClearErrorNotFreedMemory() throws {
        let directory = try TemporaryDirectory()
        let (article, fault) = try Self.keptArticle(in: directory)
        // Typed properties can't throw: a detached object's unknown
        // relationships read as empty.
        #expect(article.writer == nil)
        #expect(article.remarks.isEmpty)
        #expect(fault.labels.isEmpty)
        #expect(throws: KuraError.objectDetached(article.objectID)) { try article.objectIDs(forRelationshipNamed: "writer") }
        #expect(throws: KuraError.objectDetached(fault.objectID)) { try fault.value(forKey: "title") }
    }

    @Test func changingADetachedObjectChangesOnlyThatObject() throws {
        let directory = try TemporaryDirectory()
        let (article, _) = try Self.keptArticle(in: directory)
        article.title = "changed"
        #expect(article.title == "changed")
        #expect(!article.hasChanges)
        #expect(throws: KuraError.objectDetached(article.objectID)) { try article.setValue("x", forKey: "title") }
    }

    @Test func anObjectOfAResetContextIsDetachedToo() throws {
        let container = try PersistentContainer(store: .inMemory(), model: .readingList())
        let context = container.newContext()
        let article = Article(context: context)
        article.title = "unsaved"
        context.reset()
        #expect(context.invariantViolations().isEmpty)
        #expect(article.managedObjectContext == nil && article.title == "unsaved")
        #expect(article.writer == nil)
    }

    /// An article and its writer hold each other (each side's relationship
    /// state holds the other object): when the context goes away, resets
    /// or rolls back, it lets go of those links, so the pair is freed with
    /// it rather than kept by its own cycle, with its entities and model.
    @Test(arguments: ["goes away", "resets", "rolls back"])
    func objectsThatHoldEachOtherAreFreedWhenTheirContextLetsThemGo(_ how: String) throws {
        let directory = try TemporaryDirectory()
        let container = try PersistentContainer(path: directory.file("store.kura"), model: .readingList())
        defer { container.close() }
        weak var weakArticle: Article?
        weak var weakWriter: Writer?
        var kept: ManagedObjectContext? = container.newContext()
        do {
            let context = try #require(kept)
            let writer = Writer(context: context)
            writer.name = "Ann"
            let article = Article(context: context)
            article.url = "kura://1"
            article.title = "Cycle"
            article.writer = writer
            if how != "rolls back" { try context.save() }
            // Both sides loaded: the writer's articles hold the article, the article holds the writer.
            #expect(writer.articles.contains(article))
            weakArticle = article
            weakWriter = writer
            switch how {
            case "resets": context.reset()
            case "rolls back": context.rollback()
            default: break
            }
        }
        if how == "goes away" { kept = nil }
        #expect(weakArticle == nil, "the article is freed")
        #expect(weakWriter == nil, "the writer is freed")
        _ = kept
    }
}
