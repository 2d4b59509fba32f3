import CLMDB

/// An LMDB transaction, lent to the closure of ``Environment/read(_:)`` or
/// ``Environment/write(_:)`` and valid only inside it.
///
/// A transaction is `~Copyable` and only ever borrowed, so it cannot escape its
/// closure, and neither can the C pointer inside it. Every database operation
/// takes the transaction explicitly (no call opens one behind your back), and a
/// write transaction can do everything a read one can.
///
/// One transaction sees one snapshot of the whole environment: everything read
/// through it is consistent, whatever other writers commit meanwhile.
public struct Transaction: ~Copyable {
    @usableFromInline let pointer: OpaquePointer
    /// True inside ``Environment/read(_:)``: writes throw `LMDBError.system(EACCES)`.
    public let isReadOnly: Bool
    /// Set when a write hits `MDB_MAP_FULL`, so ``Environment/write(_:)`` grows
    /// the map and retries even if the closure swallowed or wrapped the error.
    private let mapFull: UnsafeMutablePointer<Bool>?

    @usableFromInline
    init(pointer: OpaquePointer, isReadOnly: Bool, mapFull: UnsafeMutablePointer<Bool>?) {
        self.pointer = pointer
        self.isReadOnly = isReadOnly
        self.mapFull = mapFull
    }

    /// The transaction's ID: the number of the snapshot it reads (for a read
    /// transaction) or will commit (for a write transaction).
    public var id: Int { Int(mdb_txn_id(pointer)) }

    /// Throws the error for `code`, remembering a full map for the retry.
    @usableFromInline
    func check(_ code: Int32) throws(LMDBError) {
        guard code != 0 else { return }
        if code == MDB_MAP_FULL { mapFull?.pointee = true }
        throw LMDBError(code: code)
    }
}

/// A handle to a transaction for code that can't take it as a `borrowing`
/// parameter (a value built inside a transaction's closure and used only
/// there, such as a reader that follows references between records).
///
/// It doesn't own the transaction: using it after the closure that lent the
/// transaction returned is a programming error that LMDB can't catch. Keep
/// it inside that closure.
public struct UnsafeTransactionHandle: @unchecked Sendable {
    // @unchecked: a plain pointer, valid while the transaction is; with
    // MDB_NOTLS a read transaction may be used from any thread.
    @usableFromInline let pointer: OpaquePointer
    @usableFromInline let isReadOnly: Bool

    /// Runs `body` with the transaction this handle names.
    @inlinable
    public func withTransaction<Result>(_ body: (borrowing Transaction) throws -> Result) rethrows -> Result {
        try body(Transaction(pointer: pointer, isReadOnly: isReadOnly, mapFull: nil))
    }
}

extension Transaction {
    /// A handle to this transaction, valid only until the closure that lent
    /// it returns; see ``UnsafeTransactionHandle``.
    public var unsafeHandle: UnsafeTransactionHandle {
        UnsafeTransactionHandle(pointer: pointer, isReadOnly: isReadOnly)
    }
}
