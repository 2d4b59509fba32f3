import CLMDB

/// A database inside an environment: a sorted map from byte keys to byte values.
///
/// A `Database` is a small value (LMDB's `MDB_dbi`): copy it freely, share it
/// between threads, and pass a transaction to every operation. Keys sort by
/// `memcmp`, shorter first on a tie, and are 1 to 511 bytes long.
///
/// ```swift
/// let people = try environment.createDatabase(named: "people")
/// try environment.write { txn in
///     try people.put(Array("Ada".utf8), forKey: [1], in: txn)
/// }
/// try environment.read { txn in
///     let length = try people.withValue(forKey: [1], in: txn) { bytes in bytes.count }   // 3, no copy
///     let copy = try people.value(forKey: [1], in: txn)                                  // [65, 100, 97]
/// }
/// ```
public struct Database: Hashable, Sendable {
    /// LMDB's handle for the database.
    public let handle: UInt32

    /// The database LMDB knows by `handle`, as a transaction of this
    /// process opened it.
    public init(handle: MDB_dbi) {
        self.handle = handle
    }
}

/// How ``Database/put(_:forKey:in:flags:)-([UInt8],_,_,_)`` treats an existing key.
public struct PutFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Fail with ``LMDBError/keyExists`` if the key is already there (`MDB_NOOVERWRITE`).
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
    /// The key sorts after every key in the database: append without searching
    /// (`MDB_APPEND`). Fails with ``LMDBError/keyExists`` if it doesn't.
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
}

// MARK: Opening

extension Environment {
    /// Opens the named database, or returns `nil` when it doesn't exist.
    ///
    /// - Parameter name: The database's name, or `nil` for the unnamed main database.
    public func database(named name: String?) throws -> Database? {
        while true {
            let outcome: Result<Database?, LMDBError> = try {
                mapLock.lockShared()
                defer { mapLock.unlockShared() }
                try checkOpen()
                // Handles opened in a read transaction survive only if it commits.
                var transaction: OpaquePointer?
                let begun = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &transaction)
                guard begun == 0, let transaction else { return .failure(LMDBError(code: begun)) }
                var dbi = MDB_dbi()
                let code = mdb_dbi_open(transaction, name, 0, &dbi)
                guard code == 0 else {
                    mdb_txn_abort(transaction)
                    return code == MDB_NOTFOUND ? .success(nil) : .failure(LMDBError(code: code))
                }
                try LMDBError.check(mdb_txn_commit(transaction))
                return .success(Database(handle: dbi))
            }()
            switch outcome {
            case .success(let database):
                return database
            case .failure(.mapResized) where mapLock.depth == 0:
                // Another process grew the map; adopt its size and try again.
                try adoptMapSize()
            case .failure(let error):
                throw error
            }
        }
    }

    /// Opens the named database, creating it if needed, in its own write transaction.
    public func createDatabase(named name: String?) throws -> Database {
        try write { txn in try txn.createDatabase(named: name) }
    }
}

extension Transaction {
    /// Opens the named database, creating it if needed, as part of this write
    /// transaction. If the transaction aborts, the database and the handle go too.
    public func createDatabase(named name: String?) throws -> Database {
        var dbi = MDB_dbi()
        try check(mdb_dbi_open(pointer, name, UInt32(MDB_CREATE), &dbi))
        return Database(handle: dbi)
    }

    /// Opens the named database as part of this transaction, or returns `nil`
    /// when it doesn't exist. The handle outlives the transaction only if it commits.
    public func openDatabase(named name: String?) throws -> Database? {
        var dbi = MDB_dbi()
        let code = mdb_dbi_open(pointer, name, 0, &dbi)
        if code == MDB_NOTFOUND { return nil }
        try check(code)
        return Database(handle: dbi)
    }
}

// MARK: Reading

extension Database {
    /// Calls `body` with the value stored for `key`, borrowed from the memory
    /// map without copying; returns `nil` when the key is absent.
    ///
    /// The bytes are valid only inside `body`.
    @inlinable
    public func withValue<Result>(
        forKey key: UnsafeRawBufferPointer,
        in txn: borrowing Transaction,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var data = MDB_val()
        let code = mdb_get(txn.pointer, handle, &keyValue, &data)
        if code == MDB_NOTFOUND { return nil }
        try txn.check(code)
        return try body(UnsafeRawBufferPointer(start: data.mv_data, count: data.mv_size))
    }

    /// Calls `body` with the value stored for `key`, borrowed without copying;
    /// returns `nil` when the key is absent.
    @inlinable
    public func withValue<Result>(
        forKey key: [UInt8],
        in txn: borrowing Transaction,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        try key.withUnsafeBytes { try withValue(forKey: $0, in: txn, body) }
    }

    /// A copy of the value stored for `key`, or `nil` when the key is absent.
    public func value(forKey key: [UInt8], in txn: borrowing Transaction) throws -> [UInt8]? {
        try withValue(forKey: key, in: txn) { Array($0) }
    }

    /// True when `key` is in the database.
    public func contains(_ key: [UInt8], in txn: borrowing Transaction) throws -> Bool {
        try withValue(forKey: key, in: txn) { _ in true } ?? false
    }

    /// The number of entries, from LMDB's own count.
    /// - Complexity: O(1).
    public func count(in txn: borrowing Transaction) throws -> Int {
        try statistics(in: txn).entries
    }
}

// MARK: Writing

extension Database {
    /// Stores `value` for `key`, replacing any value already there unless
    /// `flags` says otherwise.
    ///
    /// - Throws: ``LMDBError/keyExists`` with ``PutFlags/noOverwrite`` or a
    ///   misplaced ``PutFlags/append``; ``LMDBError/badValueSize`` for an empty or
    ///   too-long key; `LMDBError.system(EACCES)` in a read transaction.
    @inlinable
    public func put(
        _ value: UnsafeRawBufferPointer,
        forKey key: UnsafeRawBufferPointer,
        in txn: borrowing Transaction,
        flags: PutFlags = []
    ) throws {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var data = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try txn.check(mdb_put(txn.pointer, handle, &keyValue, &data, flags.rawValue))
    }

    /// Stores `value` for `key`; see ``put(_:forKey:in:flags:)-(UnsafeRawBufferPointer,_,_,_)``.
    public func put(
        _ value: [UInt8],
        forKey key: [UInt8],
        in txn: borrowing Transaction,
        flags: PutFlags = []
    ) throws {
        try key.withUnsafeBytes { key in
            try value.withUnsafeBytes { value in
                try put(value, forKey: key, in: txn, flags: flags)
            }
        }
    }

    /// Removes `key` and its value. Returns false when the key was absent.
    @inlinable
    @discardableResult
    public func delete(_ key: UnsafeRawBufferPointer, in txn: borrowing Transaction) throws -> Bool {
        var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let code = mdb_del(txn.pointer, handle, &keyValue, nil)
        if code == MDB_NOTFOUND { return false }
        try txn.check(code)
        return true
    }

    /// Removes `key` and its value. Returns false when the key was absent.
    @discardableResult
    public func delete(_ key: [UInt8], in txn: borrowing Transaction) throws -> Bool {
        try key.withUnsafeBytes { try delete($0, in: txn) }
    }

    /// Removes every entry, keeping the database.
    public func removeAll(in txn: borrowing Transaction) throws {
        try txn.check(mdb_drop(txn.pointer, handle, 0))
    }

    /// Deletes the database itself. Its handle must not be used afterwards.
    public func drop(in txn: borrowing Transaction) throws {
        try txn.check(mdb_drop(txn.pointer, handle, 1))
    }
}
