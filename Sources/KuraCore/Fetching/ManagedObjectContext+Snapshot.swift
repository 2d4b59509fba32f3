// One snapshot for several reads: a fetch across sub-entities, and
// prefetching, read every part in the same read transaction.

extension ManagedObjectContext {
    /// Runs `body` with every store read of this context's fetches in one
    /// read transaction (one snapshot), unless one is open already.
    func withOneSnapshot<Result>(_ body: () throws -> Result) throws -> Result {
        if snapshot != nil || parent != nil { return try body() }
        return try store.read { txn in
            snapshot = txn
            defer { snapshot = nil }
            return try body()
        }
    }

    /// ``PersistentStore/read(_:)`` in the snapshot a fetch across
    /// sub-entities holds open, if any.
    func readSnapshot<Result>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        if let snapshot { return try body(snapshot) }
        return try store.read(body)
    }

    /// ``PersistentStore/readOneRequest(_:)`` in the snapshot a fetch
    /// across sub-entities holds open, if any.
    func readSnapshotInOneRequest<Result>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        if let snapshot { return try body(snapshot) }
        return try store.readOneRequest(body)
    }
}
