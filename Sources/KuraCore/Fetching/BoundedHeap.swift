/// How a ``BoundedHeap`` orders its elements.
protocol HeapOrder {
    associatedtype Element
    /// True when `a` comes before `b` in the result.
    func precedes(_ a: Element, _ b: Element) -> Bool
}

/// The first `capacity` elements of a stream in an order, kept in a bounded
/// max-heap whose root is the element that would be dropped next:
/// O(n log capacity) time, O(capacity) memory. What a `fetchLimit` uses
/// when no index delivers the sort order.
struct BoundedHeap<Order: HeapOrder> {
    let capacity: Int
    let order: Order
    private(set) var elements: [Order.Element] = []

    init(capacity: Int, order: Order) {
        self.capacity = max(0, capacity)
        self.order = order
        elements.reserveCapacity(min(self.capacity, 4096))
    }

    var isFull: Bool { elements.count == capacity }

    /// Keeps `element` if it is among the first `capacity` so far.
    @inline(__always)
    mutating func offer(_ element: Order.Element) {
        guard capacity > 0 else { return }
        if elements.count < capacity {
            elements.append(element)
            siftUp(elements.count - 1)
        } else if order.precedes(element, elements[0]) {
            elements[0] = element
            siftDown(0)
        }
    }

    /// The kept elements, in order.
    func sorted() -> [Order.Element] {
        elements.sorted(by: order.precedes)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard order.precedes(elements[parent], elements[child]) else { return }
            elements.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = parent * 2 + 1
            let right = left + 1
            var largest = parent
            if left < elements.count && order.precedes(elements[largest], elements[left]) { largest = left }
            if right < elements.count && order.precedes(elements[largest], elements[right]) { largest = right }
            if largest == parent { return }
            elements.swapAt(parent, largest)
            parent = largest
        }
    }
}

/// Rows in the order of a fetch's sort descriptors.
struct RowHeapOrder<Payload>: HeapOrder {
    let ordering: RowOrdering

    @inline(__always)
    func precedes(_ a: SortableRow<Payload>, _ b: SortableRow<Payload>) -> Bool { ordering.precedes(a, b) }
}

extension BoundedHeap {
    /// True when a row with these keys and number would be kept: checked
    /// before the row is made.
    @inline(__always)
    func accepts<Payload>(keys: SortKeys, number: UInt64) -> Bool where Order == RowHeapOrder<Payload> {
        guard capacity > 0 else { return false }
        guard isFull else { return true }
        return elements.withUnsafeBufferPointer { heap in
            order.ordering.precedes(SortableRow<Void>(keys: keys, tier: 0, number: number, payload: ()), heap[0])
        }
    }
}
