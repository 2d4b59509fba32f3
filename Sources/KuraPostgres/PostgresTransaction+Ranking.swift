// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore
import PostgresNIO

/// A top-K by an unindexed numeric attribute, narrowed on the server: the
/// records ranked by `kura_rank` (``rankFunction``), only those at or
/// above the `count`-th rank, and every record without a rank, in key order.
/// The store ranks what comes (``RecordRanking``).
extension PostgresTransaction {
    func forEachRanked(in space: StorageSpace, by ranking: RecordRanking, _ body: (StorageEntry) throws -> Bool) throws -> Bool {
        guard ranking.count > 0 else { return false }
        try flush()
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        binds.append(Int32(ranking.field))
        binds.append(Int32(ranking.tag))
        binds.append(Int64(ranking.count - 1))
        let (order, compare) = ranking.descending ? ("DESC", ">=") : ("ASC", "<=")
        let rows = try execute("""
            WITH ranked AS MATERIALIZED (
                SELECT key, value, kura_rank(value, $2, $3) AS rank FROM kura_kv WHERE space = $1)
            SELECT key, value FROM ranked
            WHERE rank IS NULL OR rank \(compare) COALESCE(
                (SELECT rank FROM ranked WHERE rank IS NOT NULL ORDER BY rank \(order) OFFSET $4 LIMIT 1), rank)
            ORDER BY key
            """, binds)
        for row in rows {
            var columns = RowColumns(row)
            let key = try columns.requiredBytes()
            let value = try columns.requiredBytes()
            let goOn = try key.withUnsafeReadableBytes { key in
                try value.withUnsafeReadableBytes { try body(StorageEntry(key: key, value: $0)) }
            }
            if !goOn { break }
        }
        return true
    }

    /// `kura_rank(record, field, tag)`: the rank of a Kura record by one
    /// field (see ``RecordRanking``), `NULL` when the field holds no value
    /// of the 8-byte kind `tag` names (3 integer, 4 double, 8 date) or a NaN.
    /// It reads the record format: the field count at bytes 9–10, the
    /// fields' end offsets from byte 11, 4 bytes each, little-endian; the
    /// values after them, each a tag byte and its payload.
    static let rankFunction = """
        CREATE OR REPLACE FUNCTION kura_rank(record bytea, field int4, tag int4) RETURNS int8
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $kura$
        DECLARE
            fields int4 := get_byte(record, 9) | (get_byte(record, 10) << 8);
            start_offset int8;
            end_offset int8;
            at int4;
            bits int8;
        BEGIN
            IF field < 0 OR field >= fields OR length(record) < 11 + 4 * fields THEN RETURN NULL; END IF;
            end_offset := get_byte(record, 11 + 4 * field) | (get_byte(record, 12 + 4 * field) << 8)
                | (get_byte(record, 13 + 4 * field) << 16) | (get_byte(record, 14 + 4 * field)::int8 << 24);
            start_offset := CASE WHEN field = 0 THEN 0 ELSE get_byte(record, 7 + 4 * field) | (get_byte(record, 8 + 4 * field) << 8)
                | (get_byte(record, 9 + 4 * field) << 16) | (get_byte(record, 10 + 4 * field)::int8 << 24) END;
            at := 11 + 4 * fields + start_offset;
            IF end_offset - start_offset <> 9 OR 11 + 4 * fields + end_offset > length(record) OR get_byte(record, at) <> tag THEN
                RETURN NULL;
            END IF;
            -- The 8 bytes after the tag, read big-endian, then swapped: they are little-endian.
            bits := ('x' || encode(substring(record from at + 2 for 8), 'hex'))::bit(64)::int8;
            bits := ((bits & 255) << 56) | (((bits >> 8) & 255) << 48) | (((bits >> 16) & 255) << 40) | (((bits >> 24) & 255) << 32)
                | (((bits >> 32) & 255) << 24) | (((bits >> 40) & 255) << 16) | (((bits >> 48) & 255) << 8) | ((bits >> 56) & 255);
            IF tag = 3 THEN RETURN bits; END IF;
            -- IEEE 754: a NaN has no rank; a negative number's other bits count down.
            IF (bits & x'7FF0000000000000'::int8) = x'7FF0000000000000'::int8 AND (bits & x'000FFFFFFFFFFFFF'::int8) <> 0 THEN
                RETURN NULL;
            END IF;
            RETURN CASE WHEN bits < 0 THEN bits # x'7FFFFFFFFFFFFFFF'::int8 ELSE bits END;
        END
        $kura$
        """
}
#endif
