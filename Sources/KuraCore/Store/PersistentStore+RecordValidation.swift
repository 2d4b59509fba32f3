// Stored records read back by a save (what a rewrite must know of the old
// values) and checked on the way: damage, or a newer model's records.

extension PersistentStore {
    /// What a save needs of a stored record, checked (its header and indexed
    /// values): its row version, its indexed values and its to-one
    /// references, each read when asked for. It reads the stored bytes in
    /// place: ask before the transaction writes over them.
    struct StoredRecord {
        let view: RecordView
        let entity: EntityDescription

        var version: UInt64 { view.rowVersion }

        func value(_ number: Int) -> AttributeValue? { view.value(number, of: entity) }

        var references: [UInt64?] {
            entity.toOneLinks.isEmpty ? [] : entity.links.compactMap(\.field).map { view.reference($0) }
        }
    }

    /// `bytes`, a record of `spaces`' entity, checked in its header and indexed values.
    func storedRecord(_ bytes: UnsafeRawBufferPointer, in spaces: EntitySpaces) throws -> StoredRecord {
        let entity = spaces.entity
        return StoredRecord(view: try validatedRecord(bytes, of: entity, values: entity.indexedAttributeNumbers), entity: entity)
    }

    /// Checks stored bytes, naming the store when they are damaged: the whole
    /// record, or (with `values`) the header and those values only.
    func validatedRecord(
        _ bytes: UnsafeRawBufferPointer, of entity: EntityDescription, values: [Int]? = nil
    ) throws -> RecordView {
        do {
            guard let values else { return try RecordView(validating: bytes, entity: entity) }
            let view = try RecordView(checkingHeader: bytes, entity: entity)
            try view.checkValues(values, of: entity)
            return view
        } catch {
            throw corruptRecord(entity, error)
        }
    }

    /// The error for a record of `entity` that doesn't read: damage, or a
    /// record rewritten by another process's migration to a newer model
    /// (then ``KuraError/storeMigrated(path:)``).
    func corruptRecord(_ entity: EntityDescription, _ error: any Error) -> KuraError {
        // A migration's rewritten records and its generation commit
        // together: a record that fails because of one comes with a newer
        // generation.
        if let current = try? read({ txn in try Self.generation(meta, in: txn) }), current != generation {
            return KuraError.storeMigrated(path: path)
        }
        return KuraError.corruptStore(path: path, reason: "a record of \(entity.name): \(error)")
    }
}
