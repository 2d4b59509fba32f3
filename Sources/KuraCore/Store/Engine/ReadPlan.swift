/// What a store is about to read by key or by range, said at once, so that
/// an engine whose reads are requests to a server can read it all in one
/// (``RequestingStorageTransaction/readAhead(_:)``).
///
/// The store builds a plan only for such an engine: the closure given to
/// the store transaction's `readAhead(building:)` is never called on an
/// engine whose reads cost no round trip (LMDB's map, memory), so the plan
/// costs those nothing.
public struct ReadPlan: Sendable {
    /// Keys whose values will be read, by space, in the order added.
    public private(set) var keys: [(space: StorageSpace, keys: [[UInt8]])] = []
    /// Ranges that will be walked whole, by space, in the order added.
    public private(set) var ranges: [(space: StorageSpace, ranges: [KeyRange])] = []

    /// An empty plan.
    public init() {}

    /// True when the plan reads nothing.
    public var isEmpty: Bool { keys.isEmpty && ranges.isEmpty }

    /// Adds the values of `keys` in `space`.
    public mutating func read(keys: [[UInt8]], in space: StorageSpace) {
        guard !keys.isEmpty else { return }
        self.keys.append((space, keys))
    }

    /// Adds the entries of each of `ranges` in `space`, each walked whole by
    /// a later ``RequestingStorageTransaction/forEach(in:range:direction:readAhead:_:)``
    /// of exactly that range.
    public mutating func read(ranges: [KeyRange], in space: StorageSpace) {
        guard !ranges.isEmpty else { return }
        self.ranges.append((space, ranges))
    }
}

/// What a write that only rewrites stored records changes
/// (``RequestingStorageTransaction/beginRewriting(_:)``).
public struct RewritePlan: Sendable {
    /// Every record the write changes, by space, in the order to lock them.
    public var keys: [(space: StorageSpace, keys: [[UInt8]])]
    /// Values the caller read earlier and expects still stored: the records
    /// it rewrites as its context read them, and keys only writes that hold
    /// the whole store change (the store's generation). Empty when the
    /// caller didn't read them all.
    public var expected: [ExpectedValue]

    public init(keys: [(space: StorageSpace, keys: [[UInt8]])], expected: [ExpectedValue]) {
        self.keys = keys
        self.expected = expected
    }
}
