// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore
import PostgresNIO

/// `PersistentStore.statistics()` and `kura stats` on PostgreSQL.
extension PostgresEngine: StatisticsReportingEngine {
    /// Each space's entries (its count in `kura_spaces`) and its keys' and
    /// values' bytes, read in one statement and one snapshot. The store's
    /// size on disk is its tables' with their indexes and TOAST
    /// (`pg_total_relation_size`); the bytes in use are the keys and
    /// values; the last transaction is the last commit number taken.
    /// PostgreSQL has no pages of Kura's to report, so ``StoreStatistics/pages`` is `nil`.
    func storeStatistics() throws -> StoreStatistics {
        try withConnection { pooled in
            do {
                let connection = pooled.connection
                let rows = try connection.query(PostgresQuery(unsafeSQL: Self.statisticsQuery), logger: logger)
                    .waitForAnswer(unlessClosed: { connection.isClosed })
                var spaces: [StoreStatistics.Space] = []
                var fileSize = 0
                var lastCommit = 0
                for row in rows {
                    var columns = RowColumns(row)
                    let name = String(buffer: try columns.requiredBytes())  // text, as UTF-8
                    let entries = try columns.requiredInteger()
                    let bytes = try columns.requiredInteger()
                    fileSize = Int(try columns.requiredInteger())
                    lastCommit = Int(try columns.requiredInteger())
                    spaces.append(StoreStatistics.Space(kind: "other", entity: nil, part: name, entries: Int(entries), bytes: Int(bytes)))
                }
                return StoreStatistics(path: location, fileSize: fileSize, usedBytes: spaces.reduce(0) { $0 + $1.bytes },
                                       lastTransactionID: lastCommit, spaces: spaces)
            } catch where isConnectionFailure(error) {
                throw NothingKept(error: error)  // a read of one statement
            }
        }
    }

    /// One row per space: name, entries, bytes, then the store's size on
    /// disk and its last commit number (the same on every row).
    private static let statisticsQuery = """
        SELECT s.name, s.entries, coalesce(b.bytes, 0)::int8,
               (pg_total_relation_size('kura_kv') + pg_total_relation_size('kura_spaces')
                + pg_total_relation_size('kura_saves'))::int8,
               (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM kura_commit_ids)::int8
        FROM kura_spaces s
        LEFT JOIN (SELECT space, sum(octet_length(key) + octet_length(value))::int8 AS bytes
                   FROM kura_kv GROUP BY space) b ON b.space = s.number
        ORDER BY s.name
        """
}
#endif
