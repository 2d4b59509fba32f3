import KuraLMDB
import KuraCore

/// An LMDB transaction as the storage seam lends it: a handle, valid only
/// inside the closure of ``LMDBEngine/read(_:)`` or ``LMDBEngine/write(_:)``.
/// Three words, so lending it as `any StorageTransaction` allocates nothing.
struct LMDBTransaction: StorageTransaction {
    let handle: UnsafeTransactionHandle

    init(_ handle: UnsafeTransactionHandle) {
        self.handle = handle
    }

    var isReadOnly: Bool { handle.isReadOnly }

    var id: Int { handle.withTransaction { $0.id } }

    func openSpace(named name: String) throws -> StorageSpace? {
        try handle.withTransaction { try $0.openDatabase(named: name) }.map { StorageSpace(number: $0.handle) }
    }

    func createSpace(named name: String) throws -> StorageSpace {
        StorageSpace(number: try handle.withTransaction { try $0.createDatabase(named: name) }.handle)
    }

    @inline(__always)
    func visitValue(
        forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        try handle.withTransaction { try Database(handle: space.number).withValue(forKey: key, in: $0, body) } != nil
    }

    func count(in space: StorageSpace) throws -> Int {
        try handle.withTransaction { try Database(handle: space.number).count(in: $0) }
    }

    func isEmpty() throws -> Bool {
        try handle.withTransaction { txn in try txn.openDatabase(named: nil).map { try $0.count(in: txn) } ?? 0 } == 0
    }

    func forEach(
        in space: StorageSpace, range: KeyRange, direction: IterationDirection,
        _ body: (StorageEntry) throws -> Bool
    ) throws {
        try handle.withTransaction {
            try Database(handle: space.number).forEach(in: $0, range: range, direction: direction) { try body(StorageEntry($0)) }
        }
    }

    func visitCursor(in space: StorageSpace, _ body: (any StorageCursor) throws -> Void) throws {
        try handle.withTransaction { txn in
            try Database(handle: space.number).withCursor(in: txn) { cursor in try body(LMDBCursor(cursor.unsafeHandle)) }
        }
    }

    @inline(__always)
    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: StorageSpace, flags: KuraCore.PutFlags) throws {
        do {
            try handle.withTransaction { try Database(handle: space.number).put(value, forKey: key, in: $0, flags: flags.lmdb) }
        } catch LMDBError.keyExists {
            throw StorageEngineError.keyExists
        } catch LMDBError.badValueSize {
            throw StorageEngineError.keyTooLong
        }
    }

    @inline(__always)
    func delete(_ key: UnsafeRawBufferPointer, in space: StorageSpace) throws {
        _ = try handle.withTransaction { try Database(handle: space.number).delete(key, in: $0) }
    }

    func removeAll(in space: StorageSpace) throws {
        try handle.withTransaction { try Database(handle: space.number).removeAll(in: $0) }
    }

    func drop(_ space: StorageSpace) throws {
        try handle.withTransaction { try Database(handle: space.number).drop(in: $0) }
    }

    func performNested(_ body: (any StorageTransaction) throws -> Void) throws {
        try handle.withNestedTransaction { txn in try body(LMDBTransaction(txn.unsafeHandle)) }
    }
}

/// An LMDB cursor as the storage seam lends it, valid only inside the
/// closure of ``LMDBTransaction/visitCursor(in:_:)``.
struct LMDBCursor: StorageCursor {
    let handle: UnsafeCursorHandle

    init(_ handle: UnsafeCursorHandle) {
        self.handle = handle
    }

    func seek(exactly key: [UInt8]) throws -> StorageEntry? {
        try handle.withCursor { try $0.seek(exactly: key) }.map(StorageEntry.init)
    }

    func deleteCurrent() throws {
        try handle.withCursor { try $0.deleteCurrent() }
    }

    func replaceCurrent(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws {
        try handle.withCursor { try $0.replaceCurrent(value, key: key) }
    }
}
