/// A transaction as the store uses it: the engine's key-value
/// ``StorageTransaction``, and its ``RequestingStorageTransaction``
/// refinement when the engine adopts it, looked for once, when the store
/// begins the transaction.
///
/// This is the refinement's only caller. Fetching, predicates and saving
/// say what they will read (a ``ReadPlan``), walk with the number of
/// entries they expect, ask for joined and ranked reads; here each becomes
/// the engine's request, or the same work done with key-value reads (or
/// nothing, for a hint), so no code above asks what kind of engine it is on.
struct StoreTransaction {
    /// The engine's transaction.
    let base: any StorageTransaction
    /// The same transaction, when its engine's reads are requests.
    private let requests: (any RequestingStorageTransaction)?

    /// The store's transaction for `base`, looking for the refinement (a
    /// conformance lookup: about 1,600 instructions, a tenth of a unique
    /// lookup's on LMDB; the store looks once, at open, and then says).
    @inline(__always)
    init(_ base: any StorageTransaction) {
        self.base = base
        requests = base as? any RequestingStorageTransaction
    }

    /// The store's transaction for `base`, whose engine's transactions
    /// adopt the refinement when `isRequesting` (as the store found at open).
    @inline(__always)
    init(_ base: any StorageTransaction, isRequesting: Bool) {
        self.base = base
        requests = isRequesting ? base as? any RequestingStorageTransaction : nil
    }

    /// Whether the engine's transactions adopt the refinement.
    var isRequesting: Bool { requests != nil }

    // MARK: Key-value

    var isReadOnly: Bool { base.isReadOnly }
    var id: Int { base.id }

    func openSpace(named name: String) throws -> StorageSpace? { try base.openSpace(named: name) }
    func createSpace(named name: String) throws -> StorageSpace { try base.createSpace(named: name) }

    @inline(__always)
    func visitValue(forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        try base.visitValue(forKey: key, in: space, body)
    }

    func count(in space: StorageSpace) throws -> Int { try base.count(in: space) }
    func isEmpty() throws -> Bool { try base.isEmpty() }

    func visitCursor(in space: StorageSpace, _ body: (any StorageCursor) throws -> Void) throws {
        try base.visitCursor(in: space, body)
    }

    @inline(__always)
    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: StorageSpace, flags: PutFlags) throws {
        try base.put(value, forKey: key, in: space, flags: flags)
    }

    func delete(_ key: UnsafeRawBufferPointer, in space: StorageSpace) throws { try base.delete(key, in: space) }
    func removeAll(in space: StorageSpace) throws { try base.removeAll(in: space) }
    func drop(_ space: StorageSpace) throws { try base.drop(space) }

    /// Runs `body` in a nested transaction (``StorageTransaction/performNested(_:)``).
    func performNested(_ body: (StoreTransaction) throws -> Void) throws {
        try base.performNested { [isRequesting] in try body(StoreTransaction($0, isRequesting: isRequesting)) }
    }

    /// ``performNested(_:)``, returning what `body` returns.
    func withNestedTransaction<Result>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        var result: Result?
        try performNested { result = try body($0) }
        return result!
    }

    /// Calls `body` with the value of `key`, or returns `nil` when the key is absent.
    @inline(__always)
    func withValue<Result>(forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result? {
        var result: Result?
        _ = try base.visitValue(forKey: key, in: space) { result = try body($0) }
        return result
    }

    /// Calls `body` with a cursor on `space` and returns what it returns.
    @inline(__always)
    func withCursor<Result>(in space: StorageSpace, _ body: (any StorageCursor) throws -> Result) throws -> Result {
        var result: Result?
        try base.visitCursor(in: space) { result = try body($0) }
        return result!
    }

    // MARK: Requests, or the same work from key-value reads

    /// How many keys `space` holds, for a plan: a recent count where reads
    /// are requests, else the count.
    func estimatedCount(in space: StorageSpace) throws -> Int {
        try requests?.estimatedCount(in: space) ?? base.count(in: space)
    }

    /// Whether counting an index range to choose a plan costs less than
    /// reading it: not where each read is a round trip (the planner then
    /// guesses a range's size).
    var countsRangesCheaply: Bool { requests == nil }

    /// Whether reading ahead in batches pays (a predicate that follows
    /// relationships then reads what it reaches for many records at once;
    /// elsewhere a batch would only delay the first result).
    var readsAheadInBatches: Bool { requests != nil }

    /// Walks `range` of `space`, expecting about `readAhead` entries.
    @inline(__always)
    func forEach(
        in space: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?, _ body: (StorageEntry) throws -> Bool
    ) throws {
        if let requests {
            try requests.forEach(in: space, range: range, direction: direction, readAhead: readAhead, body)
        } else {
            try base.forEach(in: space, range: range, direction: direction, body)
        }
    }

    /// An index walk with each entry's record: one request where reads are
    /// requests, else a record read per entry.
    func forEachJoined(
        in index: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?, records: StorageSpace,
        _ body: (StorageEntry, UnsafeRawBufferPointer?) throws -> Bool
    ) throws {
        if let requests {
            return try requests.forEachJoined(in: index, range: range, direction: direction, readAhead: readAhead, records: records, body)
        }
        try base.forEach(in: index, range: range, direction: direction) { entry in
            var go = true
            let found = try base.visitValue(forKey: entry.value, in: records) { go = try body(entry, $0) }
            if !found { go = try body(entry, nil) }
            return go
        }
    }

    /// A unique lookup and its record: one request where reads are
    /// requests, else two reads.
    @inline(__always)
    func visitJoined(
        forKey key: UnsafeRawBufferPointer, in index: StorageSpace, records: StorageSpace,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Void
    ) throws -> Bool {
        if let requests { return try requests.visitJoined(forKey: key, in: index, records: records, body) }
        return try base.visitValue(forKey: key, in: index) { value in
            let found = try base.visitValue(forKey: value, in: records) { try body(value, $0) }
            if !found { try body(value, nil) }
        }
    }

    /// The records a top-K by `ranking` needs, narrowed where reads are
    /// requests (`true`); `false`, calling nothing, where the store scans.
    func forEachRanked(in space: StorageSpace, by ranking: RecordRanking, _ body: (StorageEntry) throws -> Bool) throws -> Bool {
        try requests?.forEachRanked(in: space, by: ranking, body) ?? false
    }

    /// Reads ahead what `build` plans, where reads are requests; elsewhere
    /// `build` is not called, so a plan costs nothing.
    ///
    /// This is the one way the store and the predicate code tell an engine
    /// what they will read: they say it here and then read as on any engine.
    @inline(__always)
    func readAhead(building build: (inout ReadPlan) throws -> Void) throws {
        guard let requests else { return }
        var plan = ReadPlan()
        try build(&plan)
        if !plan.isEmpty { try requests.readAhead(plan) }
    }

    /// Declares a write that only rewrites stored records
    /// (``RequestingStorageTransaction/beginRewriting(_:)``); an engine with
    /// one writer at a time has nothing to declare, and `rewrite` isn't called.
    func beginRewriting(_ rewrite: () throws -> RewritePlan) throws {
        try requests?.beginRewriting(rewrite)
    }

    /// Says that about `count` more puts follow.
    @inline(__always)
    func reserveCapacity(forPuts count: Int) {
        requests?.reserveCapacity(forPuts: count)
    }
}

extension StorageEngine {
    /// ``StorageEngine/read(_:)`` with the store's transaction.
    @inline(__always)
    func storeRead<Result>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        try read { try body(StoreTransaction($0)) }
    }

    /// ``StorageEngine/write(_:)`` with the store's transaction.
    @inline(__always)
    func storeWrite<Result>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        try write { try body(StoreTransaction($0)) }
    }

    /// ``StorageEngine/readChecked(spaces:_:)`` with the store's transaction.
    func storeReadChecked<Result>(spaces: Set<String>, _ body: (StoreTransaction) throws -> Result) throws -> Result {
        try readChecked(spaces: spaces) { try body(StoreTransaction($0)) }
    }
}
