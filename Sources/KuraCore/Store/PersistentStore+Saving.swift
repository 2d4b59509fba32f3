extension PersistentStore {
    /// Writes `changes` in one write transaction: records, index entries and
    /// ID counters commit together or not at all.
    ///
    /// Deletions go first, then the index entries updates drop, then new
    /// entries, so a value can move from one object to another in one save.
    /// Unique indexes are checked against the store and against earlier
    /// objects of the same save.
    ///
    /// - Throws: ``KuraError/uniqueConstraintViolated(entity:index:values:objectID:)``,
    ///   ``KuraError/conflict(objectIDs:)`` when a stored row version is not the
    ///   expected one, ``KuraError/storeFull(maximumBytes:)``,
    ///   ``KuraError/storage(path:failure:)``. Nothing is written then.
    func save(_ changes: ChangeSet) throws -> SaveResult {
        try save(building: { _ in changes })
    }

    /// Writes the change set `build` makes inside the write transaction
    /// (a batch request finds what it changes there), as ``save(_:)`` does.
    /// `build` runs again when the transaction does (after the map grows).
    func save(building build: (StoreTransaction) throws -> ChangeSet) throws -> SaveResult {
        if isReadOnly { throw KuraError.storeReadOnly(path: path) }
        guard let reporter = eventReporter, !hasAmbient else { return try write(building: build) }
        let started = ContinuousClock.now
        var built = ChangeSet()
        func report(_ result: SaveResult?, _ error: (any Error)?) {
            guard error != nil || reporter.reportsEverySave else { return }
            reporter.report(.save(SaveEvent(
                store: path, inserted: built.inserts.count, updated: built.updates.count, deleted: built.deletes.count,
                conflictsSettled: result?.settledUpdates.count ?? 0, duration: ContinuousClock.now - started, error: error)))
        }
        do {
            let result = try write(building: { txn in
                built = try build(txn)
                return built
            })
            report(result, nil)
            return result
        } catch {
            report(nil, error)
            throw error
        }
    }

    /// ``save(building:)`` without the report.
    private func write(building build: (StoreTransaction) throws -> ChangeSet) throws -> SaveResult {
        var changes = ChangeSet()
        // Observers in this process hear of the save from the saving
        // context; the transaction is noted as this process's own before it
        // commits, so the commit monitor doesn't take it for another
        // process's (and forgotten if the commit fails).
        var committing: Int?
        do {
            // The closure runs again after the map grows: it only builds
            // its result, it changes nothing outside.
            if hasAmbient, let ambient {
                return try ambient.withNestedTransaction { txn in
                    changes = try build(txn)
                    return try write(changes, in: txn)
                }
            }
            var result: SaveResult?
            try engine.performWrite { engineTransaction in
                let txn = StoreTransaction(engineTransaction, isRequesting: transactionsRequest)
                changes = try build(txn)
                result = try write(changes, in: txn)
                // Noted even with no observation yet: one may register
                // before this commits, and must not take it for another process's.
                if txn.id != 0 {
                    committing = txn.id
                    observers.noteOwnCommit(txn.id)
                }
            }
            return result!
        } catch let error as StorageEngineError where error.code == .keyExistsInSpace {
            if let committing { observers.forgetOwnCommit(committing) }
            throw uniqueViolation(in: error.space!, key: error.key!, of: changes)
        } catch {
            if let committing { observers.forgetOwnCommit(committing) }
            throw error
        }
    }

    /// The error for a unique key an engine found taken when it sent a
    /// batch of writes (``StorageEngineError/keyExistsInSpace(_:key:)``):
    /// the object of `changes` whose entry in that index has `key`, and its values.
    private func uniqueViolation(in space: StorageSpace, key: [UInt8], of changes: ChangeSet) -> KuraError {
        for entity in model.entities {
            guard let index = spaces(for: entity).indexes.first(where: { $0.space == space }) else { continue }
            let changed: [(ObjectID, (Int) -> AttributeValue?)] =
                changes.inserts.map { insert in (insert.objectID, { insert.values[$0] }) }
                + changes.updates.map { update in (update.objectID, update.value) }
            for (objectID, value) in changed where objectID.entity === entity {
                let made = index.key(primaryKey: objectID.number, value: value)
                guard made.isUniqueKey && made.key == key else { continue }
                return KuraError.uniqueConstraintViolated(
                    entity: entity.name, index: index.description.name,
                    values: index.attributeNumbers.map { value($0).map { "\($0)" } ?? "nil" },
                    objectID: objectID.isTemporaryID ? nil : objectID)
            }
            return KuraError.uniqueConstraintViolated(entity: entity.name, index: index.description.name, values: [], objectID: nil)
        }
        return KuraError.corruptStore(path: path, reason: "the engine reported a taken key in a space that is no index")
    }

    /// The save's phases, in their order: each one's writes may rely on the
    /// ones before (a deleted object's unique values are free for an update
    /// or an insert; an insert's key is known to every reference to it).
    private func write(_ changes: ChangeSet, in txn: StoreTransaction) throws -> SaveResult {
        try readAhead(for: changes, in: txn)
        guard try Self.generation(meta, in: txn) == generation else { throw KuraError.storeMigrated(path: path) }
        var result = SaveResult()
        var conflicts: [ObjectID] = []
        try writeDeletes(changes.deletes, policy: changes.mergePolicy, conflicts: &conflicts, in: txn)
        let counters = try assignPrimaryKeys(to: changes.inserts, result: &result, in: txn)
        let upserts = try findUpserts(in: changes, result: &result, in: txn)
        let movedIndexKeys = try rewriteUpdates(
            changes.updates, policy: changes.mergePolicy, result: &result, conflicts: &conflicts, in: txn)
        if !conflicts.isEmpty { throw KuraError.conflict(objectIDs: conflicts) }
        try putMovedIndexEntries(movedIndexKeys, of: changes.updates, in: txn)
        try writeInserts(changes, upserts: upserts, result: &result, in: txn)
        for (entity, next) in counters {
            try meta.put(StoreLayout.littleEndianBytes(next), forKey: StoreLayout.counterKey(entity), in: txn)
        }
        try writeMemberships(changes, result: result, in: txn)
        if let history = changes.history {
            try recordHistory(history, of: changes, result: result, in: txn)
        }
        return result
    }

    /// Deletions, a run of one entity at a time through one cursor on its
    /// records: the record is found once, read, and deleted where it is,
    /// with its index and relationship entries. A record whose version is
    /// not the one expected is a conflict, left as it is.
    private func writeDeletes(
        _ deletes: [ChangeSet.Delete], policy: MergePolicy, conflicts: inout [ObjectID], in txn: StoreTransaction
    ) throws {
        try forEachRunOfOneEntity(deletes, objectID: \.objectID, in: txn) { run, spaces, cursor in
            for delete in run {
                let key = StoreLayout.key(delete.objectID.number)
                guard let entry = try cursor.seek(exactly: key) else { continue }  // already gone
                let stored = try storedRecord(entry.value, in: spaces)
                if let expected = delete.expectedVersion, stored.version != expected, policy == .error {
                    conflicts.append(delete.objectID)
                    continue
                }
                // Keyed while the record's bytes are still there to read.
                let indexKeys = spaces.indexes.map { index in
                    index.key(primaryKey: delete.objectID.number, value: stored.value).key
                }
                let references = stored.references
                try cursor.deleteCurrent()
                for (index, key) in zip(spaces.indexes, indexKeys) { try index.space.delete(key, in: txn) }
                try deleteRelationshipEntries(of: delete.objectID.number, references: references, spaces: spaces, in: txn)
            }
        }
    }

    /// Gives each insert its primary key (into `result`), before anything
    /// refers to it, and returns each entity's counter as it is to be
    /// stored. Inserts come in runs of one entity: its counter stays at
    /// hand for the run.
    private func assignPrimaryKeys(
        to inserts: [ChangeSet.Insert], result: inout SaveResult, in txn: StoreTransaction
    ) throws -> [(entity: EntityDescription, next: UInt64)] {
        var counters: [IdentityKey: (entity: EntityDescription, next: UInt64)] = [:]
        var run: (entity: EntityDescription, next: UInt64)?
        result.insertedKeys.reserveCapacity(inserts.count)
        for insert in inserts {
            let entity = insert.objectID.entity
            if let current = run, current.entity !== entity {
                counters[IdentityKey(current.entity)] = current
                run = nil
            }
            if run == nil { run = try counters[IdentityKey(entity)] ?? (entity, nextPrimaryKey(of: entity, in: txn)) }
            result.insertedKeys.append(run!.next)
            run!.next += 1
        }
        if let current = run { counters[IdentityKey(current.entity)] = current }
        return Array(counters.values)
    }

    /// Updates, a run of one entity at a time through one cursor on its
    /// records: checks versions (a conflict into `conflicts`), drops the
    /// index entries whose values change, moves to-one entries, and writes
    /// the record where the cursor found it. (Written before every version
    /// is checked: a conflict throws, and the transaction writes nothing.)
    ///
    /// - Returns: for each update, the new index entries to put once every
    ///   old one is gone.
    private func rewriteUpdates(
        _ updates: [ChangeSet.Update], policy: MergePolicy, result: inout SaveResult, conflicts: inout [ObjectID],
        in txn: StoreTransaction
    ) throws -> [[(IndexSpace, (key: [UInt8], isUniqueKey: Bool))]] {
        var movedIndexKeys: [[(IndexSpace, (key: [UInt8], isUniqueKey: Bool))]] = []
        movedIndexKeys.reserveCapacity(updates.count)
        result.updatedRecords.reserveCapacity(updates.count)
        let insertedKeys = result.insertedKeys
        try forEachRunOfOneEntity(updates, objectID: \.objectID, in: txn) { run, spaces, cursor in
            let entity = spaces.entity
            for update in run {
                let position = result.updatedRecords.count
                update.merged = nil  // from an earlier run of this transaction's body
                func skip(_ settled: SaveResult.SettledUpdate? = nil, record: [UInt8]? = nil) {
                    movedIndexKeys.append([])
                    result.updatedRecords.append(record)
                    guard let settled else { return }
                    result.settledUpdates[position] = settled
                    result.droppedOwners.insert(update.objectID)
                }
                let key = StoreLayout.key(update.objectID.number)
                guard let entry = try cursor.seek(exactly: key) else {
                    // Deleted elsewhere: the policy may let the deletion stand.
                    switch policy {
                    case .rollback, .mergeByPropertyStoreTrump: skip(.deleted)
                    case .error, .overwrite, .mergeByPropertyObjectTrump:
                        conflicts.append(update.objectID)
                        skip()
                    }
                    continue
                }
                let stored = try storedRecord(entry.value, in: spaces)
                guard update.rewritesRecord else {
                    skip()
                    continue
                }
                var references = update.references.map { SaveResult.resolve($0, insertedKeys: insertedKeys) }
                if let expected = update.expectedVersion, stored.version != expected {
                    switch try settle(update, stored: stored.view, references: references, policy: policy) {
                    case .conflict:
                        conflicts.append(update.objectID)
                    case .write:
                        break
                    case .keepStored:
                        skip(.refreshed, record: Array(entry.value))
                        continue
                    case .merge(let values, let mergedReferences):
                        update.merged = values
                        references = mergedReferences
                        result.settledUpdates[position] = .refreshed
                    }
                }
                // The old keys of the indexes whose values may change (all,
                // unless the context read the version it changes), taken
                // while the stored bytes are still there to read; the
                // other indexes' values aren't decoded.
                let readChanges = stored.version == update.expectedVersion ? update.changedAttributes : nil
                var oldKeys: [(IndexSpace, [UInt8])] = []
                for index in spaces.indexes {
                    if let readChanges, !index.attributeNumbers.contains(where: readChanges.contains) { continue }
                    oldKeys.append((index, index.key(primaryKey: update.objectID.number, value: stored.value).key))
                }
                let storedReferences = stored.references
                let record = if let merged = update.merged {
                    RecordFormat.encode(merged, references: references, rowVersion: stored.version + 1, layout: entity.layout)
                } else {
                    RecordFormat.encode(
                        update.values, references: references, rowVersion: stored.version + 1,
                        layout: entity.layout, unloaded: update.unloaded)
                }
                try record.withUnsafeBytes { record in try key.withUnsafeBytes { try cursor.replaceCurrent(record, key: $0) } }
                result.updatedRecords.append(record)

                var newKeys: [(IndexSpace, (key: [UInt8], isUniqueKey: Bool))] = []
                for (index, old) in oldKeys {
                    let new = index.key(primaryKey: update.objectID.number, value: update.value)
                    if old != new.key {
                        try index.space.delete(old, in: txn)
                        newKeys.append((index, new))
                    }
                }
                try moveReferenceEntries(of: update.objectID.number, from: storedReferences, to: references,
                                         links: entity.toOneLinks, in: txn)
                movedIndexKeys.append(newKeys)
            }
        }
        return movedIndexKeys
    }

    /// Moves the entries of the to-ones whose destination changed.
    private func moveReferenceEntries(
        of source: UInt64, from stored: [UInt64?], to references: [UInt64?], links toOneLinks: [RelationshipLink],
        in txn: StoreTransaction
    ) throws {
        // By position: a zip of zips isn't specialized (its iterator is
        // destroyed through metadata at run time).
        for position in 0..<min(toOneLinks.count, stored.count, references.count) {
            let (link, old, new) = (toOneLinks[position], stored[position], references[position])
            if old == new { continue }
            try storage(of: link).moveReference(of: source, from: old, to: new, in: txn)
        }
    }

    /// The new index entries of updates, once every old one is gone, so a
    /// value can move from one object to another in one save.
    private func putMovedIndexEntries(
        _ movedIndexKeys: [[(IndexSpace, (key: [UInt8], isUniqueKey: Bool))]], of updates: [ChangeSet.Update],
        in txn: StoreTransaction
    ) throws {
        for (position, newKeys) in movedIndexKeys.enumerated() where !newKeys.isEmpty {
            let update = updates[position]
            for (index, key) in newKeys {
                try putIndexEntry(key, index: index, objectID: update.objectID, primaryKey: update.objectID.number,
                                  value: update.value, in: txn)
            }
        }
    }

    /// New objects: their index entries (unique ones checked), to-one
    /// entries and records, appended under the keys
    /// ``assignPrimaryKeys(to:result:in:)`` gave them.
    private func writeInserts(_ changes: ChangeSet, upserts: Upserts, result: inout SaveResult, in txn: StoreTransaction) throws {
        let inserts = changes.inserts
        var spaces = inserts.first.map { self.spaces(for: $0.objectID.entity) }
        result.insertedRecords.reserveCapacity(inserts.count)
        if let spaces {
            // A record, and an entry per index and to-one (the first entity's counts stand for all).
            txn.reserveCapacity(forPuts: inserts.count * (1 + spaces.indexes.count + spaces.entity.toOneLinks.count))
        }
        var indexKey: [UInt8] = []
        indexKey.reserveCapacity(64)
        for (position, insert) in inserts.enumerated() {
            if spaces!.entity !== insert.objectID.entity { spaces = self.spaces(for: insert.objectID.entity) }
            let spaces = spaces!
            let references = insert.references.isEmpty
                ? [] : insert.references.map { SaveResult.resolve($0, insertedKeys: result.insertedKeys) }
            if !upserts.isEmpty {
                switch result.mergedInserts[position] {
                case .intoStored?:
                    result.insertedRecords.append(try writeUpsert(
                        position, changes, upserts: upserts, spaces: spaces, insertedKeys: result.insertedKeys, in: txn))
                    continue
                case .intoInsert?:
                    result.insertedRecords.append(nil)  // written with the insert it merged into
                    continue
                case nil where upserts.followers[position] != nil:
                    let merged = upsertedContents(
                        of: position, changes, upserts: upserts, base: (insert.values, references), insertedKeys: result.insertedKeys)
                    result.insertedRecords.append(try writeNew(
                        insert.objectID, merged.values, merged.references, primaryKey: result.insertedKeys[position],
                        spaces: spaces, indexKey: &indexKey, in: txn))
                    continue
                case nil:
                    break
                }
            }
            result.insertedRecords.append(try writeNew(
                insert.objectID, insert.values, references, primaryKey: result.insertedKeys[position],
                spaces: spaces, indexKey: &indexKey, in: txn))
        }
    }

    /// One new object: its index entries (unique ones checked), to-one
    /// entries and record, appended under `primaryKey`. Returns the record.
    /// (`indexKey`: a buffer every insert of a save reuses.)
    private func writeNew(
        _ objectID: ObjectID, _ values: ContiguousArray<AttributeValue?>, _ references: [UInt64?], primaryKey: UInt64,
        spaces: EntitySpaces, indexKey: inout [UInt8], in txn: StoreTransaction
    ) throws -> [UInt8] {
        let entity = spaces.entity
        for index in spaces.indexes {
            let isUniqueKey = index.key(primaryKey: primaryKey, into: &indexKey) { values[$0] }
            try putIndexEntry((indexKey, isUniqueKey), index: index, objectID: objectID, primaryKey: primaryKey,
                              value: { values[$0] }, in: txn)
        }
        for (link, destination) in zip(entity.toOneLinks, references) where destination != nil {
            try spaces.relationships[link.number].moveReference(of: primaryKey, from: nil, to: destination, in: txn)
        }
        let record = RecordFormat.encode(values, references: references, rowVersion: 1, layout: entity.layout)
        do {
            try StoreLayout.withKey(primaryKey) { key in
                // (Still an append after upserts: they rewrite older keys, and skip none of the new ones' order.)
                try record.withUnsafeBytes { try spaces.records.put($0, forKey: key, in: txn, flags: .append) }
            }
        } catch StorageEngineError.keyExists {
            throw KuraError.corruptStore(path: path, reason: "the ID counter of \(entity.name) is behind its records")
        }
        return record
    }

    /// Members added to and removed from to-manys (with their reverse
    /// entries), and ordered to-manys' new orders.
    private func writeMemberships(_ changes: ChangeSet, result: SaveResult, in txn: StoreTransaction) throws {
        let resolve = { (reference: ChangeSet.Reference?) in SaveResult.resolve(reference, insertedKeys: result.insertedKeys) }
        let policy = changes.mergePolicy
        let mayDrop = policy == .rollback || !result.droppedOwners.isEmpty
        // An insert is a new object unless an upsert merged it into a stored one.
        let isNew = { (reference: ChangeSet.Reference?) -> Bool in
            guard case .inserted(let position)? = reference else { return false }
            return result.mergedInserts[position] == nil
        }
        for change in changes.memberships {
            guard let owner = resolve(change.owner) else { continue }
            var (added, removed, placements) = (change.added, change.removed, change.placements)
            if mayDrop {
                if result.dropsMemberships(of: change.owner, change.link.source, policy: policy) { continue }
                if let inverse = change.link.inverse {
                    let dropped = { result.dropsMemberships(of: $0, inverse.source, policy: policy) }
                    added.removeAll(where: dropped)
                    removed.removeAll(where: dropped)
                    placements.removeAll { dropped($0.member) }
                }
            }
            var write = MembershipWrite(
                owner: owner, added: added.compactMap(resolve), removed: removed.compactMap(resolve),
                placements: placements.compactMap { $0.resolved(resolve) })
            if change.link.isOrdered {
                write.ownerIsNew = isNew(change.owner)
                write.newMembers = Set(placements.lazy.filter { isNew($0.member) }.compactMap { resolve($0.member) })
            }
            try storage(of: change.link).write(write, in: txn)
        }
    }

    /// Removes what the relationships of a deleted object keep: the entries
    /// of its to-ones, its joined members (and their reverse entries), its
    /// members' order.
    private func deleteRelationshipEntries(
        of owner: UInt64, references: [UInt64?], spaces: EntitySpaces, in txn: StoreTransaction
    ) throws {
        for (link, destination) in zip(spaces.entity.toOneLinks, references) where destination != nil {
            try spaces.relationships[link.number].moveReference(of: owner, from: destination, to: nil, in: txn)
        }
        for storage in spaces.relationships where storage.link.isToMany {
            try storage.removeMembers(ofDeleted: owner, store: self, in: txn)
        }
    }

    /// The next primary key of `entity`: its counter, which only grows, so a
    /// key is never reused even after deletions.
    private func nextPrimaryKey(of entity: EntityDescription, in txn: StoreTransaction) throws -> UInt64 {
        // A sub-entity's keys carry its tag (see EntityFamily): its counter
        // starts there, and is stored with it.
        guard let bytes = try meta.value(forKey: StoreLayout.counterKey(entity), in: txn) else { return entity.layout.keyTag | 1 }
        guard let next = StoreLayout.littleEndian(bytes, as: UInt64.self) else {
            throw KuraError.corruptStore(path: path, reason: "the ID counter of \(entity.name) is damaged")
        }
        return next
    }

    /// Adds an index entry, whose value is the primary key. A unique key
    /// (a unique index, no nil value) must not be there yet.
    func putIndexEntry(
        _ key: (key: [UInt8], isUniqueKey: Bool), index: IndexSpace, objectID: ObjectID, primaryKey: UInt64,
        value: (Int) -> AttributeValue?, in txn: StoreTransaction
    ) throws {
        let entity = objectID.entity
        let reportedID = objectID.isTemporaryID ? nil : objectID
        do {
            try index.putEntry(key.key, isUniqueKey: key.isUniqueKey, primaryKey: primaryKey, in: txn)
        } catch StorageEngineError.keyExists {
            throw KuraError.uniqueConstraintViolated(
                entity: entity.name, index: index.description.name,
                values: index.attributeNumbers.map { value($0).map { "\($0)" } ?? "nil" }, objectID: reportedID)
        } catch StorageEngineError.keyTooLong {
            throw KuraError.indexKeyTooLong(entity: entity.name, index: index.description.name, objectID: reportedID)
        }
    }

    /// Calls `body` with each run of consecutive changes of one entity, that
    /// entity's spaces, and one cursor on its records for the whole run.
    private func forEachRunOfOneEntity<Change>(
        _ changes: [Change], objectID: (Change) -> ObjectID, in txn: StoreTransaction,
        _ body: (ArraySlice<Change>, EntitySpaces, any StorageCursor) throws -> Void
    ) throws {
        var start = 0
        while start < changes.count {
            let current = objectID(changes[start]).entity
            var end = start + 1
            while end < changes.count && objectID(changes[end]).entity === current { end += 1 }
            let spaces = spaces(for: current)
            try spaces.records.withCursor(in: txn) { cursor in try body(changes[start..<end], spaces, cursor) }
            start = end
        }
    }

    /// Asks, at once, for what a save reads by key: the store's generation,
    /// the ID counters of the entities it inserts, the history's sequence,
    /// and the records it updates or deletes. On an engine whose reads are
    /// requests these go out with the save's first statement (its lock);
    /// on any other, nothing is built.
    private func readAhead(for changes: ChangeSet, in txn: StoreTransaction) throws {
        func records() -> [ObjectIdentifier: (EntityDescription, [UInt64])] {
            var records: [ObjectIdentifier: (EntityDescription, [UInt64])] = [:]
            for objectID in changes.deletes.map(\.objectID) + changes.updates.map(\.objectID) {
                records[ObjectIdentifier(objectID.entity), default: (objectID.entity, [])].1.append(objectID.number)
            }
            return records
        }
        if changes.inserts.isEmpty && changes.deletes.isEmpty && changes.memberships.isEmpty && changes.history == nil {
            try txn.beginRewriting { rewritePlan(of: changes.updates, records: records()) }
            try txn.readAhead { $0.read(keys: [StoreLayout.generationKey], in: meta) }
            return
        }
        try txn.readAhead { plan in
            var metaKeys = [StoreLayout.generationKey]
            var inserted = Set<ObjectIdentifier>()
            for insert in changes.inserts where inserted.insert(ObjectIdentifier(insert.objectID.entity)).inserted {
                metaKeys.append(StoreLayout.counterKey(insert.objectID.entity))
            }
            if changes.history != nil { metaKeys.append(StoreLayout.historySequenceKey) }
            plan.read(keys: metaKeys, in: meta)
            for (entity, numbers) in records().values { plan.read(keys: numbers.map(StoreLayout.key), in: spaces(for: entity).records) }
        }
    }

    /// A save that rewrites stored records alone (to-one references
    /// included: their entries are keyed by the record that changes): its
    /// records in one order every process follows, and what the context
    /// read of them, when it read every one (the engine may then check
    /// instead of reading).
    private func rewritePlan(
        of updates: [ChangeSet.Update], records: [ObjectIdentifier: (EntityDescription, [UInt64])]
    ) -> RewritePlan {
        let keys = records.values.sorted { $0.0.name < $1.0.name }.map { entity, numbers in
            (space: spaces(for: entity).records, keys: numbers.sorted().map(StoreLayout.key))
        }
        var expected: [ExpectedValue] = []
        if updates.allSatisfy({ $0.readRecord != nil }) {
            expected.reserveCapacity(updates.count + 1)
            expected.append(ExpectedValue(
                space: meta, key: StoreLayout.generationKey,
                value: generation == 0 ? nil : StoreLayout.littleEndianBytes(generation)))
            for update in updates {
                expected.append(ExpectedValue(
                    space: spaces(for: update.objectID.entity).records, key: StoreLayout.key(update.objectID.number),
                    value: update.readRecord))
            }
        }
        return RewritePlan(keys: keys, expected: expected)
    }
}
