extension PersistentStore {
    /// Brings a store of an older format (see ``StoreLayout/formatVersion``)
    /// to the current one, in one write transaction: either all of it
    /// happens or none, and a process that dies midway leaves the old store.
    /// Each step rewrites only what its format change touched.
    ///
    /// Upgrade a store while no older version of Kura has it open: such a
    /// process would go on writing the old format until it reopens.
    func upgradeFormat() throws {
        try engine.write { txn in
            let stored = try meta.value(forKey: StoreLayout.formatKey, in: txn)
                .flatMap { StoreLayout.littleEndian($0, as: UInt32.self) } ?? StoreLayout.baseFormatVersion
            // Another process may have upgraded it since this one looked.
            guard stored < StoreLayout.baseFormatVersion else { return }
            if stored < 2 { try rebuildDecimalIndexes(in: txn) }
            // Format 3: the model document numbers every field (the
            // numbering older stores had implicitly); records don't change.
            try writeModel(model, change: "upgraded from format \(stored)", in: txn)
        }
    }

    /// Format 1 → 2: index keys of a decimal NaN. Every index over a decimal
    /// attribute is emptied and filled again from the records.
    private func rebuildDecimalIndexes(in txn: any StorageTransaction) throws {
        for entity in model.entities {
            let spaces = spaces(for: entity)
            let indexes = spaces.indexes.filter { index in
                index.attributeNumbers.contains { entity.attributes[$0].type == .decimal }
            }
            guard !indexes.isEmpty else { continue }
            for index in indexes { try index.space.removeAll(in: txn) }
            var entries: [[UInt8]] = []
            var primaryKeys: [UInt64] = []
            try forEachRecord(of: entity, in: txn) { primaryKey, view in
                for index in indexes {
                    entries.append(index.key(primaryKey: primaryKey) { view.value($0, of: entity) }.key)
                    primaryKeys.append(primaryKey)
                }
                return true
            }
            for (position, key) in entries.enumerated() {
                let index = indexes[position % indexes.count]
                try index.putEntry(key, isUniqueKey: false, primaryKey: primaryKeys[position], in: txn)
            }
        }
    }
}
