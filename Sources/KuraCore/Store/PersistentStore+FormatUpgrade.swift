extension PersistentStore {
    /// Brings a store of an older format (see ``StoreLayout/formatVersion``)
    /// to the current one, in one write transaction: either all of it
    /// happens or none, and a process that dies midway leaves the old store.
    /// Each step rewrites only what its format change touched.
    ///
    /// Upgrade a store while no older version of Kura has it open: such a
    /// process would go on writing the old format until it reopens.
    ///
    /// - Parameter format: The format the store was found in.
    func upgradeFormat(from format: UInt32) throws {
        try engine.storeWrite { txn in
            let stored = try meta.value(forKey: StoreLayout.formatKey, in: txn)
                .flatMap { StoreLayout.littleEndian($0, as: UInt32.self) } ?? format
            // Another process may have upgraded it since this one looked.
            guard stored < self.format else { return }
            if stored < 2 { try rebuildDecimalIndexes(in: txn) }
            if stored < StoreLayout.orderKeysFormatVersion { try convertOrderLists(in: txn) }
            // Format 3: the model document numbers every field (the
            // numbering older stores had implicitly); records don't change.
            try writeModel(model, change: "upgraded from format \(stored)", in: txn)
        }
    }

    /// Format 4 → 5: each ordered to-many's lists (owner → all its members)
    /// become entries with order keys, members in the order a reader of the
    /// lists saw them (``MemberOrder/ordered(_:of:in:)``: the list's
    /// members, then members it missed, ascending).
    private func convertOrderLists(in txn: StoreTransaction) throws {
        var converted = Set<StorageSpace>()
        for entity in model.entities {
            for storage in spaces(for: entity).relationships {
                guard let order = (storage as? JoinedMembers)?.order ?? (storage as? InverseReferences)?.order,
                      converted.insert(order.space).inserted else { continue }
                let lists = try order.legacyLists(in: txn)
                let owners = try storage.pairsByFirstKey(in: storage.memberSpace(in: self), txn)
                try order.space.removeAll(in: txn)
                for (owner, keys) in owners.sorted(by: { $0.key < $1.key }) where !keys.isEmpty {
                    try order.writeWhole(MemberOrder.arrange(keys, listed: lists[owner] ?? []), of: owner, in: txn)
                }
            }
        }
    }

    /// Format 1 → 2: index keys of a decimal NaN. Every index over a decimal
    /// attribute is emptied and filled again from the records.
    private func rebuildDecimalIndexes(in txn: StoreTransaction) throws {
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
