import Foundation

/// A value prepared for sorting, so comparisons are cheap: strings are
/// normalized (and folded) once, dates become numbers.
enum SortKey {
    case null
    case int(Int64)
    case double(Double)
    /// NFC-normalized text (folded for `caseInsensitiveCompare`).
    case text(String)
    /// Text for `localizedStandardCompare`.
    case localized(String)
    /// Text for `localizedCompare`.
    case localizedOrder(String)
    case value(AttributeValue)

    init(_ value: AttributeValue?, comparison: FetchSortDescriptor.Comparison) {
        guard let value else {
            self = .null
            return
        }
        switch value {
        case .int(let number): self = .int(number)
        case .bool(let flag): self = .int(flag ? 1 : 0)
        case .double(let number): self = .double(number)
        case .float(let number): self = .double(Double(number))
        case .date(let date): self = .double(date.timeIntervalSinceReferenceDate)
        case .string(let text): self = SortKey(text: text, comparison: comparison)
        case .url(let url): self = SortKey(text: url.absoluteString, comparison: comparison)
        case .decimal, .uuid, .data: self = .value(value)
        }
    }

    private init(text: String, comparison: FetchSortDescriptor.Comparison) {
        switch comparison {
        case .compare: self = .text(IndexKeyEncoding.normalized(text))
        case .caseInsensitiveCompare: self = .text(IndexKeyEncoding.normalized(StringMatching.fold(text, .caseInsensitive)))
        case .localizedStandardCompare: self = .localized(text)
        case .localizedCompare: self = .localizedOrder(text)
        }
    }

    /// Negative, zero or positive; `nil` first. Agrees with the order of
    /// index keys for `compare`.
    static func compare(_ a: SortKey, _ b: SortKey) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)): return AttributeValue.compareDoubles(x, y)
        case (.int(let x), .double(let y)): return AttributeValue.compareDoubles(Double(x), y)
        case (.double(let x), .int(let y)): return AttributeValue.compareDoubles(x, Double(y))
        case (.text(let x), .text(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.localized(let x), .localized(let y)): return order(x.localizedStandardCompare(y))
        case (.localizedOrder(let x), .localizedOrder(let y)): return order(x.localizedCompare(y))
        case (.value(let x), .value(let y)): return x.compare(to: y)
        default: return rank(a) - rank(b)
        }
    }

    private static func order(_ result: ComparisonResult) -> Int {
        switch result {
        case .orderedAscending: -1
        case .orderedSame: 0
        case .orderedDescending: 1
        }
    }

    /// For an integer or a floating-point key, bits whose unsigned order is
    /// the keys' order (among keys of the same kind); `nil` for other keys.
    var orderedBits: UInt64? {
        switch self {
        case .int(let value): Self.orderedBits(value)
        case .double(let value): Self.orderedBits(value)
        default: nil
        }
    }

    /// An integer key's ordered bits.
    @inline(__always)
    static func orderedBits(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: value) ^ (1 << 63)
    }

    /// A floating-point key's ordered bits (one NaN, one zero).
    @inline(__always)
    static func orderedBits(_ value: Double) -> UInt64 {
        let canonical = value.isNaN ? Double.nan : (value == 0 ? 0 : value)
        let bits = canonical.bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    private static func rank(_ key: SortKey) -> Int {
        switch key {
        case .null: 0
        case .int, .double: 1
        case .text: 2
        case .localized, .localizedOrder: 3
        case .value: 4
        }
    }
}

/// The sort keys of one result. The first is stored inline, so sorting by
/// one descriptor (the usual case) allocates nothing per result.
struct SortKeys {
    var first: SortKey
    var rest: [SortKey]

    static let none = SortKeys(first: .null, rest: [])

    @inline(__always)
    subscript(position: Int) -> SortKey {
        position == 0 ? first : rest[position - 1]
    }
}

/// The sort keys of one result, and what breaks ties: saved objects by
/// primary key first, then unsaved ones by insertion.
struct SortableRow<Payload> {
    var keys: SortKeys
    /// 0 for a saved object, 1 for an unsaved one.
    var tier: Int
    var number: UInt64
    var payload: Payload
}

/// Orders rows by sort descriptors, then by tier and number (stable).
struct RowOrdering {
    let sorts: [PreparedSort]

    @inline(__always)
    func keys<Source: AttributeSource>(of source: Source) throws -> SortKeys {
        guard let first = sorts.first else { return .none }
        return SortKeys(
            first: SortKey(try value(first, source), comparison: first.comparison),
            rest: sorts.count == 1 ? [] : try sorts.dropFirst().map { SortKey(try value($0, source), comparison: $0.comparison) })
    }

    @inline(__always)
    private func value<Source: AttributeSource>(_ sort: PreparedSort, _ source: Source) throws -> AttributeValue? {
        guard let path = sort.path else { return source.attributeValue(sort.number) }
        return try source.value(of: path)
    }

    /// True when `a` and `b` are equal on every sort key.
    func sameKeys(_ a: SortKeys, _ b: SortKeys) -> Bool {
        sorts.indices.allSatisfy { SortKey.compare(a[$0], b[$0]) == 0 }
    }

    @inline(__always)
    func precedes<A, B>(_ a: SortableRow<A>, _ b: SortableRow<B>) -> Bool {
        for (position, sort) in sorts.enumerated() {
            let order = SortKey.compare(a.keys[position], b.keys[position])
            if order != 0 { return sort.ascending ? order < 0 : order > 0 }
        }
        if a.tier != b.tier { return a.tier < b.tier }
        return a.number < b.number
    }

    /// Sorts `rows`. The sort moves small entries, not rows: for one integer
    /// or floating-point key, entries of plain numbers; otherwise positions.
    func sort<Payload>(_ rows: inout [SortableRow<Payload>]) {
        guard rows.count > 1 else { return }
        if sorts.isEmpty {
            // Tier and number alone, unique to a row. Of one tier (a store's
            // rows), the numbers are sorted with their positions, two words
            // an entry, and the rows moved once.
            let tier = rows[0].tier
            guard rows.allSatisfy({ $0.tier == tier }) else {
                rows.sort { a, b in a.tier != b.tier ? a.tier < b.tier : a.number < b.number }
                return
            }
            var entries: [(number: UInt64, position: Int)] = []
            entries.reserveCapacity(rows.count)
            for position in rows.indices { entries.append((rows[position].number, position)) }  // no row copied
            entries.sort { $0.number < $1.number }
            Self.arrange(&rows, in: entries.map(\.position))
            return
        }
        let order = numericOrder(rows) ?? textOrder(rows) ?? rows.withUnsafeBufferPointer { buffer in
            var positions = Array(0..<buffer.count)
            positions.sort { precedes(buffer[$0], buffer[$1]) }
            return positions
        }
        Self.arrange(&rows, in: order)
    }

    /// Puts `rows` in `order` (`order[k]` is the position of the row that
    /// goes to `k`) by following its cycles with swaps: rows are moved, not
    /// copied, so nothing they hold is retained and released again.
    static func arrange<Row>(_ rows: inout [Row], in order: [Int]) {
        var order = order
        // The buffer's swap moves; the array's copies and destroys.
        rows.withUnsafeMutableBufferPointer { rows in
            for start in order.indices where order[start] != start {
                var position = start
                while true {
                    let from = order[position]
                    order[position] = position  // in place from now on
                    if from == start { break }
                    rows.swapAt(position, from)
                    position = from
                }
            }
        }
    }

    /// The order of rows with one numeric sort key, from entries of
    /// (has value, order-preserving bits, tier and number): no enum, string or
    /// reference in the comparisons. `nil` when a key is not a number.
    private func numericOrder<Payload>(_ rows: [SortableRow<Payload>]) -> [Int]? {
        guard sorts.count == 1 else { return nil }
        var entries: [NumericSortEntry] = []
        entries.reserveCapacity(rows.count)
        for position in rows.indices {  // fields read in place: a row copied costs more than its entry
            var entry = NumericSortEntry(
                hasValue: true, bits: 0, tier: rows[position].tier, number: rows[position].number, position: position)
            switch rows[position].keys.first {
            case .null: entry.hasValue = false
            case let key: guard let bits = key.orderedBits else { return nil }; entry.bits = bits
            }
            entries.append(entry)
        }
        // Integers and doubles can't be mixed in one ordering of bits.
        if case .int = rows.first(where: { if case .null = $0.keys.first { false } else { true } })?.keys.first {
            if rows.contains(where: { if case .double = $0.keys.first { true } else { false } }) { return nil }
        }
        let ascending = sorts.first?.ascending ?? true
        entries.sort { a, b in
            if a.hasValue != b.hasValue { return ascending ? !a.hasValue : a.hasValue }
            if a.bits != b.bits { return ascending ? a.bits < b.bits : a.bits > b.bits }
            if a.tier != b.tier { return a.tier < b.tier }
            return a.number < b.number
        }
        return entries.map(\.position)
    }

    /// The order of rows with one text key (`compare` or
    /// `caseInsensitiveCompare`, already normalized and folded in the key),
    /// sorting entries of byte ranges and numbers. `nil` for any other key.
    ///
    /// The texts are copied, one after another, into one buffer, and
    /// compared as bytes: they are in NFC, where the order of their UTF-8
    /// bytes is `String`'s order. (Comparing the strings themselves
    /// retained and released both on every comparison, inside the standard
    /// library: a quarter of sorting a million objects by title.)
    private func textOrder<Payload>(_ rows: [SortableRow<Payload>]) -> [Int]? {
        guard sorts.count == 1 else { return nil }
        var entries: [TextSortEntry] = []
        entries.reserveCapacity(rows.count)
        var texts: [UInt8] = []
        texts.reserveCapacity(rows.reduce(0) { size, row in
            if case .text(let text) = row.keys.first { size + text.utf8.count } else { size }
        })
        for position in rows.indices {  // fields read in place, as above
            var entry = TextSortEntry(start: 0, count: -1, tier: rows[position].tier, number: rows[position].number, position: position)
            switch rows[position].keys.first {
            case .null: break
            case .text(let text):
                entry.start = texts.count
                texts.append(contentsOf: text.utf8)
                entry.count = texts.count - entry.start
            default: return nil
            }
            entries.append(entry)
        }
        let ascending = sorts[0].ascending
        texts.withUnsafeBytes { texts in
            entries.sort { a, b in
                switch (a.count < 0, b.count < 0) {
                case (true, true): break
                case (true, false): return ascending
                case (false, true): return !ascending
                case (false, false):
                    let order = compareKeys(
                        UnsafeRawBufferPointer(rebasing: texts[a.start..<(a.start + a.count)]),
                        UnsafeRawBufferPointer(rebasing: texts[b.start..<(b.start + b.count)]))
                    if order != 0 { return ascending ? order < 0 : order > 0 }
                }
                if a.tier != b.tier { return a.tier < b.tier }
                return a.number < b.number
            }
        }
        return entries.map(\.position)
    }
}

/// One row's place in a sort by a single numeric key.
private struct NumericSortEntry {
    var hasValue: Bool
    var bits: UInt64
    var tier: Int
    var number: UInt64
    var position: Int
}

/// One row's place in a sort by a single text key: its text's bytes in
/// the sort's buffer (`count` -1 for no text).
private struct TextSortEntry {
    var start: Int
    var count: Int
    var tier: Int
    var number: UInt64
    var position: Int
}
