// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore
import PostgresNIO

/// Ranges read ahead: the relationship entries of many owners in one
/// statement, where a walk of each would be a statement of its own (a
/// predicate through a to-many, evaluated on every record of a scan).
extension PostgresTransaction {
    /// A range of a space read ahead.
    struct RangeKey: Hashable {
        let space: UInt32
        let range: KeyRange
    }

    /// Reads the entries of `ranges` in one statement, for a read
    /// transaction (its snapshot answers the same to its end). Only ranges
    /// with both bounds, the lower one inclusive and the upper one not (a
    /// prefix), are read; a walk of any other goes to the server.
    func prefetch(ranges: [KeyRange], in space: StorageSpace) throws {
        guard isReadOnly else { return }
        var wanted: [KeyRange] = []
        var lows = BinaryArray.bytea()
        var highs = BinaryArray.bytea()
        for range in ranges where prefetchedRanges[RangeKey(space: space.number, range: range)] == nil {
            guard let lower = range.lower, lower.isInclusive, let upper = range.upper, !upper.isInclusive else { continue }
            prefetchedRanges[RangeKey(space: space.number, range: range)] = []
            wanted.append(range)
            lows.append(lower.key)
            highs.append(upper.key)
        }
        guard !wanted.isEmpty else { return }
        try flush()
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        binds.append(lows)
        binds.append(highs)
        let rows = try execute("""
            SELECT wanted.position, kura_kv.key, kura_kv.value
            FROM unnest($2::bytea[], $3::bytea[]) WITH ORDINALITY AS wanted(low, high, position)
            JOIN kura_kv ON kura_kv.space = $1 AND kura_kv.key >= wanted.low AND kura_kv.key < wanted.high
            ORDER BY wanted.position, kura_kv.key
            """, binds)
        for row in rows {
            var columns = RowColumns(row)
            let position = try columns.requiredInteger()
            let key = try columns.requiredBytes()
            let value = try columns.requiredBytes()
            guard position >= 1 && position <= wanted.count else { continue }
            prefetchedRanges[RangeKey(space: space.number, range: wanted[Int(position) - 1]), default: []].append((key, value))
        }
    }

    /// Walks a range read ahead, returning false when `range` wasn't.
    func walkReadAhead(
        _ space: StorageSpace, _ range: KeyRange, _ direction: IterationDirection, _ body: (StorageEntry) throws -> Bool
    ) throws -> Bool {
        guard !prefetchedRanges.isEmpty, let entries = prefetchedRanges[RangeKey(space: space.number, range: range)] else {
            return false
        }
        for (key, value) in direction == .forward ? entries : entries.reversed() {
            let goOn = try key.withUnsafeReadableBytes { key in
                try value.withUnsafeReadableBytes { try body(StorageEntry(key: key, value: $0)) }
            }
            if !goOn { break }
        }
        return true
    }
}
#endif
