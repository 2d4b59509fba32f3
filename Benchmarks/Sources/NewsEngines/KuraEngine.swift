import Foundation
import Kura
import NewsDataset

/// The benchmark's News entity: attributes only, no hooks, so every engine
/// stores exactly the dataset's values.
final class BenchmarkNews: ManagedObject {
    @Attribute(.unique) var objectId: String = ""
    @Attribute var title: String = ""
    @Attribute var body: String = ""
    @Attribute var imageURL: String?
    @Attribute var dateCreated: Date = .distantPast
    @Attribute var dateUpdated: Date?
    @Attribute(.indexed) var sortOrder: Int = 0

    override class var entityName: String { "News" }
}

/// Kura: managed objects through a context, as an app uses it. Each
/// operation uses a new context, so nothing is served from an earlier
/// operation's objects.
open class KuraEngine: UpsertingEngine {
    open class var name: String { "Kura" }
    let container: PersistentContainer

    /// How ``lookUp(_:)`` makes its requests.
    public enum LookupStyle: Sendable {
        /// The `getNews` template, a `[String: Any]` of its variable.
        case dictionary
        /// The same template registered with its variable's type.
        case typedTemplate
        /// A template registered as `#Predicate<News, String> { $0.objectId == $1 }`.
        case predicateTemplate
        /// A `#Predicate` capturing the id, made (and converted) per lookup.
        case capturedPredicate
    }

    /// How lookups are made (the dictionary template unless a row says otherwise).
    public var lookupStyle = LookupStyle.dictionary
    private let getNewsTyped: FetchTemplate<BenchmarkNews, String>
    private let getNewsPredicate: FetchTemplate<BenchmarkNews, String>

    public required convenience init(directory: String) throws {
        var options = StoreOptions()
        options.initialSize = 1 << 30
        try self.init(store: .lmdb(path: directory + "/news.kura", options: options))
    }

    /// Kura on the store `store` describes (another engine than LMDB's).
    public init(store: StoreDescription) throws {
        let model = try ManagedObjectModel(BenchmarkNews.self)
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "News", predicate: "objectId == $objectId"), forName: "getNews")
        getNewsTyped = try model.setFetchRequestTemplate(
            FetchRequest<BenchmarkNews>(predicate: "objectId == $objectId"), forName: "getNewsTyped", variables: ("objectId", String.self))
        getNewsPredicate = try model.setFetchRequestTemplate(
            #Predicate<BenchmarkNews, String> { $0.objectId == $1 }, forName: "getNewsPredicate", variables: "objectId")
        container = try PersistentContainer(store: store, model: model)
    }

    deinit { container.close() }

    private func checksum(_ news: [BenchmarkNews], readTitles: Bool = false) -> Checksum {
        Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                 total: readTitles ? news.reduce(0) { $0 + $1.title.utf8.count } : 0)
    }

    public func insert(_ news: [NewsValue]) throws -> Checksum {
        try insert(news, into: container.newContext())
    }

    private func insert(_ news: [NewsValue], into context: ManagedObjectContext) throws -> Checksum {
        for value in news {
            let object = BenchmarkNews(context: context)
            object.objectId = value.objectId
            object.title = value.title
            object.body = value.body
            object.imageURL = value.imageURL
            object.dateCreated = value.dateCreated
            object.dateUpdated = value.dateUpdated
            object.sortOrder = value.sortOrder
        }
        try context.save()
        return Checksum(count: news.count)
    }

    /// An insert of every record into a context whose merge policy makes
    /// an insert of a stored `objectId` (a unique attribute) an update of
    /// the stored object: no fetch first.
    public func upsert(_ news: [NewsValue]) throws -> Checksum {
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        return try insert(news, into: context)
    }

    private var all: FetchRequest<BenchmarkNews> { FetchRequest<BenchmarkNews>() }

    public func fetchAll() throws -> Checksum {
        checksum(try container.newContext().fetch(all, as: BenchmarkNews.self))
    }

    public func fetchAllReadingTitles() throws -> Checksum {
        checksum(try container.newContext().fetch(all, as: BenchmarkNews.self), readTitles: true)
    }

    public func fetchAllReadingEveryField() throws -> Checksum {
        let news = try container.newContext().fetch(all, as: BenchmarkNews.self)
        let total = news.reduce(0) {
            $0 + Checksum.everyField(objectId: $1.objectId, title: $1.title, body: $1.body, imageURL: $1.imageURL,
                                     dateCreated: $1.dateCreated, dateUpdated: $1.dateUpdated, sortOrder: $1.sortOrder)
        }
        return Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId, total: total)
    }

    /// Every field of every object, walking a batched fetch
    /// (``FetchRequest/fetchBatchSize``): one batch of objects in memory at
    /// a time.
    public func walkBatchedReadingEveryField(batchSize: Int = 1000) throws -> Checksum {
        var request = all
        request.fetchBatchSize = batchSize
        let news = try container.newContext().fetchBatched(request, as: BenchmarkNews.self)
        var total = 0
        for object in news {
            total += Checksum.everyField(
                objectId: object.objectId, title: object.title, body: object.body, imageURL: object.imageURL,
                dateCreated: object.dateCreated, dateUpdated: object.dateUpdated, sortOrder: object.sortOrder)
        }
        return Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId, total: total)
    }

    /// Calls `body` with every object fetched and registered in one context
    /// (none of its values read), then lets them go.
    public func holdingEveryObject(_ body: (Int) -> Void) throws {
        let news = try container.newContext().fetch(all, as: BenchmarkNews.self)
        body(news.count)
    }

    public func fetchSortedBySortOrder() throws -> Checksum {
        checksum(try container.newContext().fetch(all.sorted(by: "sortOrder"), as: BenchmarkNews.self))
    }

    public func fetchSortedByTitle() throws -> Checksum {
        checksum(try container.newContext().fetch(all.sorted(by: "title"), as: BenchmarkNews.self))
    }

    public func fetchTop100(usingIndex: Bool) throws -> Checksum {
        var request = all.sorted(by: "sortOrder").limited(to: 100)
        request.allowsIndexes = usingIndex
        return checksum(try container.newContext().fetch(request, as: BenchmarkNews.self))
    }

    public func fetchRange(_ range: ClosedRange<Int>) throws -> Checksum {
        let request = all.filtered(by: .between(\BenchmarkNews.sortOrder, range.lowerBound, range.upperBound)).sorted(by: "sortOrder")
        return checksum(try container.newContext().fetch(request, as: BenchmarkNews.self))
    }

    public func lookUp(_ ids: [String]) throws -> Checksum {
        let context = container.newContext()
        let model = container.model
        var found: [BenchmarkNews] = []
        found.reserveCapacity(ids.count)
        for id in ids {
            let news: BenchmarkNews?
            switch lookupStyle {
            case .dictionary:
                let request = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": id])
                news = try context.fetch(request, as: BenchmarkNews.self).last
            case .typedTemplate:
                news = try context.fetch(getNewsTyped, id).last
            case .predicateTemplate:
                news = try context.fetch(getNewsPredicate, id).last
            case .capturedPredicate:
                news = try context.fetch(FetchRequest<BenchmarkNews>(predicate: #Predicate { $0.objectId == id })).last
            }
            if let news { found.append(news) }
        }
        return checksum(found, readTitles: true)
    }

    public func count() throws -> Checksum {
        Checksum(count: try container.newContext().count(for: all))
    }

    public func update(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        let context = container.newContext()
        let request = all.filtered(by: .between(\BenchmarkNews.sortOrder, range.lowerBound, range.upperBound))
        let news = try context.fetch(request, as: BenchmarkNews.self)
        let date = Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(iteration))
        for object in news {
            object.title = "updated \(iteration) \(object.sortOrder)"
            object.dateUpdated = date
        }
        try context.save()
        return Checksum(count: news.count)
    }

    public func delete(_ range: ClosedRange<Int>) throws -> Checksum {
        let context = container.newContext()
        let request = all.filtered(by: .between(\BenchmarkNews.sortOrder, range.lowerBound, range.upperBound))
        let news = try context.fetch(request)
        for object in news { context.delete(object) }
        try context.save()
        return Checksum(count: news.count)
    }
}

extension KuraEngine: BatchEngine {
    private func sortOrderRange(_ range: ClosedRange<Int>) -> FetchRequest<BenchmarkNews> {
        FetchRequest<BenchmarkNews>().filtered(by: .between(\BenchmarkNews.sortOrder, range.lowerBound, range.upperBound))
    }

    public func batchDelete(_ range: ClosedRange<Int>) throws -> Checksum {
        Checksum(count: try container.newContext().execute(BatchDeleteRequest(sortOrderRange(range))).count)
    }

    public func batchUpdate(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        var request = BatchUpdateRequest(sortOrderRange(range))
        request.set(\BenchmarkNews.title, to: "batch \(iteration)")
        request.set(\BenchmarkNews.dateUpdated, to: Self.batchDate(iteration))
        return Checksum(count: try container.newContext().execute(request).count)
    }

    /// Rows of values for attributes named once (the cheaper of the two forms).
    /// Rows of values for keys named once (the least work a row).
    public func batchInsert(_ news: [NewsValue]) throws -> Checksum {
        let keys = ["objectId", "title", "body", "imageURL", "dateCreated", "dateUpdated", "sortOrder"]
        let rows: [[AttributeValue?]] = news.map { value in
            [
                .string(value.objectId), .string(value.title), .string(value.body), value.imageURL.map(AttributeValue.string),
                .date(value.dateCreated), value.dateUpdated.map(AttributeValue.date), .int(Int64(value.sortOrder)),
            ]
        }
        let request = BatchInsertRequest(BenchmarkNews.self, keys: keys, rows: rows)
        return Checksum(count: try container.newContext().execute(request).count)
    }

    /// The typed form: each row filled by key path from the dataset.
    public func batchInsertTyped(_ news: [NewsValue]) throws -> Checksum {
        let request = BatchInsertRequest(BenchmarkNews.self, count: news.count) { index, row in
            let value = news[index]
            row.set(\.objectId, to: value.objectId)
            row.set(\.title, to: value.title)
            row.set(\.body, to: value.body)
            row.set(\.imageURL, to: value.imageURL)
            row.set(\.dateCreated, to: value.dateCreated)
            row.set(\.dateUpdated, to: value.dateUpdated)
            row.set(\.sortOrder, to: value.sortOrder)
        }
        return Checksum(count: try container.newContext().execute(request).count)
    }
}
