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
        case (.localized(let x), .localized(let y)):
            switch x.localizedStandardCompare(y) {
            case .orderedAscending: return -1
            case .orderedSame: return 0
            case .orderedDescending: return 1
            }
        case (.value(let x), .value(let y)): return x.compare(to: y)
        default: return rank(a) - rank(b)
        }
    }

    private static func rank(_ key: SortKey) -> Int {
        switch key {
        case .null: 0
        case .int, .double: 1
        case .text: 2
        case .localized: 3
        case .value: 4
        }
    }
}

/// The sort keys of one result, and what breaks ties: saved objects by
/// primary key first, then unsaved ones by insertion.
struct SortableRow<Payload> {
    var keys: [SortKey]
    /// 0 for a saved object, 1 for an unsaved one.
    var tier: Int
    var number: UInt64
    var payload: Payload
}

/// Orders rows by sort descriptors, then by tier and number (stable).
struct RowOrdering {
    let sorts: [PreparedSort]

    func keys<Source: AttributeSource>(of source: Source) -> [SortKey] {
        sorts.map { SortKey(source.attributeValue($0.number), comparison: $0.comparison) }
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

    /// The first `count` rows in order, keeping only that many at a time (a
    /// bounded max-heap): O(n log count) time, O(count) memory.
    func smallest<Payload>(_ count: Int, of rows: some Sequence<SortableRow<Payload>>) -> [SortableRow<Payload>] {
        guard count > 0 else { return [] }
        var heap: [SortableRow<Payload>] = []
        heap.reserveCapacity(count)
        for row in rows {
            if heap.count < count {
                heap.append(row)
                siftUp(&heap, heap.count - 1)
            } else if precedes(row, heap[0]) {
                heap[0] = row
                siftDown(&heap, 0)
            }
        }
        return heap.sorted(by: precedes)
    }

    /// Max-heap by this ordering: the root is the row that comes last.
    private func siftUp<Payload>(_ heap: inout [SortableRow<Payload>], _ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private func siftDown<Payload>(_ heap: inout [SortableRow<Payload>], _ start: Int) {
        var parent = start
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var largest = parent
            if left < heap.count && precedes(heap[largest], heap[left]) { largest = left }
            if right < heap.count && precedes(heap[largest], heap[right]) { largest = right }
            if largest == parent { return }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }
}
