/// The refinement of ``StorageTransaction`` for an engine whose every read
/// is a request to a server (KuraPostgres's): hints that let it answer in
/// fewer round trips. An engine whose reads cost no round trip (LMDB's map,
/// memory) adopts only ``StorageTransaction``; the store then does the same
/// work from the key-value requirements.
///
/// The store's transaction (`StoreTransaction`) is the only caller: it looks
/// for this refinement once per transaction, and the rest of the store
/// (fetching, predicates, saving) hands it plans without asking what kind of
/// engine it is on.
public protocol RequestingStorageTransaction: StorageTransaction {
    /// How many keys `space` holds, for choosing a plan: may be answered
    /// from counts seen a moment ago. Never used where the number must be exact.
    func estimatedCount(in space: StorageSpace) throws -> Int

    /// ``StorageTransaction/forEach(in:range:direction:_:)`` with how many
    /// entries the caller expects to read: `nil` when it can't tell,
    /// `Int.max` when it reads the whole range. Never a limit (the walk goes
    /// on while `body` returns true); an engine that reads in pages sizes
    /// its first page by it, so a walk is one request when the guess is right.
    func forEach(
        in space: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?,
        _ body: (StorageEntry) throws -> Bool
    ) throws

    /// Calls `body` with each entry of `index` in `range`, in key order or
    /// reversed, and the value `records` holds under the key the entry's
    /// value names (`nil` when absent), until it returns false: an index
    /// walk that reads each entry's record, in one request. `readAhead` as
    /// in ``forEach(in:range:direction:readAhead:_:)``.
    func forEachJoined(
        in index: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?, records: StorageSpace,
        _ body: (StorageEntry, UnsafeRawBufferPointer?) throws -> Bool
    ) throws

    /// Calls `body` with the value of `key` in `index` and the value
    /// `records` holds under the key that value names (`nil` when absent),
    /// and returns true; false when `index` has no `key`. A unique lookup
    /// and its record, in one request.
    func visitJoined(
        forKey key: UnsafeRawBufferPointer, in index: StorageSpace, records: StorageSpace,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Void
    ) throws -> Bool

    /// Calls `body` with the entries of the records space `space` that a
    /// top-K by `ranking` needs (see ``RecordRanking``: at least the first
    /// `ranking.count` by rank, with ties, and every record without a rank),
    /// in key order, and returns true; or calls nothing and returns false
    /// when it doesn't narrow this one (then the store scans), so that a
    /// top-100 by an unindexed attribute doesn't send every record.
    func forEachRanked(in space: StorageSpace, by ranking: RecordRanking, _ body: (StorageEntry) throws -> Bool) throws -> Bool

    /// Reads `plan` ahead, in one request: later reads of its keys, and
    /// walks of exactly its ranges, in this transaction are answered from
    /// memory. The request may go out with the transaction's next one
    /// (several read aheads in a row cost one round trip). It may leave out
    /// what it can't read ahead; that is read when asked for.
    func readAhead(_ plan: ReadPlan) throws

    /// Called first in a write transaction that changes stored records in
    /// place and nothing else, with what it rewrites (``RewritePlan``): an
    /// engine whose writers are in several processes may let such writes
    /// run beside one another, each holding only its records (a save's
    /// row-version check then still sees every earlier commit of them);
    /// every other write takes the whole store.
    ///
    /// The plan's expected values are what the caller read earlier and
    /// expects still stored: the engine may answer reads of these keys from
    /// them, send nothing until the commit, and then check them and write in
    /// one request; when one is no longer what is stored (or the body reads
    /// a key it wasn't given), it runs the body again in a transaction that
    /// reads.
    func beginRewriting(_ rewrite: () throws -> RewritePlan) throws

    /// Says that about `count` more ``StorageTransaction/put(_:forKey:in:flags:)``
    /// calls follow (a save of many new objects says so first), so changes
    /// buffered to send together can have room made for them at once.
    func reserveCapacity(forPuts count: Int)
}
