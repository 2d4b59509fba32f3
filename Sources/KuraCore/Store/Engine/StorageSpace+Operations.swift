/// The operations of a ``StorageTransaction`` spelled on the space they act
/// on, the way the store's code reads: `records.put(value, forKey: key, in: txn)`.
extension StorageSpace {
    // These call the requirements themselves: a protocol extension's generic
    // method called on `StoreTransaction` doesn't specialize, and
    // would build `Optional<Result>`'s metadata at run time on every call.

    @inline(__always)
    func withValue<Result>(
        forKey key: UnsafeRawBufferPointer, in txn: StoreTransaction, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        var result: Result?
        _ = try txn.visitValue(forKey: key, in: self) { result = try body($0) }
        return result
    }

    @inline(__always)
    func withValue<Result>(
        forKey key: [UInt8], in txn: StoreTransaction, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        try key.withUnsafeBytes { try withValue(forKey: $0, in: txn, body) }
    }

    /// A copy of the value of `key`, or `nil`.
    func value(forKey key: [UInt8], in txn: StoreTransaction) throws -> [UInt8]? {
        try withValue(forKey: key, in: txn) { Array($0) }
    }

    /// True when `key` is there.
    func contains(_ key: [UInt8], in txn: StoreTransaction) throws -> Bool {
        try withValue(forKey: key, in: txn) { _ in true } ?? false
    }

    func count(in txn: StoreTransaction) throws -> Int {
        try txn.count(in: self)
    }

    @inline(__always)
    func forEach(
        in txn: StoreTransaction, range: KeyRange = .all, direction: IterationDirection = .forward,
        readAhead: Int? = nil, _ body: (StorageEntry) throws -> Bool
    ) throws {
        try txn.forEach(in: self, range: range, direction: direction, readAhead: readAhead, body)
    }

    @inline(__always)
    func withCursor<Result>(in txn: StoreTransaction, _ body: (any StorageCursor) throws -> Result) throws -> Result {
        var result: Result?
        try txn.visitCursor(in: self) { result = try body($0) }
        return result!
    }

    @inline(__always)
    func put(
        _ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in txn: StoreTransaction,
        flags: PutFlags = []
    ) throws {
        try txn.put(value, forKey: key, in: self, flags: flags)
    }

    func put(_ value: [UInt8], forKey key: [UInt8], in txn: StoreTransaction, flags: PutFlags = []) throws {
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in try txn.put(value, forKey: key, in: self, flags: flags) }
        }
    }

    func delete(_ key: [UInt8], in txn: StoreTransaction) throws {
        try key.withUnsafeBytes { try txn.delete($0, in: self) }
    }

    @inline(__always)
    func delete(_ key: UnsafeRawBufferPointer, in txn: StoreTransaction) throws {
        try txn.delete(key, in: self)
    }

    func removeAll(in txn: StoreTransaction) throws {
        try txn.removeAll(in: self)
    }

    func drop(in txn: StoreTransaction) throws {
        try txn.drop(self)
    }

    /// Adds the relationship entry of `first` and `second` (a key without a value).
    func putPair(_ first: UInt64, _ second: UInt64, in txn: StoreTransaction) throws {
        try StoreLayout.withPairKey(first, second) { key in
            try txn.put(UnsafeRawBufferPointer(start: nil, count: 0), forKey: key, in: self, flags: [])
        }
    }

    /// Removes the relationship entry of `first` and `second`, if there.
    func deletePair(_ first: UInt64, _ second: UInt64, in txn: StoreTransaction) throws {
        try StoreLayout.withPairKey(first, second) { key in try txn.delete(key, in: self) }
    }
}
