import Foundation
import Kura
import Synchronization

/// The classic Core Data `News` entity, as the demo writes it: hooks set
/// `objectId` and `dateCreated` when a news is inserted, and `dateUpdated`
/// each time it is saved.
final class DemoNews: ManagedObject {
    @Attribute(.unique) var objectId: String = ""
    @Attribute var title: String = ""
    @Attribute var body: String = ""
    @Attribute var imageURL: String?
    @Attribute var dateCreated: Date?
    @Attribute var dateUpdated: Date?
    @Attribute(.indexed) var sortOrder: Int = 0
    @Relationship var author: DemoAuthor?
    @Relationship(inverse: \DemoTag.news) var tags: Set<DemoTag>

    override class var entityName: String { "News" }

    /// How often each hook ran, for the demo's account.
    static let hooks = Mutex<[String: Int]>([:])

    override func awakeFromInsert() {
        super.awakeFromInsert()
        objectId = UUID().uuidString
        dateCreated = Date()
        Self.hooks.withLock { $0["awakeFromInsert", default: 0] += 1 }
    }

    override func willSave() {
        super.willSave()
        if !isDeleted { dateUpdated = Date() }   // joins the same save: no loop
        Self.hooks.withLock { $0["willSave", default: 0] += 1 }
    }

    override func didSave() {
        super.didSave()
        Self.hooks.withLock { $0["didSave", default: 0] += 1 }
    }
}

/// The demo's authors: each wrote some news; deleting one deletes them.
final class DemoAuthor: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship(inverse: \DemoNews.author, deleteRule: .cascade) var news: Set<DemoNews>

    override class var entityName: String { "Author" }
}

/// The demo's tags, shared by many news (a many-to-many).
final class DemoTag: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship var news: Set<DemoNews>

    override class var entityName: String { "Tag" }
}

/// `kura demo`: builds a sample News store and tells what happened.
public enum Demo {
    /// The demo's model: `News` with its `Author` and `Tag`s, and the
    /// `allNews`, `getNews` and `newsByAuthor` templates.
    public static func model() throws -> ManagedObjectModel {
        try templates().model
    }

    /// The demo's model and its typed templates.
    private static func templates() throws -> (
        model: ManagedObjectModel, getNews: FetchTemplate<DemoNews, String>, newsByAuthor: FetchTemplate<DemoNews, String?>
    ) {
        let model = try ManagedObjectModel(DemoNews.self, DemoAuthor.self, DemoTag.self)
        try model.setFetchRequestTemplate(DemoNews.fetchRequest().sorted(by: \.sortOrder), forName: "allNews")
        let getNews = try model.setFetchRequestTemplate(
            FetchRequest<DemoNews>(predicate: "objectId == $objectId"), forName: "getNews", variables: ("objectId", String.self))
        let newsByAuthor = try model.setFetchRequestTemplate(
            #Predicate<DemoNews, String?> { $0.author?.name == $1 }, sortBy: [SortDescriptor(\.sortOrder)],
            forName: "newsByAuthor", variables: "author")
        return (model, getNews, newsByAuthor)
    }

    /// Builds the store at `path` with `count` news, printing an account
    /// through `output`. An existing demo store at `path` is replaced; any
    /// other file there is left alone and is an error.
    public static func run(path: String, count: Int = 300, output: (String) -> Void) throws {
        guard count > 0 else { throw InspectError("the demo needs at least one news") }
        try removeEarlierDemo(at: path)
        DemoNews.hooks.withLock { $0 = [:] }
        let (model, getNews, newsByAuthor) = try templates()
        let container = try PersistentContainer(path: path, model: model)
        defer { container.close() }
        let context = container.newContext()

        var generator = DemoRandom(seed: 2026)
        let subjects = ["Kura", "LMDB", "Swift on Linux", "Core Data", "The storehouse", "A fetch template", "The query planner"]
        let verbs = ["ships", "grows", "saves the day", "learns a trick", "meets a predicate", "keeps its promises", "gets faster"]
        let authors = ["Ann", "Bob", "Chen", "Dana", "Emeka", "Fatima", "Goro", "Hana"].map { name in
            let author = DemoAuthor(context: context)
            author.name = name
            return author
        }
        let tags = ["swift", "linux", "lmdb", "coredata", "kura", "performance", "release", "howto"].map { name in
            let tag = DemoTag(context: context)
            tag.name = name
            return tag
        }
        let start = ContinuousClock.now
        for index in 0..<count {
            let news = DemoNews(context: context)
            news.author = authors[generator.next(authors.count)]
            news.tags = Set((0...generator.next(3)).map { _ in tags[generator.next(tags.count)] })
            news.title = "\(subjects[generator.next(subjects.count)]) \(verbs[generator.next(verbs.count)]) #\(index + 1)"
            news.body = "Story \(index + 1): " + (0..<12).map { _ in subjects[generator.next(subjects.count)].lowercased() }.joined(separator: " ")
            news.imageURL = index % 4 == 0 ? nil : "https://images.example.com/news/\(index + 1).jpg"
            news.sortOrder = generator.next(count * 10)
        }
        let inserted = context.insertedObjects.count
        try context.save()
        let saveTime = ContinuousClock.now - start
        let afterInsert = DemoNews.hooks.withLock { $0 }

        output("Built \(path): \(inserted) objects in one save (\(milliseconds(saveTime)) ms): \(count) News, "
            + "\(authors.count) Authors, \(tags.count) Tags; each news has an author and 1 to 3 tags.")
        output("  awakeFromInsert ran \(afterInsert["awakeFromInsert", default: 0]) times: each news got a UUID objectId and a dateCreated.")
        output("  willSave ran \(afterInsert["willSave", default: 0]) times and set dateUpdated inside the save (no willSave loop);")
        output("  didSave ran \(afterInsert["didSave", default: 0]) times, after the commit.")

        let some = try context.fetch(DemoNews.fetchRequest().sorted(by: \.sortOrder).limited(to: 10))
        let before = some.first?.dateUpdated
        for news in some { news.title += " (updated)" }
        try context.save()
        let afterUpdate = DemoNews.hooks.withLock { $0 }
        output("Updated \(some.count) titles and saved again: willSave ran \(afterUpdate["willSave", default: 0] - afterInsert["willSave", default: 0]) more times; "
            + "dateUpdated moved forward: \(before.map { $0 < (some.first?.dateUpdated ?? $0) } ?? false).")

        try refreshFeed(container, output: output)

        let reader = container.newContext()
        let all = try reader.count(for: model.fetchRequestTemplate(forName: "allNews")!)
        let id = some.first?.objectId ?? ""
        let request = try getNews.request(id)
        let found = try reader.fetch(request).last
        output("Template allNews counts \(all) news; getNews with $objectId = \(id) finds \"\(found?.title ?? "nothing")\" (\(found?.objectID.uriRepresentation ?? "-")).")
        output("Its plan: \(try reader.explain(request))")
        let byAuthor = try newsByAuthor.request("Ann")
        output("Template newsByAuthor with $author = Ann finds \(try reader.count(for: byAuthor)) news; "
            + "its plan: \(try reader.explain(byAuthor))")
        output("")
        output("Look inside (read-only, without this program's code):")
        output("  kura inspect \(path)")
        output("  kura> entities")
        output("  kura> fetch News where title CONTAINS[c] \"kura\" sort sortOrder limit 5")
        output("  kura> template getNews objectId=\(id)")
        output("  kura> fetch News where ANY tags.name == \"swift\" AND author.name == \"Ann\" limit 5")
        output("  kura> show kura://Author/1")
        output("  kura> plan fetch News where sortOrder BETWEEN {100, 200}")
        output("  kura> stats")
    }

    /// The seeds' import: the server sends the feed again, some news known
    /// by `objectId` with new titles and some new. A context with
    /// ``MergePolicy/mergeByPropertyObjectTrump`` inserts each as it comes,
    /// without fetching: the save turns known ones into updates.
    private static func refreshFeed(_ container: PersistentContainer, output: (String) -> Void) throws {
        let known = try container.newContext().fetch(DemoNews.fetchRequest().sorted(by: \.sortOrder).limited(to: 20))
        let feed = known.map { (objectId: $0.objectId, title: $0.title + " (from the feed)", created: $0.dateCreated) }
            + (1...5).map { (objectId: "feed-\($0)", title: "Fresh from the feed #\($0)", created: Date?.none) }
        let before = try container.newContext().count(for: DemoNews.fetchRequest())
        let importer = container.newContext()
        importer.mergePolicy = .mergeByPropertyObjectTrump
        let imported = feed.enumerated().map { position, item in
            let news = DemoNews(context: importer)
            news.objectId = item.objectId
            news.title = item.title
            if item.created == nil {  // a new one: the rest of its values (a known one keeps its stored ones)
                news.body = "Story from the feed: \(item.title.lowercased())"
                news.sortOrder = Int.max - feed.count + position  // after every other
            }
            return news
        }
        try importer.save()
        let after = try container.newContext().count(for: DemoNews.fetchRequest())
        let keptDates = zip(imported, feed).filter { $0.1.created != nil && $0.0.dateCreated == $0.1.created }.count
        output("Imported a feed of \(feed.count) news by objectId (mergeByPropertyObjectTrump), in one save: "
            + "\(after - before) new, \(known.count) updated in place (\(keptDates) kept their dateCreated); \(after) news in all.")
    }

    /// Removes the demo store at `path` if there is one; refuses any other file.
    private static func removeEarlierDemo(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        var options = StoreOptions()
        options.isReadOnly = true
        do {
            let existing = try PersistentContainer(path: path, model: model(), options: options)
            existing.close()
        } catch {
            throw InspectError("\(path) exists and is not a demo store (\(error)); choose another path")
        }
        try FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: path + "-lock")
    }

    private static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }
}

/// A small fixed-seed generator, so the demo's data is the same each time.
private struct DemoRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
