import Foundation
import Logging
import NewsDataset
import NewsEngines
import PostgresNIO

/// PostgreSQL through postgres-nio as an expert writes it: hand-written
/// SQL, the same table and indexes as the other engines (unique objectId,
/// sortOrder), rows decoded by position, inserts as multi-row `INSERT`s
/// (1,000 rows a statement) in one transaction, an update written back in
/// one `UPDATE … FROM unnest(…)`, one statement (one round trip) per lookup.
/// The server keeps PostgreSQL's default durability (fsync, synchronous
/// commit), as LMDB and SQLite keep theirs.
///
/// The benchmark protocol is synchronous: each call waits on postgres-nio's
/// futures from the benchmark's own thread, never from an event loop.
public final class PostgresNIOEngine: NewsEngine {
    public static let name = "postgres-nio"
    let connection: PostgresConnection
    let logger = Logger(label: "kura-compare.postgres")

    static let columns = "id, object_id, title, body, image_url, date_created, date_updated, sort_order"

    public init(directory: String) throws {
        connection = try PostgresServer.shared.get().connectToNewDatabase(logger: logger)
        try execute("""
            CREATE TABLE news (
                id bigserial PRIMARY KEY, object_id text NOT NULL UNIQUE, title text NOT NULL, body text NOT NULL,
                image_url text, date_created timestamptz NOT NULL, date_updated timestamptz, sort_order bigint NOT NULL)
            """)
        try execute("CREATE INDEX news_sort_order ON news (sort_order)")
    }

    deinit { try? connection.close().wait() }

    @discardableResult
    private func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> PostgresQueryResult {
        try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
    }

    /// The rows `tail` selects (after `FROM news`), decoded by position.
    private func fetch(_ tail: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [(id: Int64, value: NewsValue)] {
        try execute("SELECT \(Self.columns) FROM news " + tail, binds).map(Self.decode)
    }

    private static func decode(_ row: PostgresRow) throws -> (id: Int64, value: NewsValue) {
        let (id, objectId, title, body, imageURL, dateCreated, dateUpdated, sortOrder) =
            try row.decode((Int64, String, String, String, String?, Date, Date?, Int64).self)
        return (id, NewsValue(objectId: objectId, title: title, body: body, imageURL: imageURL,
                              dateCreated: dateCreated, dateUpdated: dateUpdated, sortOrder: Int(sortOrder)))
    }

    private func checksum(_ rows: [(id: Int64, value: NewsValue)], readTitles: Bool = false) -> Checksum {
        Checksum(count: rows.count, first: rows.first?.value.objectId, last: rows.last?.value.objectId,
                 total: readTitles ? rows.reduce(0) { $0 + $1.value.title.utf8.count } : 0)
    }

    public func insert(_ news: [NewsValue]) throws -> Checksum {
        try execute("BEGIN")
        do {
            var start = 0
            while start < news.count {
                let batch = news[start..<min(start + 1000, news.count)]
                var binds = PostgresBindings(capacity: batch.count * 7)
                var sql = "INSERT INTO news (object_id, title, body, image_url, date_created, date_updated, sort_order) VALUES "
                for (offset, value) in batch.enumerated() {
                    let first = offset * 7
                    sql += (offset == 0 ? "" : ",") + "($\(first + 1),$\(first + 2),$\(first + 3),$\(first + 4),$\(first + 5),$\(first + 6),$\(first + 7))"
                    binds.append(value.objectId)
                    binds.append(value.title)
                    binds.append(value.body)
                    binds.append(value.imageURL)
                    binds.append(value.dateCreated)
                    binds.append(value.dateUpdated)
                    binds.append(Int64(value.sortOrder))
                }
                try execute(sql, binds)
                start += batch.count
            }
            try execute("COMMIT")
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
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

    public func fetchSortedBySortOrder() throws -> Checksum { checksum(try fetch("ORDER BY sort_order")) }

    /// The cluster has no locale (`initdb --no-locale`): text sorts by code
    /// point, as Kura's and the other engines' sorts do.
    public func fetchSortedByTitle() throws -> Checksum { checksum(try fetch("ORDER BY title")) }

    /// Without the index: `sort_order + 0` is an expression the index can't serve.
    public func fetchTop100(usingIndex: Bool) throws -> Checksum {
        checksum(try fetch(usingIndex ? "ORDER BY sort_order LIMIT 100" : "ORDER BY sort_order + 0 LIMIT 100"))
    }

    public func fetchRange(_ range: ClosedRange<Int>) throws -> Checksum {
        var binds = PostgresBindings()
        binds.append(Int64(range.lowerBound))
        binds.append(Int64(range.upperBound))
        return checksum(try fetch("WHERE sort_order BETWEEN $1 AND $2 ORDER BY sort_order", binds))
    }

    public func lookUp(_ ids: [String]) throws -> Checksum {
        var found: [(id: Int64, value: NewsValue)] = []
        found.reserveCapacity(ids.count)
        for id in ids {
            var binds = PostgresBindings()
            binds.append(id)
            if let row = try fetch("WHERE object_id = $1", binds).first { found.append(row) }
        }
        return checksum(found, readTitles: true)
    }

    public func count() throws -> Checksum {
        let rows = try execute("SELECT count(*) FROM news")
        return Checksum(count: Int(try rows.first!.decode(Int64.self)))
    }

    /// Reads the rows, then writes each back (a new title and dateUpdated), as
    /// an app holding records does: one `UPDATE` joining arrays of ids and
    /// titles, in one transaction with the read.
    public func update(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try execute("BEGIN")
        do {
            var binds = PostgresBindings()
            binds.append(Int64(range.lowerBound))
            binds.append(Int64(range.upperBound))
            let rows = try fetch("WHERE sort_order BETWEEN $1 AND $2", binds)
            var update = PostgresBindings()
            update.append(rows.map(\.id))
            update.append(rows.map { "updated \(iteration) \($0.value.sortOrder)" })
            update.append(Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(iteration)))
            try execute("""
                UPDATE news SET title = changed.title, date_updated = $3
                FROM unnest($1::bigint[], $2::text[]) AS changed(id, title) WHERE news.id = changed.id
                """, update)
            try execute("COMMIT")
            return Checksum(count: rows.count)
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    public func delete(_ range: ClosedRange<Int>) throws -> Checksum {
        var binds = PostgresBindings()
        binds.append(Int64(range.lowerBound))
        binds.append(Int64(range.upperBound))
        let result = try execute("DELETE FROM news WHERE sort_order BETWEEN $1 AND $2", binds)
        return Checksum(count: result.metadata.rows ?? 0)
    }
}

extension PostgresNIOEngine: BatchEngine {
    /// Its delete: one `DELETE … WHERE sort_order BETWEEN`.
    public func batchDelete(_ range: ClosedRange<Int>) throws -> Checksum { try delete(range) }

    /// One `UPDATE … SET title, date_updated WHERE sort_order BETWEEN`.
    public func batchUpdate(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        var binds = PostgresBindings()
        binds.append("batch \(iteration)")
        binds.append(Self.batchDate(iteration))
        binds.append(Int64(range.lowerBound))
        binds.append(Int64(range.upperBound))
        let result = try execute("UPDATE news SET title = $1, date_updated = $2 WHERE sort_order BETWEEN $3 AND $4", binds)
        return Checksum(count: result.metadata.rows ?? 0)
    }

    /// Its insert.
    public func batchInsert(_ news: [NewsValue]) throws -> Checksum { try insert(news) }
}
