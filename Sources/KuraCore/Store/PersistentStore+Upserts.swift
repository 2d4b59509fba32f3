/// Inserts whose unique values are taken, under a merge policy other than
/// ``MergePolicy/error``: each becomes an update of the object that has
/// them, stored or inserted earlier in the same save.
///
/// The save finds them after its deletions (a deleted object's values are
/// free) and before anything resolves a reference to an insert, so every
/// reference to a merged insert, from a to-one or a membership, lands on the
/// object it merged into.
extension PersistentStore {
    /// The inserts of a save that others merge into.
    struct Upserts {
        /// For each insert that later inserts merge into, by position: theirs, in order.
        var followers: [Int: [Int]] = [:]

        var isEmpty: Bool { followers.isEmpty }
    }

    /// One unique index entry's key.
    private struct UniqueKey: Hashable {
        let index: ObjectIdentifier
        let key: [UInt8]

        /// The key's bytes at once: an array of bytes hashes byte by byte.
        func hash(into hasher: inout Hasher) {
            hasher.combine(index)
            key.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Finds the inserts of `changes` whose unique values are stored already
    /// or belong to an earlier insert, marks them in `result`
    /// (``SaveResult/mergedInserts``) and gives each the primary key of the
    /// object it merges into (``SaveResult/insertedKeys``).
    ///
    /// - Throws: ``KuraError/uniqueConstraintViolated(entity:index:values:objectID:)``
    ///   for an insert whose values match two different objects, or an
    ///   object this same save updates.
    func findUpserts(in changes: ChangeSet, result: inout SaveResult, in txn: StoreTransaction) throws -> Upserts {
        var upserts = Upserts()
        guard changes.mergePolicy != .error, !changes.inserts.isEmpty else { return upserts }
        var uniqueIndexes: [ObjectIdentifier: [IndexSpace]] = [:]
        func uniques(of entity: EntityDescription) -> [IndexSpace] {
            if let known = uniqueIndexes[ObjectIdentifier(entity)] { return known }
            let found = spaces(for: entity).indexes.filter(\.description.isUnique)
            uniqueIndexes[ObjectIdentifier(entity)] = found
            return found
        }
        guard changes.inserts.contains(where: { !uniques(of: $0.objectID.entity).isEmpty }) else { return upserts }
        try txn.readAhead { plan in
            for insert in changes.inserts {
                for index in uniques(of: insert.objectID.entity) {
                    let made = index.key(primaryKey: 0) { insert.values[$0] }
                    if made.isUniqueKey { plan.read(keys: [made.key], in: index.space) }
                }
            }
        }
        enum Target: Equatable {
            case insert(Int)
            case stored(UInt64)
        }
        var holders: [UniqueKey: Int] = [:]          // a unique key → the insert that holds it
        holders.reserveCapacity(changes.inserts.count)
        var storedLeads: [ObjectID: Int] = [:]        // a stored object → the first insert merged into it
        var updated: [ObjectID: ChangeSet.Update]?   // made on the first stored match
        for (position, insert) in changes.inserts.enumerated() {
            let entity = insert.objectID.entity
            var target: Target?
            var keys: [UniqueKey] = []
            for index in uniques(of: entity) {
                let made = index.key(primaryKey: 0) { insert.values[$0] }
                guard made.isUniqueKey else { continue }
                let unique = UniqueKey(index: ObjectIdentifier(index), key: made.key)
                keys.append(unique)
                var found: Target?
                if let holder = holders[unique] {
                    found = .insert(holder)
                } else if let primaryKey = try storedPrimaryKey(made.key, in: index, txn) {
                    // Another member of the family holds the values (an index
                    // declared on a superentity): an object can't change entity.
                    guard entity.ownsKey(primaryKey) else { throw violation(of: index, by: insert) }
                    let objectID = ObjectID(entity: entity, number: primaryKey, isTemporaryID: false)
                    if updated == nil {
                        updated = Dictionary(changes.updates.filter(\.rewritesRecord).map { ($0.objectID, $0) }) { first, _ in first }
                    }
                    if let update = updated![objectID] {
                        // Changed by this save too: merged only if it keeps these values.
                        if index.key(primaryKey: primaryKey, value: update.value).key == made.key {
                            throw violation(of: index, by: insert)
                        }
                    } else {
                        found = storedLeads[objectID].map(Target.insert) ?? .stored(primaryKey)
                    }
                }
                guard let found else { continue }
                if let target, target != found { throw violation(of: index, by: insert) }
                target = found
            }
            switch target {
            case nil:
                for key in keys { holders[key] = position }
            case .insert(let lead):
                result.mergedInserts[position] = .intoInsert(lead)
                result.insertedKeys[position] = result.insertedKeys[lead]
                upserts.followers[lead, default: []].append(position)
            case .stored(let primaryKey):
                result.mergedInserts[position] = .intoStored
                result.insertedKeys[position] = primaryKey
                storedLeads[ObjectID(entity: entity, number: primaryKey, isTemporaryID: false)] = position
                upserts.followers[position, default: []] = []
                for key in keys { holders[key] = position }
            }
        }
        if !storedLeads.isEmpty {
            try txn.readAhead { plan in
                for (objectID, _) in storedLeads {
                    plan.read(keys: [StoreLayout.key(objectID.number)], in: spaces(for: objectID.entity).records)
                }
            }
        }
        return upserts
    }

    /// The primary key a unique index entry points to, if it is there.
    private func storedPrimaryKey(_ key: [UInt8], in index: IndexSpace, _ txn: StoreTransaction) throws -> UInt64? {
        try key.withUnsafeBytes { key in
            try index.space.withValue(forKey: key, in: txn) { value in
                try IndexSpace.primaryKey(of: StorageEntry(key: key, value: value), index: index, path: path)
            }
        }
    }

    /// The error for an insert whose unique values can't be merged.
    private func violation(of index: IndexSpace, by insert: ChangeSet.Insert) -> KuraError {
        KuraError.uniqueConstraintViolated(
            entity: insert.objectID.entity.name, index: index.description.name,
            values: index.attributeNumbers.map { insert.values[$0].map { "\($0)" } ?? "nil" }, objectID: nil)
    }

    /// The values and to-ones an insert is written with: its own, with the
    /// later inserts merged into it on top, by the save's policy.
    func upsertedContents(
        of position: Int, _ changes: ChangeSet, upserts: Upserts, base: (values: ContiguousArray<AttributeValue?>, references: [UInt64?]),
        insertedKeys: [UInt64]
    ) -> (values: ContiguousArray<AttributeValue?>, references: [UInt64?]) {
        var contents = base
        for follower in upserts.followers[position] ?? [] {
            let insert = changes.inserts[follower]
            let references = insert.references.map { SaveResult.resolve($0, insertedKeys: insertedKeys) }
            Self.upsert(insert, references: references, into: &contents, policy: changes.mergePolicy)
        }
        return contents
    }

    /// Writes an insert that merges into a stored object (with the later
    /// inserts that merge into it): the stored record rewritten with the
    /// merged values, its index and to-one entries moved. Returns the record.
    func writeUpsert(
        _ position: Int, _ changes: ChangeSet, upserts: Upserts, spaces: EntitySpaces, insertedKeys: [UInt64],
        in txn: StoreTransaction
    ) throws -> [UInt8] {
        let insert = changes.inserts[position]
        let entity = spaces.entity
        let primaryKey = insertedKeys[position]
        let key = StoreLayout.key(primaryKey)
        guard let storedBytes = try spaces.records.value(forKey: key, in: txn) else {
            throw KuraError.corruptStore(path: path, reason: "an index of \(entity.name) names a record that isn't stored")
        }
        return try storedBytes.withUnsafeBytes { bytes in
            let view = try validatedRecord(bytes, of: entity)
            let storedReferences = entity.toOneLinks.map { view.reference($0.field!) }
            // The stored values the lead insert doesn't replace, decoded; the others are its own.
            let replaced: (Int) -> Bool = switch changes.mergePolicy {
            case .overwrite: { _ in true }
            case .mergeByPropertyObjectTrump: insert.changedAttributes.contains
            case .error, .rollback, .mergeByPropertyStoreTrump: { _ in false }
            }
            var contents = (values: ContiguousArray<AttributeValue?>(), references: storedReferences)
            contents.values.reserveCapacity(entity.attributes.count)
            for number in entity.attributes.indices {
                contents.values.append(replaced(number) ? insert.values[number] : view.value(number, of: entity))
            }
            let references = insert.references.map { SaveResult.resolve($0, insertedKeys: insertedKeys) }
            Self.upsert(insert, references: references, into: &contents, policy: changes.mergePolicy, attributes: false)
            contents = upsertedContents(of: position, changes, upserts: upserts, base: contents, insertedKeys: insertedKeys)
            let objectID = ObjectID(entity: entity, number: primaryKey, isTemporaryID: false)
            for index in spaces.indexes {
                let old = index.key(primaryKey: primaryKey) { view.value($0, of: entity) }
                let new = index.key(primaryKey: primaryKey) { contents.values[$0] }
                guard old.key != new.key else { continue }
                try index.space.delete(old.key, in: txn)
                try putIndexEntry(new, index: index, objectID: objectID, primaryKey: primaryKey,
                                  value: { contents.values[$0] }, in: txn)
            }
            for (position, link) in entity.toOneLinks.enumerated() where storedReferences[position] != contents.references[position] {
                try spaces.relationships[link.number].moveReference(
                    of: primaryKey, from: storedReferences[position], to: contents.references[position], in: txn)
            }
            let record = RecordFormat.encode(contents.values, references: contents.references, rowVersion: view.rowVersion + 1,
                                             layout: entity.layout)
            try spaces.records.put(record, forKey: key, in: txn)
            return record
        }
    }
}
