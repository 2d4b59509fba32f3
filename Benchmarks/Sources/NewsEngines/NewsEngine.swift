import Foundation
import NewsDataset

/// What an operation returns, so the engines' results can be compared: no
/// engine may win by doing less work.
public struct Checksum: Hashable, Sendable, CustomStringConvertible {
    public var count: Int
    /// The objectId of the first and last results (in the operation's order).
    public var first: String?
    public var last: String?
    /// A sum over the values read (title lengths), where the operation reads them.
    public var total: Int

    public init(count: Int, first: String? = nil, last: String? = nil, total: Int = 0) {
        self.count = count
        self.first = first
        self.last = last
        self.total = total
    }

    public var description: String {
        "\(count) [\(first?.prefix(8) ?? "-")…\(last?.prefix(8) ?? "-")] \(total)"
    }

    /// What reading every field of one record adds to ``total``: each
    /// string's length, each date's whole seconds, the sortOrder. Every
    /// engine reads all seven values to compute it.
    public static func everyField(
        objectId: String, title: String, body: String, imageURL: String?, dateCreated: Date, dateUpdated: Date?, sortOrder: Int
    ) -> Int {
        objectId.utf8.count + title.utf8.count + body.utf8.count + (imageURL?.utf8.count ?? 0)
            + Int(dateCreated.timeIntervalSinceReferenceDate) + Int(dateUpdated?.timeIntervalSinceReferenceDate ?? 0) + sortOrder
    }

    /// ``everyField(objectId:title:body:imageURL:dateCreated:dateUpdated:sortOrder:)`` of a dataset value.
    public static func everyField(of news: NewsValue) -> Int {
        everyField(objectId: news.objectId, title: news.title, body: news.body, imageURL: news.imageURL,
                   dateCreated: news.dateCreated, dateUpdated: news.dateUpdated, sortOrder: news.sortOrder)
    }
}

/// One store engine under test. Every engine performs each operation the
/// way its users would, on the same dataset, and returns the same checksum.
public protocol NewsEngine: AnyObject {
    /// "Kura", "raw LMDB", "GRDB".
    static var name: String { get }
    /// Opens a new, empty store in `directory`.
    init(directory: String) throws

    /// Inserts every record and saves, in one transaction.
    func insert(_ news: [NewsValue]) throws -> Checksum
    /// Fetches every record (as the engine's objects or values).
    func fetchAll() throws -> Checksum
    /// Fetches every record and reads every title.
    func fetchAllReadingTitles() throws -> Checksum
    /// Fetches every record and reads every field
    /// (``Checksum/everyField(objectId:title:body:imageURL:dateCreated:dateUpdated:sortOrder:)``).
    func fetchAllReadingEveryField() throws -> Checksum
    /// Every record sorted by the indexed sortOrder.
    func fetchSortedBySortOrder() throws -> Checksum
    /// Every record sorted by the non-indexed title.
    func fetchSortedByTitle() throws -> Checksum
    /// The first 100 by sortOrder, using the index or not.
    func fetchTop100(usingIndex: Bool) throws -> Checksum
    /// The records with sortOrder in `range` (through the index), in sortOrder order.
    func fetchRange(_ range: ClosedRange<Int>) throws -> Checksum
    /// One lookup by objectId per id (the `getNews` template), each in its
    /// own read; reads each title.
    func lookUp(_ ids: [String]) throws -> Checksum
    /// The number of records.
    func count() throws -> Checksum
    /// Sets a new title and dateUpdated on the records in `range` and saves.
    func update(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum
    /// Deletes the records in `range` and saves.
    func delete(_ range: ClosedRange<Int>) throws -> Checksum
}

extension NewsEngine {
    public var name: String { Self.name }
}

/// An engine that can import records by their unique `objectId`: the
/// seeds' refresh of a server feed.
public protocol UpsertingEngine: NewsEngine {
    /// Imports `news` in one transaction: a record whose `objectId` is
    /// stored replaces that record's values (its primary key stays), the
    /// others are inserted.
    func upsert(_ news: [NewsValue]) throws -> Checksum
}

/// An engine that changes records below its objects: Kura's batch requests,
/// SQL statements, raw LMDB's own loops (issue 40).
public protocol BatchEngine: NewsEngine {
    /// Deletes the records whose sortOrder is in `range`, in one transaction, without objects.
    func batchDelete(_ range: ClosedRange<Int>) throws -> Checksum
    /// Sets the title "batch `iteration`" and a dateUpdated on the records
    /// whose sortOrder is in `range`, in one transaction, without objects.
    func batchUpdate(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum
    /// Inserts `news` into an empty store, in one transaction, without objects.
    func batchInsert(_ news: [NewsValue]) throws -> Checksum
    /// The same, in the form an app writes by hand where there is one
    /// (Kura: rows filled by key path); the batch insert otherwise.
    func batchInsertTyped(_ news: [NewsValue]) throws -> Checksum
}

extension BatchEngine {
    public func batchInsertTyped(_ news: [NewsValue]) throws -> Checksum { try batchInsert(news) }

    /// The batch update's date for `iteration`.
    public static func batchDate(_ iteration: Int) -> Date { Date(timeIntervalSinceReferenceDate: 810_000_000 + Double(iteration)) }
}
