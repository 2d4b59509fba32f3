extension PersistentStore {
    /// Runs `body` in a read transaction: one consistent snapshot of the
    /// whole store, which writers never block or change.
    func read<Result>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        if hasAmbient, let ambient { return try body(ambient) }
        // Through the requirement itself, so that this method specializes
        // for `Result` (a protocol extension on `any StorageEngine` would not).
        var result: Result?
        try engine.performRead { result = try body(StoreTransaction($0, isRequesting: transactionsRequest)) }
        return result!
    }

    /// ``read(_:)`` for a body that reads one thing (a unique lookup): see
    /// ``StorageEngine/performSingleRequestRead(_:)``.
    func readOneRequest<Result>(_ body: (StoreTransaction) throws -> Result) throws -> Result {
        if hasAmbient, let ambient { return try body(ambient) }
        var result: Result?
        try engine.performSingleRequestRead { result = try body(StoreTransaction($0, isRequesting: transactionsRequest)) }
        return result!
    }

    /// A copy of the stored record of `objectID`, checked, or `nil` when the
    /// object is not in the store.
    func record(of objectID: ObjectID, in txn: StoreTransaction) throws -> [UInt8]? {
        let records = spaces(for: objectID.entity).records
        return try StoreLayout.withKey(objectID.number) { key in
            try records.withValue(forKey: key, in: txn) { bytes in
                _ = try validatedRecord(bytes, of: objectID.entity)
                return Array(bytes)
            }
        }
    }

    /// How many objects of `entity` the store holds, from the engine's count of its records space.
    /// - Complexity: O(1).
    func count(of entity: EntityDescription, in txn: StoreTransaction) throws -> Int {
        try spaces(for: entity).records.count(in: txn)
    }

    /// Calls `body` with each stored record of `entity` in primary-key order
    /// until it returns false. The bytes are checked (their header, and the
    /// values at `values`; all of them when `nil`), and valid only until the
    /// transaction ends. `readAhead`: how many the caller expects to read
    /// (see ``RequestingStorageTransaction/forEach(in:range:direction:readAhead:_:)``), all by default.
    /// A record for which `skipping` returns true (given its primary key and
    /// its bytes, not checked) is passed over: neither checked nor given to
    /// `body`, so damage in it goes unreported.
    func forEachRecord(
        of entity: EntityDescription, values: [Int]? = nil, readAhead: Int? = .max, in txn: StoreTransaction,
        ranking: RecordRanking? = nil,
        skipping: (UInt64, UnsafeRawBufferPointer) -> Bool = { _, _ in false },
        _ body: (UInt64, RecordView) throws -> Bool
    ) throws {
        let records = spaces(for: entity).records
        func visit(_ entry: StorageEntry) throws -> Bool {
            guard entry.key.count == 8 else {
                throw KuraError.corruptStore(path: path, reason: "a record key of \(entity.name) is \(entry.key.count) bytes, not 8")
            }
            let primaryKey = StoreLayout.primaryKey(fromSuffixOf: entry.key)
            if skipping(primaryKey, entry.value) {
                try CancellationCheck.check(passingOver: primaryKey)
                return true
            }
            return try body(primaryKey, try validatedRecord(entry.value, of: entity, values: values))
        }
        // A top-K the engine can narrow: only the records it needs come.
        if let ranking, try txn.forEachRanked(in: records, by: ranking, visit) { return }
        try records.forEach(in: txn, readAhead: readAhead, visit)
    }

    /// Calls `body` with the primary key and the record that the entry of a
    /// unique index whose values are `values` (the whole key) names, and
    /// returns what it returns; `nil` when there is no such entry. The
    /// entry and the record are read together (one request on an engine
    /// that pays per request).
    /// - Throws: ``KuraError/corruptStore(path:reason:)`` when the entry is
    ///   damaged or names a missing record.
    func withUniqueRecord<Result>(
        _ values: [UInt8], in index: IndexSpace, of spaces: EntitySpaces, _ txn: StoreTransaction,
        _ body: (UInt64, UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        var result: Result?
        _ = try values.withUnsafeBytes { key in
            try txn.visitJoined(forKey: key, in: index.space, records: spaces.records) { value, record in
                guard value.count == 8 else {
                    throw KuraError.corruptStore(path: path, reason: "an entry of index \(index.description.name) has a \(value.count)-byte value")
                }
                let primaryKey = StoreLayout.primaryKey(fromSuffixOf: value)
                // In an index a family shares, the values may be another member's.
                guard spaces.entity.ownsKey(primaryKey) else { return }
                guard let record else {
                    throw KuraError.corruptStore(
                        path: path, reason: "an index of \(spaces.entity.name) names record \(primaryKey), which is missing")
                }
                result = try body(primaryKey, record)
            }
        }
        return result
    }
}
