/// A cursor for an engine without cursors of its own: a seek is a lookup,
/// and a change of the current entry is a put or a delete of its key in
/// the transaction. The entry it lends is a copy it owns, valid until it
/// moves or goes.
public final class KeyedCursor: StorageCursor {
    private let transaction: any StorageTransaction
    private let space: StorageSpace
    private var current: StorageEntryCopy?

    public init(transaction: any StorageTransaction, space: StorageSpace) {
        self.transaction = transaction
        self.space = space
    }

    public func seek(exactly key: [UInt8]) throws -> StorageEntry? {
        current = nil
        _ = try key.withUnsafeBytes { key in
            try transaction.visitValue(forKey: key, in: space) { current = StorageEntryCopy(key: key, value: $0) }
        }
        return current?.entry
    }

    public func deleteCurrent() throws {
        guard let current else { throw StorageEngineError.noCurrentEntry }
        try transaction.delete(current.entry.key, in: space)
        self.current = nil
    }

    public func replaceCurrent(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws {
        guard current != nil else { throw StorageEngineError.noCurrentEntry }
        try transaction.put(value, forKey: key, in: space, flags: [])
    }
}
