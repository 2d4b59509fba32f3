/// Batch requests (``BatchUpdateRequest``, ``BatchInsertRequest``,
/// ``BatchDeleteRequest``) in the store: each is one write transaction that
/// finds its records with the query planner, in that transaction, and
/// writes them through the save's own phases (indexes, unique constraints,
/// relationship entries, the history), without making an object.
extension PersistentStore {
    /// What a batch wrote.
    struct BatchOutcome {
        var changes = ContextChanges()
    }

    /// Runs `build` in one write transaction and writes the change set it
    /// returns there: what `build` reads is what the write changes.
    func writeBatch(author: String?, _ build: (StoreTransaction) throws -> ChangeSet) throws -> (ChangeSet, SaveResult) {
        var built = ChangeSet()
        let result = try save(building: { txn in
            var changes = try build(txn)
            if options.tracksHistory {
                changes.history = ChangeSet.History(author: author, updatedKeys: changes.updates.map { update in
                    let entity = update.objectID.entity
                    return (update.changedAttributes?.elements ?? []).map { entity.attributes[$0].name }
                        + update.changedRelationships.elements.map { entity.relationships[$0].name }
                })
            }
            built = changes
            return changes
        })
        return (built, result)
    }

    /// The primary keys of the records `fetch` matches (each concrete
    /// entity's, for a fetch that reads sub-entities), read in `txn`.
    func matchingKeys(of fetch: PreparedFetch, in txn: StoreTransaction) throws -> [(EntityDescription, [UInt64])] {
        let parts = fetch.readsSubentities ? try fetch.memberEntities.map { try fetch.part(for: $0, model: model) } : [fetch]
        return try parts.map { part in
            let spaces = spaces(for: part.entity)
            let plan = try QueryPlanner.plan(part, spaces: spaces, store: self, changedEntities: [], in: txn)
            let query = StoreQuery(fetch: part, plan: plan, spaces: spaces, store: self, excluded: [])
            var keys: [UInt64] = []
            let streamed = try query.streamInOrder(in: txn, graph: query.graph(in: txn)) { key, _ in keys.append(key) }
            if !streamed { keys = try query.rows(in: txn).map(\.number) }
            return (part.entity, keys)
        }
    }

    /// Says at once which records (and, with `members`, which to-many
    /// entries) a batch is about to read one by one: on an engine whose
    /// reads are requests (PostgreSQL), one request for all of them.
    func readAhead(_ roots: [(EntityDescription, [UInt64])], members: Bool, in txn: StoreTransaction) throws {
        try txn.readAhead { plan in
            for (entity, keys) in roots {
                plan.read(keys: keys.map(StoreLayout.key), in: spaces(for: entity).records)
                guard members else { continue }
                for link in entity.links where link.isToMany {
                    plan.read(ranges: keys.map { .prefix(StoreLayout.key($0)) }, in: storage(of: link).memberSpace(in: self))
                }
            }
        }
    }

    /// The stored record of `key`, copied (a batch reads before it writes
    /// in the same transaction).
    func storedRecordBytes(_ key: UInt64, of entity: EntityDescription, in txn: StoreTransaction) throws -> [UInt8]? {
        try spaces(for: entity).records.value(forKey: StoreLayout.key(key), in: txn)
    }

    /// The to-one references a record holds, in the entity's order of to-ones.
    func references(in record: [UInt8], of entity: EntityDescription) -> [UInt64?] {
        guard !entity.toOneLinks.isEmpty else { return [] }
        return record.withUnsafeBytes { bytes in
            let view = RecordView(trusted: bytes)
            return entity.links.compactMap(\.field).map { view.reference($0) }
        }
    }

    /// An update that sets `values` (by attribute position) in the stored
    /// `record` and keeps everything else, references included (with
    /// `references` instead when given).
    func batchUpdate(
        of key: UInt64, entity: EntityDescription, record: [UInt8], setting values: [Int: AttributeValue?],
        references: [UInt64?]? = nil, changedRelationships: AttributeMask = AttributeMask()
    ) -> ChangeSet.Update {
        var all = ContiguousArray<AttributeValue?>(repeating: nil, count: entity.attributes.count)
        var changed = AttributeMask()
        for (number, value) in values {
            all[number] = value
            changed.insert(number)
        }
        let version = record.withUnsafeBytes { RecordView(trusted: $0).rowVersion }
        let update = ChangeSet.Update(
            objectID: ObjectID(entity: entity, number: key, isTemporaryID: false), values: all,
            references: (references ?? self.references(in: record, of: entity)).map { $0.map(ChangeSet.Reference.stored) },
            expectedVersion: version, rewritesRecord: true,
            unloaded: ChangeSet.Unloaded(record: record, loaded: changed), changedAttributes: changed)
        update.changedRelationships = changedRelationships
        return update
    }
}
