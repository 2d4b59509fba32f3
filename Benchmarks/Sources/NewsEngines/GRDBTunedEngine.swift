import Foundation
import GRDB
import NewsDataset

/// A News row decoded the way an expert writes it: a hand-written
/// `init(row:)` reading columns by position, dates as `Double` seconds.
struct TunedNewsRow: FetchableRecord {
    var id: Int64
    var value: NewsValue

    /// The columns `init(row:)` reads, in order.
    static let columns = "id, objectId, title, body, imageURL, dateCreated, dateUpdated, sortOrder"

    init(row: Row) {
        id = row[0]
        value = NewsValue(
            objectId: row[1], title: row[2], body: row[3], imageURL: row[4],
            dateCreated: Date(timeIntervalSinceReferenceDate: row[5]),
            dateUpdated: (row[6] as Double?).map { Date(timeIntervalSinceReferenceDate: $0) },
            sortOrder: row[7])
    }
}

/// GRDB (SQLite) as an expert writes it, beside ``GRDBEngine`` (what a
/// newcomer writes): positional decoding (``TunedNewsRow``), dates stored as
/// `REAL` seconds since 2001 instead of text, every statement cached and
/// prepared once, inserts and updates through one cached statement in one
/// `write`. The same table and indexes (unique objectId, sortOrder), with
/// SQLite configured for the data (``configuration()``: memory map, page
/// cache, write-ahead log) at the same durability (synchronous FULL).
///
/// Updates read the rows and write each back, as an app holding records
/// does (and as Kura's context does), rather than one set-based `UPDATE`.
public final class GRDBTunedEngine: UpsertingEngine {
    public static let name = "GRDB tuned"
    let queue: DatabaseQueue
    /// Lookups inside one `read` (true), or one `read` per lookup (false,
    /// the default: what Kura's API does, a read transaction per fetch).
    public var looksUpInOneRead = false

    /// SQLite as an expert configures it for this data (issue 56), each
    /// setting named in Benchmarks/RESULTS.md: the file memory-mapped (1 GiB,
    /// more than the data: reads copy no page), a page cache sized for the
    /// data (256 MiB, where SQLite's default is 2 MB), and the write-ahead
    /// log, with `synchronous=FULL` kept, so a commit is as durable as
    /// Kura's (an fsync of the log at each commit).
    public static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
            try db.execute(sql: "PRAGMA cache_size = -262144")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return configuration
    }

    public init(directory: String) throws {
        queue = try DatabaseQueue(path: directory + "/news-tuned.sqlite", configuration: Self.configuration())
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE news (
                    id INTEGER PRIMARY KEY, objectId TEXT NOT NULL UNIQUE, title TEXT NOT NULL, body TEXT NOT NULL,
                    imageURL TEXT, dateCreated REAL NOT NULL, dateUpdated REAL, sortOrder INTEGER NOT NULL);
                CREATE INDEX news_sortOrder ON news(sortOrder);
                """)
        }
    }

    private func fetch(_ sql: String, _ arguments: StatementArguments = StatementArguments()) throws -> [TunedNewsRow] {
        try queue.read { db in try fetch(db, sql, arguments) }
    }

    private func fetch(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> [TunedNewsRow] {
        try TunedNewsRow.fetchAll(db.cachedStatement(sql: "SELECT \(TunedNewsRow.columns) FROM news " + sql), arguments: arguments)
    }

    private func checksum(_ rows: [TunedNewsRow], readTitles: Bool = false) -> Checksum {
        Checksum(count: rows.count, first: rows.first?.value.objectId, last: rows.last?.value.objectId,
                 total: readTitles ? rows.reduce(0) { $0 + $1.value.title.utf8.count } : 0)
    }

    public func insert(_ news: [NewsValue]) throws -> Checksum {
        try queue.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO news (objectId, title, body, imageURL, dateCreated, dateUpdated, sortOrder)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for value in news {
                try statement.execute(arguments: [
                    value.objectId, value.title, value.body, value.imageURL, value.dateCreated.timeIntervalSinceReferenceDate,
                    value.dateUpdated?.timeIntervalSinceReferenceDate, value.sortOrder,
                ])
            }
        }
        return Checksum(count: news.count)
    }

    /// One cached statement: `INSERT … ON CONFLICT(objectId) DO UPDATE`
    /// with every other column from `excluded`.
    public func upsert(_ news: [NewsValue]) throws -> Checksum {
        try queue.write { db in
            let statement = try db.cachedStatement(sql: """
                INSERT INTO news (objectId, title, body, imageURL, dateCreated, dateUpdated, sortOrder)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(objectId) DO UPDATE SET title = excluded.title, body = excluded.body,
                    imageURL = excluded.imageURL, dateCreated = excluded.dateCreated,
                    dateUpdated = excluded.dateUpdated, sortOrder = excluded.sortOrder
                """)
            for value in news {
                try statement.execute(arguments: [
                    value.objectId, value.title, value.body, value.imageURL, value.dateCreated.timeIntervalSinceReferenceDate,
                    value.dateUpdated?.timeIntervalSinceReferenceDate, value.sortOrder,
                ])
            }
        }
        return Checksum(count: news.count)
    }

    public func fetchAll() throws -> Checksum { checksum(try fetch("")) }

    public func fetchAllReadingTitles() throws -> Checksum { checksum(try fetch(""), readTitles: true) }

    public func fetchAllReadingEveryField() throws -> Checksum {
        let rows = try fetch("")
        return Checksum(count: rows.count, first: rows.first?.value.objectId, last: rows.last?.value.objectId,
                        total: rows.reduce(0) { $0 + Checksum.everyField(of: $1.value) })
    }

    public func fetchSortedBySortOrder() throws -> Checksum { checksum(try fetch("ORDER BY sortOrder")) }

    public func fetchSortedByTitle() throws -> Checksum { checksum(try fetch("ORDER BY title")) }

    public func fetchTop100(usingIndex: Bool) throws -> Checksum {
        checksum(try fetch(usingIndex ? "ORDER BY sortOrder LIMIT 100" : "NOT INDEXED ORDER BY sortOrder LIMIT 100"))
    }

    public func fetchRange(_ range: ClosedRange<Int>) throws -> Checksum {
        checksum(try fetch("WHERE sortOrder BETWEEN ? AND ? ORDER BY sortOrder", [range.lowerBound, range.upperBound]))
    }

    public func lookUp(_ ids: [String]) throws -> Checksum {
        let sql = "SELECT \(TunedNewsRow.columns) FROM news WHERE objectId = ?"
        func find(_ id: String, in db: Database) throws -> TunedNewsRow? {
            try TunedNewsRow.fetchOne(db.cachedStatement(sql: sql), arguments: [id])
        }
        var found: [TunedNewsRow] = []
        found.reserveCapacity(ids.count)
        if looksUpInOneRead {
            try queue.read { db in
                for id in ids { if let row = try find(id, in: db) { found.append(row) } }
            }
        } else {
            for id in ids {
                if let row = try queue.read({ db in try find(id, in: db) }) { found.append(row) }
            }
        }
        return checksum(found, readTitles: true)
    }

    public func count() throws -> Checksum {
        Checksum(count: try queue.read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM news")) ?? 0 })
    }

    public func update(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try queue.write { db in
            let rows = try fetch(db, "WHERE sortOrder BETWEEN ? AND ?", [range.lowerBound, range.upperBound])
            let date = 800_000_000 + Double(iteration)
            let statement = try db.cachedStatement(sql: "UPDATE news SET title = ?, dateUpdated = ? WHERE id = ?")
            for row in rows {
                try statement.execute(arguments: ["updated \(iteration) \(row.value.sortOrder)", date, row.id])
            }
            return Checksum(count: rows.count)
        }
    }

    public func delete(_ range: ClosedRange<Int>) throws -> Checksum {
        try queue.write { db in
            try db.cachedStatement(sql: "DELETE FROM news WHERE sortOrder BETWEEN ? AND ?")
                .execute(arguments: [range.lowerBound, range.upperBound])
            return Checksum(count: db.changesCount)
        }
    }
}

extension GRDBTunedEngine: BatchEngine {
    /// Its delete: one cached `DELETE … WHERE sortOrder BETWEEN`.
    public func batchDelete(_ range: ClosedRange<Int>) throws -> Checksum { try delete(range) }

    /// One `UPDATE … SET title, dateUpdated WHERE sortOrder BETWEEN`.
    public func batchUpdate(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try queue.write { db in
            try db.cachedStatement(sql: "UPDATE news SET title = ?, dateUpdated = ? WHERE sortOrder BETWEEN ? AND ?")
                .execute(arguments: [
                    "batch \(iteration)", Self.batchDate(iteration).timeIntervalSinceReferenceDate, range.lowerBound, range.upperBound,
                ])
            return Checksum(count: db.changesCount)
        }
    }

    /// Its insert: one cached statement for every row.
    public func batchInsert(_ news: [NewsValue]) throws -> Checksum { try insert(news) }
}
