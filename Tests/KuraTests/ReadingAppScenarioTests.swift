import Foundation
import Kura
import KuraTestSupport
import Testing

/// Added in version 2 of the reading-list app.
final class Shelf: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship var articles: Set<Article>
}

/// The reading-list app of the typed-API issue, written the way the README
/// shows: a template, a background import of 20,000 articles, typed
/// fetches with `#Predicate` and `SortDescriptor`, an observed request, a
/// child-context edit and a model change. No entity name, sort key or
/// attribute name is a string here, and nothing is cast.
@Suite(.timeLimit(.minutes(5))) struct ReadingAppScenarioTests {
    static let articleCount = 20_000

    @Test func theReadingListAppNeedsNoStringNamesAndNoCasts() async throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(Article.self, Writer.self, Label.self, Remark.self)
        let byWriter = try model.setFetchRequestTemplate(
            #Predicate<Article, String?, Int> { article, writer, least in article.writer?.name == writer && article.rating >= least },
            sortBy: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.url)], forName: "byWriter", variables: "writer", "least")
        var container = try store.open(model)

        // A background import.
        let imported = try await container.newBackgroundContext().perform { context in
            let writers = (0..<50).map { number in
                let writer = Writer(context: context)
                writer.name = "Writer \(number)"
                return writer
            }
            let labels = ["swift", "linux", "db", "kura", "news", "misc"].map { name in
                let label = Label(context: context)
                label.name = name
                return label
            }
            for number in 0..<Self.articleCount {
                let article = Article(context: context)
                article.url = "https://example.com/\(number)"
                article.title = "Article \(number)"
                article.rating = number % 6
                article.addedAt = Date(timeIntervalSinceReferenceDate: Double(number) * 60)
                article.writer = writers[number % writers.count]
                article.labels = [labels[number % labels.count], labels[(number / 7) % labels.count]]
            }
            try context.save()
            return try context.count(for: FetchRequest<Article>())
        }
        #expect(imported == Self.articleCount)

        // Typed fetches: SwiftData's descriptor, Kura's key paths, a template.
        let view = container.newContext()
        let name: String? = "Writer 7"
        let descriptor = FetchDescriptor<Article>(
            predicate: #Predicate { $0.rating > 3 && $0.writer?.name == name }, sortBy: [SortDescriptor(\.addedAt, order: .reverse)])
        let recent: [Article] = try view.fetch(descriptor)
        let expected = (0..<Self.articleCount).filter { $0 % 6 > 3 && $0 % 50 == 7 }.reversed().map { "https://example.com/\($0)" }
        #expect(recent.map(\.url) == Array(expected))
        let sameByKeyPaths = try view.fetch(FetchRequest<Article>(predicate: \Article.rating > 3 && \Article.writer?.name == "Writer 7"))
        #expect(Set(sameByKeyPaths.map(\.url)) == Set(expected))
        let fromTemplate: [Article] = try view.fetch(byWriter, "Writer 7", 4)
        #expect(Set(fromTemplate.map(\.url)) == Set(expected) && fromTemplate.first?.rating == 5)
        let one = try #require(try Article.findFirst(by: \.url, value: "https://example.com/42", in: view))
        #expect(one.title == "Article 42")
        let tagged = try view.count(for: FetchRequest<Article>(predicate: #Predicate { $0.labels.contains { $0.name == "kura" } }))
        #expect(tagged == (0..<Self.articleCount).filter { $0 % 6 == 3 || ($0 / 7) % 6 == 3 }.count)

        // An observed request, changed through a child context.
        let unread = FetchRequest<Article>(predicate: #Predicate { $0.isRead && $0.rating == 5 }, sortBy: [SortDescriptor(\.title)])
        var results = view.results(for: unread).makeAsyncIterator()
        let before: FetchedResults<Article> = try #require(try await results.next())
        #expect(before.objects.isEmpty)
        let editor = view.newChildContext()
        let draft: Article = try editor.existingObject(with: recent[0].objectID, as: Article.self)
        draft.isRead = true
        try editor.save()
        try view.save()
        let after = try #require(try await results.next())
        #expect(after.objects.map(\.url) == [recent[0].url])
        #expect(after.objects.first === recent[0])

        // A model change: version 2 adds shelves.
        container.close()
        let version2 = try ManagedObjectModel(Article.self, Writer.self, Label.self, Remark.self, Shelf.self)
        container = try store.open(version2)
        let context = container.newContext()
        let shelf = Shelf(context: context)
        shelf.name = "Later"
        shelf.articles = Set(try context.fetch(FetchRequest<Article>(predicate: #Predicate { $0.isRead })))
        try context.save()
        let shelves: [Shelf] = try context.fetch(FetchRequest<Shelf>(predicate: \Shelf.name == "Later"))
        #expect(shelves.first?.articles.map(\.url) == [recent[0].url])
        #expect(try Article.deleteAll(in: context, matching: #Predicate { $0.rating == 0 }) == (0..<Self.articleCount).filter { $0 % 6 == 0 }.count)
    }
}
