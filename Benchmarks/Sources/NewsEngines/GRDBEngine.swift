import Foundation
import GRDB
import NewsDataset

/// A GRDB record of the `news` table.
struct NewsRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "news"
    var id: Int64?
    var objectId: String
    var title: String
    var body: String
    var imageURL: String?
    var dateCreated: Date
    var dateUpdated: Date?
    var sortOrder: Int

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension NewsRecord {
    /// A new record of `value` (no row ID yet).
    init(_ value: NewsValue) {
        self.init(id: nil, objectId: value.objectId, title: value.title, body: value.body, imageURL: value.imageURL,
                  dateCreated: value.dateCreated, dateUpdated: value.dateUpdated, sortOrder: value.sortOrder)
    }
}

/// GRDB (SQLite) through its query interface and a `Record` type, with the
/// same indexes: unique objectId, sortOrder. A `DatabaseQueue` with GRDB's
/// defaults (rollback journal, synchronous FULL: every commit is durable,
/// as with Kura's default).
public final class GRDBEngine: UpsertingEngine {
    public static let name = "GRDB"
    let queue: DatabaseQueue
    /// Use a cached statement for lookups instead of the query interface.
    public var usesCachedStatement = false

    public init(directory: String) throws {
        queue = try DatabaseQueue(path: directory + "/news.sqlite")
        try queue.write { db in
            try db.create(table: "news") { table in
                table.autoIncrementedPrimaryKey("id")
                table.newsColumns()
            }
        }
    }

    private func checksum(_ news: [NewsRecord], readTitles: Bool = false) -> Checksum {
        Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                 total: readTitles ? news.reduce(0) { $0 + $1.title.utf8.count } : 0)
    }

    public func insert(_ news: [NewsValue]) throws -> Checksum {
        try queue.write { db in
            for value in news {
                var record = NewsRecord(value)
                try record.insert(db)
            }
        }
        return Checksum(count: news.count)
    }

    /// GRDB's `upsert`: `INSERT … ON CONFLICT DO UPDATE`, record by record.
    public func upsert(_ news: [NewsValue]) throws -> Checksum {
        try queue.write { db in
            for value in news {
                var record = NewsRecord(value)
                try record.upsert(db)
            }
        }
        return Checksum(count: news.count)
    }

    public func fetchAll() throws -> Checksum {
        checksum(try queue.read { db in try NewsRecord.fetchAll(db) })
    }

    public func fetchAllReadingTitles() throws -> Checksum {
        checksum(try queue.read { db in try NewsRecord.fetchAll(db) }, readTitles: true)
    }

    public func fetchAllReadingEveryField() throws -> Checksum {
        let news = try queue.read { db in try NewsRecord.fetchAll(db) }
        let total = news.reduce(0) {
            $0 + Checksum.everyField(objectId: $1.objectId, title: $1.title, body: $1.body, imageURL: $1.imageURL,
                                     dateCreated: $1.dateCreated, dateUpdated: $1.dateUpdated, sortOrder: $1.sortOrder)
        }
        return Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId, total: total)
    }

    public func fetchSortedBySortOrder() throws -> Checksum {
        checksum(try queue.read { db in try NewsRecord.order(Column("sortOrder")).fetchAll(db) })
    }

    public func fetchSortedByTitle() throws -> Checksum {
        checksum(try queue.read { db in try NewsRecord.order(Column("title")).fetchAll(db) })
    }

    public func fetchTop100(usingIndex: Bool) throws -> Checksum {
        checksum(try queue.read { db in
            if usingIndex {
                return try NewsRecord.order(Column("sortOrder")).limit(100).fetchAll(db)
            }
            return try NewsRecord.fetchAll(db, sql: "SELECT * FROM news NOT INDEXED ORDER BY sortOrder LIMIT 100")
        })
    }

    public func fetchRange(_ range: ClosedRange<Int>) throws -> Checksum {
        checksum(try queue.read { db in
            try NewsRecord.filter(range.contains(Column("sortOrder"))).order(Column("sortOrder")).fetchAll(db)
        })
    }

    public func lookUp(_ ids: [String]) throws -> Checksum {
        var found: [NewsRecord] = []
        found.reserveCapacity(ids.count)
        for id in ids {
            let record = try queue.read { db in
                if usesCachedStatement {
                    let statement = try db.cachedStatement(sql: "SELECT * FROM news WHERE objectId = ?")
                    return try NewsRecord.fetchOne(statement, arguments: [id])
                }
                return try NewsRecord.filter(Column("objectId") == id).fetchOne(db)
            }
            if let record { found.append(record) }
        }
        return checksum(found, readTitles: true)
    }

    public func count() throws -> Checksum {
        Checksum(count: try queue.read { db in try NewsRecord.fetchCount(db) })
    }

    public func update(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try queue.write { db in
            let records = try NewsRecord.filter(range.contains(Column("sortOrder"))).fetchAll(db)
            let date = Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(iteration))
            for var record in records {
                record.title = "updated \(iteration) \(record.sortOrder)"
                record.dateUpdated = date
                try record.update(db)
            }
            return Checksum(count: records.count)
        }
    }

    public func delete(_ range: ClosedRange<Int>) throws -> Checksum {
        try queue.write { db in
            Checksum(count: try NewsRecord.filter(range.contains(Column("sortOrder"))).deleteAll(db))
        }
    }
}

extension TableDefinition {
    /// The dataset's News columns, with the same indexes as the other
    /// engines (unique objectId, sortOrder), for both GRDB engines.
    func newsColumns() {
        column("objectId", .text).notNull().unique()
        column("title", .text).notNull()
        column("body", .text).notNull()
        column("imageURL", .text)
        column("dateCreated", .datetime).notNull()
        column("dateUpdated", .datetime)
        column("sortOrder", .integer).notNull().indexed()
    }
}

extension GRDBEngine: BatchEngine {
    /// Its delete: the query interface's `deleteAll`, one `DELETE … WHERE`.
    public func batchDelete(_ range: ClosedRange<Int>) throws -> Checksum { try delete(range) }

    /// The query interface's `updateAll`: one `UPDATE … WHERE`.
    public func batchUpdate(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try queue.write { db in
            Checksum(count: try NewsRecord.filter(range.contains(Column("sortOrder"))).updateAll(
                db, Column("title").set(to: "batch \(iteration)"), Column("dateUpdated").set(to: Self.batchDate(iteration))))
        }
    }

    /// Its insert (GRDB inserts records one by one, as its users do).
    public func batchInsert(_ news: [NewsValue]) throws -> Checksum { try insert(news) }
}
