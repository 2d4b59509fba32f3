// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore
import PostgresNIO

/// A top-K by an unindexed numeric attribute, narrowed on the server: each
/// record's rank is read from Kura's record format by SQL expressions
/// (``RankStatement``), and only the records a top-K needs travel. The
/// store ranks what comes (``RecordRanking``).
extension PostgresTransaction {
    func forEachRanked(in space: StorageSpace, by ranking: RecordRanking, _ body: (StorageEntry) throws -> Bool) throws -> Bool {
        guard ranking.count > 0 else { return false }
        try flush()
        let statement = RankStatement(ranking)
        var rows = try firstRanked(in: space, statement)
        if rows == nil {
            rows = try execute(statement.exact, bindings(space, Int64(ranking.count - 1)))
        }
        for row in rows! {
            var columns = RowColumns(row)
            let key = try columns.requiredBytes()
            let value = try columns.requiredBytes()
            // The store keeps views of the records it ranks until the transaction ends.
            lent.append(key)
            lent.append(value)
            let goOn = try key.withUnsafeReadableBytes { key in
                try value.withUnsafeReadableBytes { try body(StorageEntry(key: key, value: $0)) }
            }
            if !goOn { break }
        }
        return true
    }

    /// The first ``RankStatement/firstCount`` records by rank, records
    /// without a rank first, when they hold what the top-K needs: every
    /// record without a rank, the first `count` ranked and those tied with
    /// the last of them. `nil` when they may not (many records without a
    /// rank, or ties across the cut): then the exact statement decides.
    private func firstRanked(in space: StorageSpace, _ statement: RankStatement) throws -> PostgresQueryResult? {
        let rows = try execute(statement.first, bindings(space, Int64(statement.firstCount)))
        var ranks: [Int64?] = []
        for row in rows {
            var columns = RowColumns(row)
            _ = try columns.requiredBytes()
            _ = try columns.requiredBytes()
            ranks.append(try columns.integer())
        }
        guard ranks.count == statement.firstCount else { return rows }  // the whole space came
        // In rank order: the records without a rank, then the ranked ones.
        let sorted = ranks.sorted { lhs, rhs in
            switch (lhs, rhs) {
            case (nil, _): return rhs != nil
            case (_, nil): return false
            case let (lhs?, rhs?): return statement.descending ? lhs > rhs : lhs < rhs
            }
        }
        let ranked = sorted.compactMap { $0 }
        guard ranked.count > statement.count, ranked[statement.count - 1] != ranked[ranked.count - 1] else { return nil }
        return rows
    }

    private func bindings(_ space: StorageSpace, _ count: Int64) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        binds.append(count)
        return binds
    }
}

/// The statements that narrow a top-K on the server. A record's rank is
/// read by SQL expressions from Kura's record format as KuraCore describes
/// it (``RecordRanking/layout``: the field count, the table of field ends,
/// the values after them, each a tag byte and its payload; no offset is
/// written here). A subquery cuts the field's value out of the record (so
/// the offsets are read once a record); the
/// next reads its payload, little-endian, as an `int8` that sorts as the
/// value does (a double's or a date's IEEE 754 bits made
/// order-preserving); `NULL` for a field of another kind or size, a `nil`
/// or a NaN. Plain expressions, not a function: PostgreSQL evaluates them
/// without a call per record (a PL/pgSQL function cost 3–4 times as much).
///
/// ``first`` sends the ``firstCount`` first records by rank, records
/// without a rank first (one pass, a bounded sort), with each rank;
/// ``exact`` sends every record without a rank and every one ranked at or
/// above the `count`-th (one pass, the ranks kept in a table).
struct RankStatement {
    let count: Int
    let descending: Bool
    /// How many records ``first`` sends: the `count` asked and as many
    /// again (at least 64), room for records without a rank and for ties.
    let firstCount: Int
    let first: String
    let exact: String

    init(_ ranking: RecordRanking) {
        count = ranking.count
        descending = ranking.descending
        firstCount = ranking.count > Int(Int32.max) / 2 ? Int(Int32.max) : ranking.count + max(ranking.count, 64)
        let ranks = Self.ranks(of: ranking)
        let order = ranking.descending ? "DESC" : "ASC"
        let compare = ranking.descending ? ">=" : "<="
        first = """
            SELECT kura_kv.key, kura_kv.value, ranked.rank FROM (
                SELECT key, rank FROM (\(ranks)) AS ranks ORDER BY rank \(order) NULLS FIRST LIMIT $2) AS ranked
            JOIN kura_kv ON kura_kv.space = $1 AND kura_kv.key = ranked.key
            ORDER BY kura_kv.key
            """
        exact = """
            WITH ranked AS MATERIALIZED (\(ranks))
            SELECT kura_kv.key, kura_kv.value FROM ranked
            JOIN kura_kv ON kura_kv.space = $1 AND kura_kv.key = ranked.key
            WHERE ranked.rank IS NULL OR ranked.rank \(compare) COALESCE(
                (SELECT rank FROM ranked WHERE rank IS NOT NULL ORDER BY rank \(order) OFFSET $2 LIMIT 1), ranked.rank)
            ORDER BY kura_kv.key
            """
    }

    /// `SELECT key, rank` for every record of space `$1`. Every number of
    /// the record format comes from ``RecordRanking/layout``.
    static func ranks(of ranking: RecordRanking) -> String {
        let layout = ranking.layout
        let field = ranking.field
        // A little-endian number of `width` bytes at `byte` (an SQL
        // expression; `bytes` names the value read). A byte is an int4
        // until its shift needs 64 bits (per byte, int8 cost about 10% more).
        func number(at byte: Int, width: Int, of bytes: String = "value") -> String {
            (0..<width).map { index in
                let shift = 8 * index
                let read = "get_byte(\(bytes), \(byte + index))\(shift >= 24 ? "::int8" : "")"
                return shift == 0 ? read : "(\(read) << \(shift))"
            }.joined(separator: " | ")
        }
        let fields = "(\(number(at: layout.fieldCountOffset, width: layout.fieldCountWidth)))"
        // Field f ends at the table's entry f; it starts where f − 1 ends.
        let endOf = { (field: Int) in "(\(number(at: layout.endTableOffset + layout.endWidth * field, width: layout.endWidth)))" }
        let start = field == 0 ? "0" : endOf(field - 1)
        let end = endOf(field)
        let valueWidth = 1 + layout.payloadWidth
        // The field's tag byte and payload, or NULL. The length check comes
        // first, so that every get_byte reads inside the record.
        let tableEnd = layout.endTableOffset + layout.endWidth * (field + 1)
        let slices = """
            SELECT key, CASE WHEN length(value) >= \(tableEnd) AND \(field) < \(fields) AND \(end) - \(start) = \(valueWidth)
                THEN substring(value FROM (\(1 + layout.endTableOffset) + \(layout.endWidth) * \(fields) + \(start))::int4 FOR \(valueWidth)) END AS field
            FROM kura_kv WHERE space = $1 OFFSET 0
            """
        let payload = number(at: 1, width: layout.payloadWidth, of: "field")
        let bits = """
            SELECT key, CASE WHEN length(field) <> \(valueWidth) THEN NULL WHEN get_byte(field, 0) <> \(ranking.tag) THEN NULL
                ELSE \(payload) END AS bits
            FROM (\(slices)) AS slices
            """
        guard !ranking.ranksIntegers else { return "SELECT key, bits AS rank FROM (\(bits)) AS bits" }
        // IEEE 754: a NaN has no rank; a negative number's other bits count down.
        return """
            SELECT key, CASE
                WHEN (bits & x'7FF0000000000000'::int8) = x'7FF0000000000000'::int8 AND (bits & x'000FFFFFFFFFFFFF'::int8) <> 0 THEN NULL
                WHEN bits < 0 THEN bits # x'7FFFFFFFFFFFFFFF'::int8
                ELSE bits END AS rank
            FROM (\(bits) OFFSET 0) AS bits
            """
    }
}
#endif
