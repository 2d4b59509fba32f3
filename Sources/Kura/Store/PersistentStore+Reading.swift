import KuraLMDB

extension PersistentStore {
    /// Runs `body` in a read transaction: one consistent snapshot of the
    /// whole store, which writers never block or change.
    func read<Result>(_ body: (borrowing Transaction) throws -> Result) throws -> Result {
        if let ambient { return try storageErrors(path) { try ambient.withTransaction(body) } }
        return try storageErrors(path) { try environment.read(body) }
    }

    /// A copy of the stored record of `objectID`, checked, or `nil` when the
    /// object is not in the store.
    func record(of objectID: ObjectID, in txn: borrowing Transaction) throws -> [UInt8]? {
        let records = tables(for: objectID.entity).records
        return try StoreLayout.withKey(objectID.number) { key in
            try records.withValue(forKey: key, in: txn) { bytes in
                _ = try validatedRecord(bytes, of: objectID.entity)
                return Array(bytes)
            }
        }
    }

    /// How many objects of `entity` the store holds, from LMDB's own count.
    /// - Complexity: O(1).
    func count(of entity: EntityDescription, in txn: borrowing Transaction) throws -> Int {
        try tables(for: entity).records.count(in: txn)
    }

    /// Calls `body` with each stored record of `entity` in primary-key order
    /// until it returns false. The bytes are checked (their header, and the
    /// values at `values`; all of them when `nil`), and valid only until the
    /// transaction ends.
    func forEachRecord(
        of entity: EntityDescription, values: [Int]? = nil, in txn: borrowing Transaction,
        _ body: (UInt64, RecordView) throws -> Bool
    ) throws {
        try tables(for: entity).records.forEach(in: txn) { entry in
            guard entry.key.count == 8 else {
                throw KuraError.corruptStore(path: path, reason: "a record key of \(entity.name) is \(entry.key.count) bytes, not 8")
            }
            return try body(StoreLayout.primaryKey(fromSuffixOf: entry.key), try validatedRecord(entry.value, of: entity, values: values))
        }
    }

    /// The primary key of the entry of a unique index whose values are
    /// `values` (the whole key), or `nil`.
    func uniqueEntry(_ values: [UInt8], in index: IndexTable, _ txn: borrowing Transaction) throws -> UInt64? {
        try index.database.withValue(forKey: values, in: txn) { value in
            guard value.count == 8 else {
                throw KuraError.corruptStore(path: path, reason: "an entry of index \(index.description.name) has a \(value.count)-byte value")
            }
            return StoreLayout.primaryKey(fromSuffixOf: value)
        }
    }
}
