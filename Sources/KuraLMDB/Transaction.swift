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
    @usableFromInline let mapFull: UnsafeMutablePointer<Bool>?

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
    public let isReadOnly: Bool
    @usableFromInline let mapFull: UnsafeMutablePointer<Bool>?

    /// Runs `body` with the transaction this handle names.
    @inlinable
    public func withTransaction<Result>(_ body: (borrowing Transaction) throws -> Result) rethrows -> Result {
        try body(Transaction(pointer: pointer, isReadOnly: isReadOnly, mapFull: mapFull))
    }

    /// Runs `body` in a transaction nested in this write transaction: its
    /// changes become part of this one when `body` returns, and are undone
    /// alone when it throws (LMDB's nested transactions). While it runs, use
    /// only the nested transaction.
    ///
    /// - Throws: what `body` throws, or an ``LMDBError`` (`EACCES` for a
    ///   read-only handle).
    public func withNestedTransaction<Result>(_ body: (borrowing Transaction) throws -> Result) throws -> Result {
        guard !isReadOnly else { throw LMDBError(code: 13) }  // EACCES, as LMDB answers a write in a read transaction
        var child: OpaquePointer?
        try LMDBError.check(mdb_txn_begin(mdb_txn_env(pointer), pointer, 0, &child))
        guard let child else { throw LMDBError.badTransaction }
        let result: Swift.Result<Result, Error> = Swift.Result {
            try body(Transaction(pointer: child, isReadOnly: false, mapFull: mapFull))
        }
        switch result {
        case .failure(let error):
            mdb_txn_abort(child)
            throw error
        case .success(let value):
            let code = mdb_txn_commit(child)
            if code == MDB_MAP_FULL { mapFull?.pointee = true }
            try LMDBError.check(code)
            return value
        }
    }
}

extension Transaction {
    /// A handle to this transaction, valid only until the closure that lent
    /// it returns; see ``UnsafeTransactionHandle``.
    public var unsafeHandle: UnsafeTransactionHandle {
        UnsafeTransactionHandle(pointer: pointer, isReadOnly: isReadOnly, mapFull: mapFull)
    }
}
