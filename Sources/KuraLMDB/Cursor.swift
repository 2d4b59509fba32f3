import CLMDB

/// A key and its value, borrowed from the memory map.
///
/// The bytes are valid until the cursor that produced them moves, or until the
/// transaction ends, whichever comes first. Copy what you need to keep.
public struct Entry {
    /// The key's bytes.
    public let key: UnsafeRawBufferPointer
    /// The value's bytes.
    public let value: UnsafeRawBufferPointer

    /// An entry of bytes that live elsewhere (another store's, for instance),
    /// valid as long as they are.
    public init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        self.key = key
        self.value = value
    }

    @inlinable
    init(_ key: MDB_val, _ value: MDB_val) {
        self.key = UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size)
        self.value = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
    }
}

/// A position in a database that moves in key order, lent to the closure of
/// ``Database/withCursor(in:_:)``.
///
/// Each move returns the ``Entry`` it lands on, or `nil` when there is none
/// (past either end, or an empty database).
///
/// ```swift
/// try environment.read { txn in
///     try names.withCursor(in: txn) { cursor in
///         var entry = try cursor.seek(to: [0x10])   // first key >= 0x10
///         while let current = entry {
///             print(Array(current.key))
///             entry = try cursor.next()
///         }
///     }
/// }
/// ```
public struct Cursor: ~Copyable {
    @usableFromInline let pointer: OpaquePointer
    /// The transaction's flag for a full map: a write through the cursor
    /// that hits `MDB_MAP_FULL` sets it, as a write through the transaction
    /// does, so ``Environment/write(_:)`` grows the map and retries.
    @usableFromInline let mapFull: UnsafeMutablePointer<Bool>?

    @usableFromInline
    init(pointer: OpaquePointer, mapFull: UnsafeMutablePointer<Bool>?) {
        self.pointer = pointer
        self.mapFull = mapFull
    }

    /// Throws the error of a write, remembering a full map.
    @usableFromInline
    func checkWrite(_ code: Int32) throws(LMDBError) {
        guard code != 0 else { return }
        if code == MDB_MAP_FULL { mapFull?.pointee = true }
        throw LMDBError(code: code)
    }

    @inlinable
    func move(_ operation: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws -> Entry? {
        var keyValue = MDB_val(
            mv_size: key?.count ?? 0,
            mv_data: key.flatMap { UnsafeMutableRawPointer(mutating: $0.baseAddress) })
        var data = MDB_val()
        let code = mdb_cursor_get(pointer, &keyValue, &data, operation)
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code)
        return Entry(keyValue, data)
    }

    /// Moves to the first entry.
    @inlinable public func first() throws -> Entry? { try move(MDB_FIRST) }
    /// Moves to the last entry.
    @inlinable public func last() throws -> Entry? { try move(MDB_LAST) }
    /// Moves to the next entry.
    @inlinable public func next() throws -> Entry? { try move(MDB_NEXT) }
    /// Moves to the previous entry.
    @inlinable public func previous() throws -> Entry? { try move(MDB_PREV) }
    /// The entry the cursor is on.
    @inlinable public func current() throws -> Entry? { try move(MDB_GET_CURRENT) }

    /// Moves to the first entry whose key is greater than or equal to `key`.
    @inlinable
    public func seek(to key: UnsafeRawBufferPointer) throws -> Entry? {
        try move(MDB_SET_RANGE, key: key)
    }

    /// Moves to the first entry whose key is greater than or equal to `key`.
    public func seek(to key: [UInt8]) throws -> Entry? {
        try key.withUnsafeBytes { try seek(to: $0) }
    }

    /// Moves to the entry whose key is exactly `key`, or returns `nil`.
    public func seek(exactly key: [UInt8]) throws -> Entry? {
        try key.withUnsafeBytes { try move(MDB_SET_KEY, key: $0) }
    }

    /// Deletes the entry the cursor is on (write transactions only). The
    /// cursor then stands on the entry after it.
    public func deleteCurrent() throws {
        try checkWrite(mdb_cursor_del(pointer, 0))
    }

    /// Replaces the value of the entry the cursor is on, whose key is `key`,
    /// without searching for it again (write transactions only; the size may
    /// change).
    ///
    /// `key` must be the caller's own bytes, equal to the entry's key: not
    /// the ``Entry/key`` the cursor lent, which lives in the page the
    /// replacement rewrites.
    public func replaceCurrent(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var data = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try checkWrite(mdb_cursor_put(pointer, &keyValue, &data, UInt32(MDB_CURRENT)))
    }
}

extension Database {
    /// Calls `body` with a cursor over this database; the cursor is closed when
    /// `body` returns.
    @inlinable
    public func withCursor<Result>(
        in txn: borrowing Transaction,
        _ body: (borrowing Cursor) throws -> Result
    ) throws -> Result {
        var cursor: OpaquePointer?
        try txn.check(mdb_cursor_open(txn.pointer, handle, &cursor))
        guard let cursor else { throw LMDBError.badTransaction }
        defer { mdb_cursor_close(cursor) }
        return try body(Cursor(pointer: cursor, mapFull: txn.mapFull))
    }
}

/// A handle to a cursor for code that can't take it as a `borrowing`
/// parameter. Like ``UnsafeTransactionHandle``, it doesn't own the cursor:
/// use it only inside the closure that lent the cursor.
public struct UnsafeCursorHandle {
    @usableFromInline let pointer: OpaquePointer
    @usableFromInline let mapFull: UnsafeMutablePointer<Bool>?

    @usableFromInline
    init(pointer: OpaquePointer, mapFull: UnsafeMutablePointer<Bool>?) {
        self.pointer = pointer
        self.mapFull = mapFull
    }

    /// Runs `body` with the cursor this handle names.
    @inlinable
    public func withCursor<Result>(_ body: (borrowing Cursor) throws -> Result) rethrows -> Result {
        try body(Cursor(pointer: pointer, mapFull: mapFull))
    }
}

extension Cursor {
    /// A handle to this cursor, valid only until the closure that lent it
    /// returns; see ``UnsafeCursorHandle``.
    @inlinable
    public var unsafeHandle: UnsafeCursorHandle { UnsafeCursorHandle(pointer: pointer, mapFull: mapFull) }
}
