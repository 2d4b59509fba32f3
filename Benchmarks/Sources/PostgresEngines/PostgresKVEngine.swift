import Foundation
import Logging
import NewsDataset
import NewsEngines
import NIOCore
import PostgresNIO

/// A prototype of the mapping planned for Kura on PostgreSQL, measured
/// before building it: one ordered key-value table holding what Kura keeps
/// in LMDB's named databases (records as encoded bytes by primary key, a
/// unique index by objectId, an index by sortOrder), every operation one
/// statement: index entries joined with records on the server, writes as
/// `unnest` of arrays. Records use the raw LMDB engine's encoding and keys,
/// so what is measured is the mapping, not Kura's object layer.
///
/// Top-100 without an index and the title sort read every record and sort
/// here, as Kura's planner would (the server can't read the encoded records).
public final class PostgresKVEngine: NewsEngine {
    public static let name = "postgres-kv"
    let connection: PostgresConnection
    let logger = Logger(label: "kura-compare.postgres-kv")
    private var nextPrimaryKey: UInt64 = 1

    /// The spaces: records, the unique objectId index, the sortOrder index.
    static let records: Int32 = 1, byObjectId: Int32 = 2, bySortOrder: Int32 = 3

    public init(directory: String) throws {
        connection = try PostgresServer.shared.get().connectToNewDatabase(logger: logger)
        try execute("CREATE TABLE kura_kv (space int4, key bytea, value bytea NOT NULL, PRIMARY KEY (space, key))")
        // Every join here finds each record by its key. PostgreSQL's statistics
        // of one shared table can't tell, and for a 10% range chose a hash join
        // over every record (92 ms against 24 ms with index lookups, in order).
        try execute("SET enable_hashjoin = off")
        try execute("SET enable_mergejoin = off")
        try execute("SET enable_bitmapscan = off")
    }

    deinit { try? connection.close().wait() }

    @discardableResult
    private func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> PostgresQueryResult {
        try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).wait()
    }

    private func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    private static func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

    /// Records (the `value` column of each row), decoded.
    private func records(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [NewsValue] {
        try execute(sql, binds).map { row in
            try row.decode(ByteBuffer.self).withUnsafeReadableBytes { RawNewsCodec.decode($0) }
        }
    }

    /// Records in sortOrder order through the index: entries joined with records on the server.
    private static let joinedBySortOrder = """
        SELECT r.value FROM kura_kv i JOIN kura_kv r ON r.space = 1 AND r.key = substring(i.key FROM 9 FOR 8)
        WHERE i.space = 3
        """

    private func checksum(_ news: [NewsValue], readTitles: Bool = false) -> Checksum {
        Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                 total: readTitles ? news.reduce(0) { $0 + $1.title.utf8.count } : 0)
    }

    /// Writes rows with one `INSERT … SELECT FROM unnest` per 30,000.
    private func insertRows(_ spaces: [Int32], _ keys: [ByteBuffer], _ values: [ByteBuffer]) throws {
        var start = 0
        while start < spaces.count {
            let end = min(start + 30_000, spaces.count)
            var binds = PostgresBindings()
            binds.append(Array(spaces[start..<end]))
            binds.append(Array(keys[start..<end]))
            binds.append(Array(values[start..<end]))
            try execute("INSERT INTO kura_kv (space, key, value) SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])", binds)
            start = end
        }
    }

    public func insert(_ news: [NewsValue]) throws -> Checksum {
        var spaces: [Int32] = [], keys: [ByteBuffer] = [], values: [ByteBuffer] = []
        spaces.reserveCapacity(news.count * 3)
        keys.reserveCapacity(news.count * 3)
        values.reserveCapacity(news.count * 3)
        var record: [UInt8] = []
        for value in news {
            let primaryKey = nextPrimaryKey
            nextPrimaryKey += 1
            RawNewsCodec.encode(value, into: &record)
            let key = Self.buffer(LMDBEngine.key(primaryKey))
            spaces.append(Self.records); keys.append(key); values.append(Self.buffer(record))
            spaces.append(Self.byObjectId); keys.append(Self.buffer(Array(value.objectId.utf8))); values.append(key)
            spaces.append(Self.bySortOrder); keys.append(Self.buffer(LMDBEngine.sortKey(value.sortOrder, primaryKey)))
            values.append(ByteBuffer())
        }
        try inTransaction { try insertRows(spaces, keys, values) }
        return Checksum(count: news.count)
    }

    private static let allRecords = "SELECT value FROM kura_kv WHERE space = 1 ORDER BY key"

    public func fetchAll() throws -> Checksum { checksum(try records(Self.allRecords)) }

    public func fetchAllReadingTitles() throws -> Checksum { checksum(try records(Self.allRecords), readTitles: true) }

    public func fetchAllReadingEveryField() throws -> Checksum {
        let news = try records(Self.allRecords)
        return Checksum(count: news.count, first: news.first?.objectId, last: news.last?.objectId,
                        total: news.reduce(0) { $0 + Checksum.everyField(of: $1) })
    }

    public func fetchSortedBySortOrder() throws -> Checksum {
        checksum(try records(Self.joinedBySortOrder + " ORDER BY i.key"))
    }

    public func fetchSortedByTitle() throws -> Checksum {
        checksum(try records(Self.allRecords).sorted { $0.title < $1.title })
    }

    public func fetchTop100(usingIndex: Bool) throws -> Checksum {
        if usingIndex { return checksum(try records(Self.joinedBySortOrder + " ORDER BY i.key LIMIT 100")) }
        return checksum(Array(try records(Self.allRecords).sorted { $0.sortOrder < $1.sortOrder }.prefix(100)))
    }

    private static func sortOrderBounds(_ range: ClosedRange<Int>) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(buffer(Array(LMDBEngine.sortKey(range.lowerBound, 0).prefix(8))))
        binds.append(buffer(Array(LMDBEngine.sortKey(range.upperBound, 0).prefix(8)) + [UInt8](repeating: 0xFF, count: 8)))
        return binds
    }

    public func fetchRange(_ range: ClosedRange<Int>) throws -> Checksum {
        checksum(try records(Self.joinedBySortOrder + " AND i.key >= $1 AND i.key <= $2 ORDER BY i.key", Self.sortOrderBounds(range)))
    }

    public func lookUp(_ ids: [String]) throws -> Checksum {
        var found: [NewsValue] = []
        found.reserveCapacity(ids.count)
        for id in ids {
            var binds = PostgresBindings()
            binds.append(Self.buffer(Array(id.utf8)))
            let sql = "SELECT r.value FROM kura_kv i JOIN kura_kv r ON r.space = 1 AND r.key = i.value WHERE i.space = 2 AND i.key = $1"
            if let news = try records(sql, binds).first { found.append(news) }
        }
        return checksum(found, readTitles: true)
    }

    public func count() throws -> Checksum {
        Checksum(count: Int(try execute("SELECT count(*) FROM kura_kv WHERE space = 1").first!.decode(Int64.self)))
    }

    /// The records in the range (through the index, with their keys), then
    /// every changed record written back in one `UPDATE … FROM unnest`.
    public func update(_ range: ClosedRange<Int>, iteration: Int) throws -> Checksum {
        try inTransaction {
            let rows = try execute("""
                SELECT r.key, r.value FROM kura_kv i JOIN kura_kv r ON r.space = 1 AND r.key = substring(i.key FROM 9 FOR 8)
                WHERE i.space = 3 AND i.key >= $1 AND i.key <= $2 FOR UPDATE OF r
                """, Self.sortOrderBounds(range))
            var keys: [ByteBuffer] = [], values: [ByteBuffer] = []
            var record: [UInt8] = []
            for row in rows {
                let (key, value) = try row.decode((ByteBuffer, ByteBuffer).self)
                var news = value.withUnsafeReadableBytes { RawNewsCodec.decode($0) }
                news.title = "updated \(iteration) \(news.sortOrder)"
                news.dateUpdated = Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(iteration))
                RawNewsCodec.encode(news, into: &record)
                keys.append(key)
                values.append(Self.buffer(record))
            }
            var binds = PostgresBindings()
            binds.append(keys)
            binds.append(values)
            try execute("""
                UPDATE kura_kv SET value = changed.value FROM unnest($1::bytea[], $2::bytea[]) AS changed(key, value)
                WHERE kura_kv.space = 1 AND kura_kv.key = changed.key
                """, binds)
            return Checksum(count: keys.count)
        }
    }

    /// The records in the range (for their index entries), then every row
    /// of each deleted object in one `DELETE … USING unnest`.
    public func delete(_ range: ClosedRange<Int>) throws -> Checksum {
        try inTransaction {
            let rows = try execute("""
                SELECT i.key, r.key, r.value FROM kura_kv i JOIN kura_kv r ON r.space = 1 AND r.key = substring(i.key FROM 9 FOR 8)
                WHERE i.space = 3 AND i.key >= $1 AND i.key <= $2
                """, Self.sortOrderBounds(range))
            var spaces: [Int32] = [], keys: [ByteBuffer] = []
            for row in rows {
                let (indexKey, key, value) = try row.decode((ByteBuffer, ByteBuffer, ByteBuffer).self)
                spaces += [Self.bySortOrder, Self.records, Self.byObjectId]
                keys += [indexKey, key, Self.buffer(value.withUnsafeReadableBytes { RawNewsCodec.objectId($0) })]
            }
            var binds = PostgresBindings()
            binds.append(spaces)
            binds.append(keys)
            try execute("""
                DELETE FROM kura_kv USING unnest($1::int4[], $2::bytea[]) AS gone(space, key)
                WHERE kura_kv.space = gone.space AND kura_kv.key = gone.key
                """, binds)
            return Checksum(count: keys.count / 3)
        }
    }
}
