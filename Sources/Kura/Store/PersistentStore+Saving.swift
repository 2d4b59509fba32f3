/// What a context asks the store to write in one save.
struct ChangeSet {
    /// An object a change points to: stored already, or inserted by this save.
    enum Reference: Hashable {
        case stored(UInt64)
        /// The position in ``ChangeSet/inserts``.
        case inserted(Int)
    }

    struct Insert {
        let objectID: ObjectID
        let values: ContiguousArray<AttributeValue?>
        /// The destination of each to-one, in the entity's order of to-ones.
        let references: [Reference?]
    }

    /// A class, not a struct: it holds several references (values, records,
    /// masks) that a struct would retain and release at every copy, and a
    /// save hands each update from step to step.
    final class Update {
        let objectID: ObjectID
        let values: ContiguousArray<AttributeValue?>
        let references: [Reference?]
        /// The row version the context read; `nil` to overwrite whatever is stored.
        let expectedVersion: UInt64?
        /// False when only many-to-many (or inverse-less) memberships
        /// changed: the record stays as it is, row version included.
        let rewritesRecord: Bool
        /// When ``values`` holds only some values: the record the others
        /// are in, copied from as they are.
        let unloaded: Unloaded?
        /// The attributes the context changed, if it knows: when the stored
        /// record is still the one it read, only the index entries of these
        /// can move.
        let changedAttributes: AttributeMask?
        /// The stored record as the context read it, if it did: what the
        /// save expects still stored (see ``StorageTransaction/beginRewriting(_:expecting:)``).
        let readRecord: [UInt8]?

        init(
            objectID: ObjectID, values: ContiguousArray<AttributeValue?>, references: [Reference?],
            expectedVersion: UInt64?, rewritesRecord: Bool, unloaded: Unloaded? = nil,
            changedAttributes: AttributeMask? = nil, readRecord: [UInt8]? = nil
        ) {
            self.objectID = objectID
            self.values = values
            self.references = references
            self.expectedVersion = expectedVersion
            self.rewritesRecord = rewritesRecord
            self.unloaded = unloaded
            self.changedAttributes = changedAttributes
            self.readRecord = readRecord
        }

        /// The value of attribute `number`: from ``values``, or decoded from
        /// the record when it is still there.
        func value(_ number: Int) -> AttributeValue? {
            guard let unloaded, !unloaded.loaded.contains(number) else { return values[number] }
            return unloaded.record.withUnsafeBytes { RecordView(trusted: $0).value(number, of: objectID.entity) }
        }
    }

    /// The values of an update that are still in the object's record (not
    /// decoded): the positions in ``loaded`` are in the update's values, the
    /// others are copied from ``record``, byte for byte.
    struct Unloaded {
        let record: [UInt8]
        let loaded: AttributeMask
    }

    struct Delete {
        let objectID: ObjectID
        /// The row version the context read; `nil` to delete whatever is stored.
        let expectedVersion: UInt64?
    }

    /// Members added to and removed from one object's to-many, and for an
    /// ordered one, all its members in order.
    struct MembershipChange {
        let owner: Reference
        let link: RelationshipLink
        let added: [Reference]
        let removed: [Reference]
        let order: [Reference]?
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var memberships: [MembershipChange] = []
    /// What the store's history records besides the objects, when it tracks history.
    var history: History?

    struct History {
        var author: String?
        /// For each update, in order: the names of the properties it changed.
        var updatedKeys: [[String]] = []
    }

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && memberships.isEmpty }
}

/// What a save wrote, for the context to adopt once it committed.
struct SaveResult {
    /// The primary key each insert got, in the order of ``ChangeSet/inserts``.
    var insertedKeys: [UInt64] = []
    /// The stored record of each insert, in order. Optional so that the
    /// context can move each one into its object (`swap`) rather than copy
    /// it: a copy is a retain now and a release when the result goes, each
    /// on a record no cache holds any more in a large save.
    var insertedRecords: [[UInt8]?] = []
    /// The stored record of each update, in order (`nil` when not rewritten).
    var updatedRecords: [[UInt8]?] = []
}

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
        if isReadOnly { throw KuraError.storeReadOnly(path: path) }
        // Observers in this process hear of the save from the saving
        // context; the transaction is noted as this process's own before it
        // commits, so the commit monitor doesn't take it for another
        // process's (and forgotten if the commit fails).
        var committing: Int?
        do {
            // The closure runs again after the map grows: it only builds
            // its result, it changes nothing outside.
            if hasAmbient, let ambient { return try ambient.withNestedTransaction { txn in try write(changes, in: txn) } }
            var result: SaveResult?
            try engine.performWrite { txn in
                result = try write(changes, in: txn)
                if !observers.isEmpty, txn.id != 0 {
                    committing = txn.id
                    observers.noteOwnCommit(txn.id)
                }
            }
            return result!
        } catch StorageEngineError.keyExistsInSpace(let space, let key) {
            if let committing { observers.forgetOwnCommit(committing) }
            throw uniqueViolation(in: space, key: key, of: changes)
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
            guard let index = tables(for: entity).indexes.first(where: { $0.database == space }) else { continue }
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

    private func write(_ changes: ChangeSet, in txn: any StorageTransaction) throws -> SaveResult {
        if txn.readsAreRequests { try readAhead(for: changes, in: txn) }
        guard try Self.generation(meta, in: txn) == generation else { throw KuraError.storeMigrated(path: path) }
        var result = SaveResult()
        var conflicts: [ObjectID] = []

        // Deletions, a run of one entity at a time through one cursor on its
        // records: the record is found once, read, and deleted where it is.
        try forEachRunOfOneEntity(changes.deletes, objectID: \.objectID, in: txn) { run, tables, cursor in
            for delete in run {
                let key = StoreLayout.key(delete.objectID.number)
                guard let entry = try cursor.seek(exactly: key) else { continue }  // already gone
                let stored = try storedRecord(entry.value, in: tables)
                if let expected = delete.expectedVersion, stored.version != expected {
                    conflicts.append(delete.objectID)
                    continue
                }
                // Keyed while the record's bytes are still there to read.
                let indexKeys = tables.indexes.map { index in
                    index.key(primaryKey: delete.objectID.number, value: stored.value).key
                }
                let references = stored.references
                try cursor.deleteCurrent()
                for (index, key) in zip(tables.indexes, indexKeys) { try index.database.delete(key, in: txn) }
                try deleteRelationshipEntries(of: delete.objectID.number, references: references, tables: tables, in: txn)
            }
        }

        // New objects get their keys first, so references to them resolve.
        // Inserts come in runs of one entity: its counter stays at hand for the run.
        var counters: [IdentityKey: (entity: EntityDescription, next: UInt64)] = [:]
        var run: (entity: EntityDescription, next: UInt64)?
        result.insertedKeys.reserveCapacity(changes.inserts.count)
        for insert in changes.inserts {
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
        func resolve(_ reference: ChangeSet.Reference?) -> UInt64? {
            switch reference {
            case .stored(let key)?: key
            case .inserted(let position)?: result.insertedKeys[position]
            case nil: nil
            }
        }

        // Updates, a run of one entity at a time through one cursor on its
        // records: check versions, drop the index entries whose values
        // change, and write the record where the cursor found it. (Written
        // before every version is checked: a conflict throws, and the
        // transaction writes nothing.)
        var updateNewKeys: [[(IndexTable, (key: [UInt8], isUniqueKey: Bool))]] = []
        updateNewKeys.reserveCapacity(changes.updates.count)
        result.updatedRecords.reserveCapacity(changes.updates.count)
        try forEachRunOfOneEntity(changes.updates, objectID: \.objectID, in: txn) { run, tables, cursor in
            let entity = tables.entity
            for update in run {
                let key = StoreLayout.key(update.objectID.number)
                guard let entry = try cursor.seek(exactly: key) else {
                    conflicts.append(update.objectID)
                    updateNewKeys.append([])
                    result.updatedRecords.append(nil)
                    continue
                }
                let stored = try storedRecord(entry.value, in: tables)
                guard update.rewritesRecord else {
                    updateNewKeys.append([])
                    result.updatedRecords.append(nil)
                    continue
                }
                if let expected = update.expectedVersion, stored.version != expected {
                    conflicts.append(update.objectID)
                }
                let references = update.references.map(resolve)
                // The old keys of the indexes whose values may change (all,
                // unless the context read the version it changes), taken
                // while the stored bytes are still there to read; the
                // other indexes' values aren't decoded.
                let readChanges = stored.version == update.expectedVersion ? update.changedAttributes : nil
                var oldKeys: [(IndexTable, [UInt8])] = []
                for index in tables.indexes {
                    if let readChanges, !index.attributeNumbers.contains(where: readChanges.contains) { continue }
                    oldKeys.append((index, index.key(primaryKey: update.objectID.number, value: stored.value).key))
                }
                let storedReferences = stored.references
                let record = RecordFormat.encode(
                    update.values, references: references, rowVersion: stored.version + 1,
                    layout: entity.layout, unloaded: update.unloaded)
                try record.withUnsafeBytes { record in try key.withUnsafeBytes { try cursor.replaceCurrent(record, key: $0) } }
                result.updatedRecords.append(record)

                var newKeys: [(IndexTable, (key: [UInt8], isUniqueKey: Bool))] = []
                for (index, old) in oldKeys {
                    let new = index.key(primaryKey: update.objectID.number, value: update.value)
                    if old != new.key {
                        try index.database.delete(old, in: txn)
                        newKeys.append((index, new))
                    }
                }
                let source = update.objectID.number
                // By position: a zip of zips isn't specialized (its iterator
                // is destroyed through metadata at run time).
                let toOneLinks = tables.entity.toOneLinks
                for position in 0..<min(toOneLinks.count, storedReferences.count, references.count) {
                    let (link, old, new) = (toOneLinks[position], storedReferences[position], references[position])
                    if old == new { continue }
                    let references = table(of: link).references!
                    if let old { try references.deletePair(old, source, in: txn) }
                    if let new { try references.putPair(new, source, in: txn) }
                }
                updateNewKeys.append(newKeys)
            }
        }
        if !conflicts.isEmpty { throw KuraError.conflict(objectIDs: conflicts) }

        // New index entries once every old one is gone, so a value can move
        // from one object to another in one save.
        for (position, newKeys) in updateNewKeys.enumerated() where !newKeys.isEmpty {
            let update = changes.updates[position]
            for (index, key) in newKeys {
                try putIndexEntry(key, index: index, objectID: update.objectID, primaryKey: update.objectID.number,
                                  value: update.value, in: txn)
            }
        }

        var tables = changes.inserts.first.map { self.tables(for: $0.objectID.entity) }
        result.insertedRecords.reserveCapacity(changes.inserts.count)
        if let tables, txn.readsAreRequests {
            // A record, and an entry per index and to-one (the first entity's counts stand for all).
            txn.reserveCapacity(forPuts: changes.inserts.count * (1 + tables.indexes.count + tables.entity.toOneLinks.count))
        }
        var indexKey: [UInt8] = []
        indexKey.reserveCapacity(64)
        for (position, insert) in changes.inserts.enumerated() {
            let entity = insert.objectID.entity
            if tables!.entity !== entity { tables = self.tables(for: entity) }
            let tables = tables!
            let primaryKey = result.insertedKeys[position]
            for index in tables.indexes {
                let isUniqueKey = index.key(primaryKey: primaryKey, into: &indexKey) { insert.values[$0] }
                try putIndexEntry((indexKey, isUniqueKey), index: index, objectID: insert.objectID, primaryKey: primaryKey,
                                  value: { insert.values[$0] }, in: txn)
            }
            let references = insert.references.isEmpty ? [] : insert.references.map(resolve)
            for (link, destination) in zip(entity.toOneLinks, references) {
                guard let destination else { continue }
                try table(of: link).references!.putPair(destination, primaryKey, in: txn)
            }
            let record = RecordFormat.encode(insert.values, references: references, rowVersion: 1, layout: entity.layout)
            do {
                try StoreLayout.withKey(primaryKey) { key in
                    try record.withUnsafeBytes { try tables.records.put($0, forKey: key, in: txn, flags: .append) }
                }
            } catch StorageEngineError.keyExists {
                throw KuraError.corruptStore(path: path, reason: "the ID counter of \(entity.name) is behind its records")
            }
            result.insertedRecords.append(record)
        }
        for (entity, next) in counters.values {
            try meta.put(StoreLayout.littleEndianBytes(next), forKey: StoreLayout.counterKey(entity), in: txn)
        }

        for change in changes.memberships {
            guard let owner = resolve(change.owner) else { continue }
            let table = table(of: change.link)
            if let join = table.join {
                for member in change.removed.compactMap(resolve) {
                    try join.deletePair(owner, member, in: txn)
                    if let reverse = table.reverseJoin { try reverse.deletePair(member, owner, in: txn) }
                }
                for member in change.added.compactMap(resolve) {
                    try join.putPair(owner, member, in: txn)
                    if let reverse = table.reverseJoin { try reverse.putPair(member, owner, in: txn) }
                }
            }
            if let order = table.order, let members = change.order {
                try order.put(StoreLayout.keyList(members.compactMap(resolve)), forKey: StoreLayout.key(owner), in: txn)
            }
        }
        if let history = changes.history {
            try recordHistory(history, of: changes, insertedKeys: result.insertedKeys, in: txn)
        }
        return result
    }

    /// Removes what the relationships of a deleted object keep: the entries
    /// of its to-ones, its joined members (and their reverse entries), its
    /// members' order.
    private func deleteRelationshipEntries(
        of owner: UInt64, references: [UInt64?], tables: EntityTables, in txn: any StorageTransaction
    ) throws {
        for (link, destination) in zip(tables.entity.toOneLinks, references) {
            guard let destination else { continue }
            try table(of: link).references!.deletePair(destination, owner, in: txn)
        }
        for table in tables.relationships where table.link.isToMany {
            if let join = table.join {
                var members: [UInt64] = []
                try forEachSecondKey(in: join, first: owner, in: txn) { members.append($0); return true }
                for member in members {
                    try join.deletePair(owner, member, in: txn)
                    if let reverse = table.reverseJoin { try reverse.deletePair(member, owner, in: txn) }
                }
            }
            if let order = table.order { try order.delete(StoreLayout.key(owner), in: txn) }
        }
    }

    /// The next primary key of `entity`: its counter, which only grows, so a
    /// key is never reused even after deletions.
    private func nextPrimaryKey(of entity: EntityDescription, in txn: any StorageTransaction) throws -> UInt64 {
        guard let bytes = try meta.value(forKey: StoreLayout.counterKey(entity), in: txn) else { return 1 }
        guard let next = StoreLayout.littleEndian(bytes, as: UInt64.self) else {
            throw KuraError.corruptStore(path: path, reason: "the ID counter of \(entity.name) is damaged")
        }
        return next
    }

    /// Adds an index entry, whose value is the primary key. A unique key
    /// (a unique index, no nil value) must not be there yet.
    private func putIndexEntry(
        _ key: (key: [UInt8], isUniqueKey: Bool), index: IndexTable, objectID: ObjectID, primaryKey: UInt64,
        value: (Int) -> AttributeValue?, in txn: any StorageTransaction
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
    /// entity's tables, and one cursor on its records for the whole run.
    private func forEachRunOfOneEntity<Change>(
        _ changes: [Change], objectID: (Change) -> ObjectID, in txn: any StorageTransaction,
        _ body: (ArraySlice<Change>, EntityTables, any StorageCursor) throws -> Void
    ) throws {
        var start = 0
        while start < changes.count {
            let current = objectID(changes[start]).entity
            var end = start + 1
            while end < changes.count && objectID(changes[end]).entity === current { end += 1 }
            let tables = tables(for: current)
            try tables.records.withCursor(in: txn) { cursor in try body(changes[start..<end], tables, cursor) }
            start = end
        }
    }

    /// Asks, at once, for what a save reads by key: the store's generation,
    /// the ID counters of the entities it inserts, the history's sequence,
    /// and the records it updates or deletes. On an engine whose reads are
    /// requests these go out with the save's first statement (its lock).
    private func readAhead(for changes: ChangeSet, in txn: any StorageTransaction) throws {
        var records: [ObjectIdentifier: (EntityDescription, [UInt64])] = [:]
        for objectID in changes.deletes.map(\.objectID) + changes.updates.map(\.objectID) {
            records[ObjectIdentifier(objectID.entity), default: (objectID.entity, [])].1.append(objectID.number)
        }
        if changes.inserts.isEmpty && changes.deletes.isEmpty && changes.memberships.isEmpty && changes.history == nil {
            // Rewrites of stored records alone (to-one references included:
            // their entries are keyed by the record that changes), in one
            // order every process follows.
            let keys = records.values.sorted { $0.0.name < $1.0.name }.map { entity, numbers in
                (space: tables(for: entity).records, keys: numbers.sorted().map(StoreLayout.key))
            }
            // What the context read, when it read every record: the
            // engine may then check instead of reading.
            var expected: [ExpectedValue] = []
            if changes.updates.allSatisfy({ $0.readRecord != nil }) {
                expected.reserveCapacity(changes.updates.count + 1)
                expected.append(ExpectedValue(
                    space: meta, key: StoreLayout.generationKey,
                    value: generation == 0 ? nil : StoreLayout.littleEndianBytes(generation)))
                for update in changes.updates {
                    expected.append(ExpectedValue(
                        space: tables(for: update.objectID.entity).records, key: StoreLayout.key(update.objectID.number),
                        value: update.readRecord))
                }
            }
            try txn.beginRewriting(keys, expecting: expected)
            try txn.prefetch(keys: [StoreLayout.generationKey], in: meta)
            return
        }
        var metaKeys = [StoreLayout.generationKey]
        var inserted = Set<ObjectIdentifier>()
        for insert in changes.inserts where inserted.insert(ObjectIdentifier(insert.objectID.entity)).inserted {
            metaKeys.append(StoreLayout.counterKey(insert.objectID.entity))
        }
        if changes.history != nil { metaKeys.append(StoreLayout.historySequenceKey) }
        try txn.prefetch(keys: metaKeys, in: meta)
        for (entity, numbers) in records.values { try txn.prefetch(keys: numbers.map(StoreLayout.key), in: tables(for: entity).records) }
    }

    /// What a save needs of a stored record, checked (its header and indexed
    /// values): its row version, its indexed values and its to-one
    /// references, each read when asked for. It reads the stored bytes in
    /// place: ask before the transaction writes over them.
    private struct StoredRecord {
        let view: RecordView
        let entity: EntityDescription

        var version: UInt64 { view.rowVersion }

        func value(_ number: Int) -> AttributeValue? { view.value(number, of: entity) }

        var references: [UInt64?] {
            entity.toOneLinks.isEmpty ? [] : entity.links.compactMap(\.field).map { view.reference($0) }
        }
    }

    private func storedRecord(_ bytes: UnsafeRawBufferPointer, in tables: EntityTables) throws -> StoredRecord {
        let entity = tables.entity
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
