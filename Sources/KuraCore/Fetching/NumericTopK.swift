/// The first rows of a stream in the order of one numeric sort key (a
/// Bool, integer, floating-point or date attribute), kept in a
/// ``BoundedHeap`` of plain numbers: a row that doesn't make the cut costs
/// one integer comparison.
///
/// A heap of ``SortableRow``s does the same for any ordering, comparing
/// ``SortKey`` enums; on a scan of every record, copying those enums cost
/// more than reading the records.
struct NumericTopK<Payload> {
    /// One row's place in the order as (group, bits, number), compared
    /// lexicographically: the direction and where `nil` goes are folded in
    /// when the entry is made.
    struct Entry {
        var group: UInt8
        var bits: UInt64
        var number: UInt64
        var payload: Payload
    }

    struct Order: HeapOrder {
        @inline(__always)
        func precedes(_ a: Entry, _ b: Entry) -> Bool {
            if a.group != b.group { return a.group < b.group }
            if a.bits != b.bits { return a.bits < b.bits }
            return a.number < b.number
        }
    }

    let sort: PreparedSort
    private(set) var heap: BoundedHeap<Order>

    /// A heap of `capacity` rows for `sorts` on `entity`, or `nil` unless
    /// `sorts` is one sort by a numeric attribute.
    init?(capacity: Int, sorts: [PreparedSort], entity: EntityDescription) {
        guard let sort = Self.numericSort(sorts, of: entity) else { return nil }
        self.sort = sort
        heap = BoundedHeap(capacity: capacity, order: Order())
    }

    /// The sort when `sorts` is one sort by a numeric attribute of `entity`
    /// (whose values have ``SortKey/orderedBits``); else `nil`.
    static func numericSort(_ sorts: [PreparedSort], of entity: EntityDescription) -> PreparedSort? {
        guard sorts.count == 1, sorts[0].path == nil else { return nil }
        switch entity.attributes[sorts[0].number].type {
        case .bool, .int16, .int32, .int64, .double, .float, .date: return sorts[0]
        case .decimal, .string, .uuid, .data, .url: return nil
        }
    }

    /// Offers the row whose sort value is `value`. Ascending puts `nil`
    /// first, descending last, as ``RowOrdering`` does.
    @inline(__always)
    mutating func offer(_ value: AttributeValue?, number: UInt64, payload: Payload) {
        offer(bits: SortKey(value, comparison: sort.comparison).orderedBits, number: number, payload: payload)
    }

    /// Offers the row whose sort value has `bits` (``SortKey/orderedBits``), `nil` for a nil value.
    @inline(__always)
    mutating func offer(bits: UInt64?, number: UInt64, payload: Payload) {
        let (group, ordered) = place(bits)
        heap.offer(Entry(group: group, bits: ordered, number: number, payload: payload))
    }

    /// True when a row whose sort value has `bits` and whose number is
    /// `number` would be kept: checked before the row is read whole.
    @inline(__always)
    func accepts(bits: UInt64?, number: UInt64) -> Bool {
        guard heap.isFull else { return heap.capacity > 0 }
        let root = heap.elements[0]
        let (group, ordered) = place(bits)
        return (group, ordered, number) < (root.group, root.bits, root.number)
    }

    /// The group and bits of a sort value in the heap's order.
    @inline(__always)
    private func place(_ bits: UInt64?) -> (group: UInt8, bits: UInt64) {
        ((bits != nil) == sort.ascending ? 1 : 0, sort.ascending ? bits ?? 0 : ~(bits ?? 0))
    }
}
