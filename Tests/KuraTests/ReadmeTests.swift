import Foundation
import Kura
import KuraTestSupport
import Testing

/// The README's examples, as written there (News is the same class), so the
/// README stays true.
@Suite struct ReadmeTests {
    @Test func theStoreDescriptionExampleRunsAsWritten() throws {
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel(News.self)
        let onDisk = try PersistentContainer(store: .lmdb(path: directory.file("news.kura")), model: model)
        let forTests = try PersistentContainer(store: .inMemory(), model: model)   // Core Data's in-memory store
        for container in [onDisk, forTests] {
            let context = container.newContext()
            News(context: context).title = "Hello"
            try context.save()
            #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 1)
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("news.kura")))
    }

    @Test func theFetchingExampleRunsAsWritten() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(News.self)
        let container = try store.open(model)
        let context = container.newContext()
        _ = try Self.saveThreeHundredNews(in: context)

        // From the README (registering after open is refused: the model is in use).
        #expect(throws: KuraError.self) {
            try model.setFetchRequestTemplate(FetchRequest(entityName: "News"), forName: "allNews")
        }

        // The side-by-side: SwiftData's form, key paths, the format syntax.
        let descriptor = FetchDescriptor<News>(predicate: #Predicate { $0.sortOrder > 100 }, sortBy: [SortDescriptor(\.sortOrder, order: .reverse)])
        let bySwiftData = try context.fetch(descriptor)
        let byKeyPaths = try context.fetch(FetchRequest<News>(predicate: \News.sortOrder > 100).sorted(by: \.sortOrder, ascending: false))
        let byText = try context.fetch(FetchRequest<News>(predicate: "sortOrder > 100").sorted(by: \.sortOrder, ascending: false))
        #expect(bySwiftData.map(\.sortOrder) == Array((101...300).reversed()) && byKeyPaths == bySwiftData && byText == bySwiftData)
    }

    @Test func theAppFetchingExampleRunsAsWritten() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(News.self)
        try model.setFetchRequestTemplate(News.fetchRequest().sorted(by: \.sortOrder), forName: "allNews")
        let getNews = try model.setFetchRequestTemplate(
            FetchRequest<News>(predicate: "objectId == $objectId"), forName: "getNews", variables: ("objectId", String.self))
        let between = try model.setFetchRequestTemplate(
            #Predicate<News, Int, Int> { news, low, high in (low...high).contains(news.sortOrder) },
            sortBy: [SortDescriptor(\.sortOrder)], forName: "between", variables: "low", "high")
        let container = try store.open(model)
        let context = container.newContext()
        let id = try Self.saveThreeHundredNews(in: context)

        let news = try context.fetch(getNews, id).first
        let all = try context.fetch(model.fetchRequestFromTemplate(withName: "allNews", substitutionVariables: [:], as: News.self))
        #expect(news?.sortOrder == 42)
        #expect(all.map(\.sortOrder) == Array(1...300))
        #expect(try context.fetch(between, 10, 12).map(\.sortOrder) == [10, 11, 12])

        let recent = FetchRequest<News>(predicate: #Predicate { $0.title.starts(with: "Kura") && (10...20).contains($0.sortOrder) })
        let top = FetchRequest<News>(predicate: \News.sortOrder > 100).sorted(by: \.sortOrder, ascending: false).limited(to: 10)
        let folded = FetchRequest<News>(predicate: try FetchPredicate(format: "title BEGINSWITH[cd] %@", "kura"))
        let items = try context.fetch(top)
        let count = try context.count(for: recent)
        let first = try News.findFirst(by: \.objectId, value: id, in: context)
        #expect(items.map(\.sortOrder) == Array((291...300).reversed()))
        #expect(count == 3)    // 12, 15 and 18
        #expect(try context.count(for: folded) == 100)
        #expect(first?.sortOrder == 42)
        let plan = try context.explain(top).description
        #expect(plan.hasPrefix("SEARCH News USING INDEX sortOrder (sortOrder > 100) (~"), "\(plan)")
        #expect(plan.hasSuffix(" objects), IN INDEX ORDER DESC, LIMIT 10"), "\(plan)")
    }

    @Test func theFirstExampleRunsAsWritten() throws {
        let store = try TestStore(engine: .lmdb)
        let model = try ManagedObjectModel(News.self)
        let container = try PersistentContainer(path: store.path, model: model)
        let context = container.newContext()

        for index in 1...3 {
            let news = News(context: context)
            news.title = "News \(index)"
            news.sortOrder = index
        }
        #expect(context.insertedObjects.count == 3)
        try context.save()
        container.close()

        let reopened = try PersistentContainer(path: store.path, model: model)
        let again = reopened.newContext()
        let found = try News.findAll(in: again, sortedBy: [SortDescriptor(\.sortOrder)])
        #expect(found.map(\.objectID.uriRepresentation) == ["kura://News/1", "kura://News/2", "kura://News/3"])
        #expect(found.map(\.title) == ["News 1", "News 2", "News 3"])
        #expect(found.allSatisfy { $0.dateUpdated != nil && !$0.objectId.isEmpty })
        #expect(try News.deleteAll(in: again) == 3)
        try again.save()
        #expect(try reopened.newContext().count(for: FetchRequest(entityName: "News")) == 0)
    }

    @Test func theRequestScopedSnapshotExampleRunsAsWritten() async throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.news())
        _ = try ObservationTests.insertNews(container.newContext(), [2, 1])
        let page = try await container.performBackgroundTask { context in
            try context.fetch(News.fetchRequest().sorted(by: \.sortOrder)).map { try $0.snapshot() }
        }
        #expect(page[0].title == "News 1")
        let body = try JSONEncoder().encode(page)
        let objects = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        #expect(objects.map { $0["title"] as? String } == ["News 1", "News 2"])
        #expect(objects[0]["objectID"] as? String == page[0].objectID.uriRepresentation)
    }

    @Test func theRelationshipExampleRunsAsWritten() throws {
        let store = try TestStore(engine: .lmdb)
        // The README's classes are the Blog fixture's (Support/Blog.swift).
        let blog = try PersistentContainer(path: store.path, model: ManagedObjectModel(Author.self, Post.self, Tag.self, Comment.self))
        let context = blog.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        let swift = Tag(context: context)
        swift.name = "swift"
        let post = Post(context: context)
        post.title = "Hello"
        post.author = ann
        #expect(ann.posts == [post])
        post.tags = [swift]
        #expect(swift.posts == [post])
        try context.save()

        let reader = blog.newContext()
        let request = FetchRequest<Post>(predicate: #Predicate { $0.author?.name == "Ann" && $0.tags.contains { $0.name == "swift" } })
        let found = try reader.fetch(request)
        #expect(found.map(\.title) == ["Hello"] && found[0].author?.name == "Ann")
        let plan = try reader.explain(request).description
        #expect(plan == #"SCAN Post (1 objects), FILTER author.name == "Ann" AND ANY tags.name == "swift""#)
        let stored = found[0].author!
        #expect(try stored.$posts.count == 1)
        reader.delete(stored)
        #expect(reader.deletedObjects.count == 2, "cascade")
        try reader.save()
        #expect(try blog.newContext().count(for: FetchRequest(entityName: "Post")) == 0)
    }
}

/// The README's "Changing your model" example: version 1 and version 2 of
/// the app's News class, as two classes of one entity.
enum ReadmeV1 {
    final class News: ManagedObject {
        @Attribute var headline: String = ""
        @Attribute var sortOrder: Int = 0
        override class var entityName: String { "News" }
    }
}

enum ReadmeV2 {
    final class News: ManagedObject {
        @Attribute var title: String = ""                // was `headline`
        @Attribute var subtitle: String?                 // new: old objects read nil
        @Attribute(.indexed) var sortOrder: Int = 0      // new index: built on open
        override class var propertyRenamingIdentifiers: [String: String] { ["title": "headline"] }
        override class var entityName: String { "News" }
    }
}

extension ReadmeTests {
    @Test func theModelChangeExampleRunsAsWritten() throws {
        let store = try TestStore(engine: .lmdb)
        do {
            let container = try PersistentContainer(path: store.path, model: ManagedObjectModel(ReadmeV1.News.self))
            let context = container.newContext()
            for index in 1...300 {
                let news = ReadmeV1.News(context: context)
                news.headline = "News \(index)"
                news.sortOrder = index
            }
            try context.save()
            container.close()
        }
        let container = try PersistentContainer(path: store.path, model: ManagedObjectModel(ReadmeV2.News.self))
        let report = try #require(container.store.lastMigration)
        let lines = "\(report)".split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("migrated in ") && lines[0].hasSuffix(" s through 1 stage(s)"))
        #expect(Array(lines[1...3]) == [
            "  News.headline is renamed title (model only)",
            "  News.subtitle is added (model only)",
            "  index News.sortOrder is added (reads stored objects)",
        ])
        #expect(lines[4].hasPrefix("  index News (sortOrder): 300 objects in "))
        let context = container.newContext()
        let news = try context.fetch(FetchRequest<ReadmeV2.News>(predicate: \.sortOrder == 42))
        #expect(news.map(\.title) == ["News 42"])
        #expect(news.first?.subtitle == nil)
        #expect(try context.explain(FetchRequest<ReadmeV2.News>(predicate: \.sortOrder == 42)).description.contains("USING INDEX sortOrder"))
    }

    /// News 1 to 300, every third titled "Kura news N", sorted by their
    /// number; returns the `objectId` of the 42nd.
    @Test func theBatchRequestExampleRunsAsWritten() throws {
        let store = try TestStore()
        let container = try store.open(try ManagedObjectModel(News.self))
        let context = container.newContext()
        _ = try Self.saveThreeHundredNews(in: context)
        struct Item { let id: String; let title: String }
        let feed = (0..<10).map { Item(id: "feed-\($0)", title: "From the feed \($0)") }

        // From the README.
        try context.execute(BatchDeleteRequest(FetchRequest<News>(predicate: \.sortOrder < 100)))
        try context.delete(model: News.self, where: #Predicate { $0.title == "" })

        var archive = BatchUpdateRequest(FetchRequest<News>(predicate: \.sortOrder < 200))
        archive.set(\News.title, to: "archived")
        let changed = try context.execute(archive)   // changed.objectIDs, changed.changes

        let rows = feed.map { [AttributeValue.string($0.id), .string($0.title)] }
        try context.execute(BatchInsertRequest(News.self, keys: ["objectId", "title"], rows: rows))

        #expect(changed.count == 100)
        #expect(try context.count(for: FetchRequest<News>(predicate: \.title == "archived")) == 100)
        #expect(try context.count(for: FetchRequest<News>()) == 201 + 10)
    }

    private static func saveThreeHundredNews(in context: ManagedObjectContext) throws -> String {
        var id = ""
        for index in 1...300 {
            let news = News(context: context)
            news.title = index % 3 == 0 ? "Kura news \(index)" : "News \(index)"
            news.sortOrder = index
            if index == 42 { id = news.objectId }
        }
        try context.save()
        return id
    }
}
