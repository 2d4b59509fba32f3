// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore

/// The statement of one page of a walk: which rows it selects, which bounds
/// it has and which way it goes (the values are its arguments). Small and
/// hashable: a walk finds its prepared statement by it without making the
/// statement's text, a visible part of a short fetch's cost.
struct PageStatement: Hashable {
    enum Source: Hashable {
        /// The entries of one space: `$1` the space.
        case entries
        /// An index's entries joined with their records: `$1` the index, `$2` the records.
        case joined
    }

    enum Comparison: String, Hashable {
        case above = ">"
        case atLeast = ">="
        case below = "<"
        case atMost = "<="
    }

    let source: Source
    let lower: Comparison?
    let upper: Comparison?
    /// The comparison with the last key of the page before, if any.
    let after: Comparison?
    let direction: IterationDirection

    init(source: Source, range: KeyRange, resuming: Bool, direction: IterationDirection) {
        self.source = source
        lower = range.lower.map { $0.isInclusive ? .atLeast : .above }
        upper = range.upper.map { $0.isInclusive ? .atMost : .below }
        after = resuming ? (direction == .forward ? .above : .below) : nil
        self.direction = direction
    }

    /// How many spaces it binds first.
    var spaceCount: Int { source == .entries ? 1 : 2 }

    /// The statement, with `$n` for the spaces, then the bounds in the
    /// order lower, upper, after; `LIMIT` follows.
    var sql: String {
        var sql: String
        let column: String
        switch source {
        case .entries:
            sql = "SELECT key, value, NULL::bytea FROM kura_kv WHERE space = $1"
            column = "key"
        case .joined:
            sql = "SELECT i.key, i.value, r.value FROM kura_kv i LEFT JOIN kura_kv r ON r.space = $2 AND r.key = i.value WHERE i.space = $1"
            column = "i.key"
        }
        var parameter = spaceCount
        for comparison in [lower, upper, after].compactMap({ $0 }) {
            parameter += 1
            sql += " AND \(column) \(comparison.rawValue) $\(parameter)"
        }
        return sql + " ORDER BY \(column) \(direction == .forward ? "ASC" : "DESC")"
    }
}
#endif
