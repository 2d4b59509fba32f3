extension ManagedObjectContext {
    /// The objects `request` describes, loaded batch by batch of
    /// ``FetchRequest/fetchBatchSize`` as they are reached (1,000 when the
    /// request sets none); see ``FetchedObjects``.
    ///
    /// Matches, order, limit, offset and pending changes are those of
    /// ``fetch(_:)``, decided now in one snapshot of the store; only the
    /// objects wait. A child context fetches through its parent, whose
    /// objects are in memory already: its results are loaded at once.
    ///
    /// - Throws: as ``fetch(_:)``.
    public func fetchBatched<Object: ManagedObject>(_ request: FetchRequest<Object>) throws -> FetchedObjects<Object> {
        try fetchBatched(request, as: Object.self)
    }

    /// The objects `request` describes as instances of `type`, loaded batch
    /// by batch; see ``fetchBatched(_:)``.
    ///
    /// - Throws: as ``fetch(_:as:)``.
    public func fetchBatched<T: ManagedObject, Object: ManagedObject>(
        _ request: FetchRequest<Object>, as type: T.Type
    ) throws -> FetchedObjects<T> {
        mergeReceivedChanges()
        let untyped = request.untyped
        let fetch = try PreparedFetch(untyped, model: model)
        if T.self != ManagedObject.self { try checkClass(T.self, of: untyped) }
        let batchSize = request.fetchBatchSize == 0 ? FetchRequest<Object>.defaultBatchSize : request.fetchBatchSize
        var keys: [UInt64] = []
        var pending: [Int: ManagedObject] = [:]
        if parent != nil || fetch.readsSubentities {
            // Through the parent, or across sub-entities: the objects, made
            // now (a fetch across sub-entities merges its members' objects).
            let objects = parent != nil ? try fetchThroughParent(fetch) : try fetchAcrossSubentities(fetch)
            keys = objects.map(\.objectID.number)
            for (position, object) in objects.enumerated() { pending[position] = object }
        } else {
            let entries = try run(fetch, stored: { primaryKey, _, _ in BatchEntry.stored(primaryKey) }, pending: { .object($0) })
            keys.reserveCapacity(entries.count)
            for entry in entries {
                switch entry {
                case .stored(let key):
                    keys.append(key)
                case .object(let object):
                    pending[keys.count] = object
                    keys.append(object.objectID.number)
                }
            }
        }
        return FetchedObjects(loader: BatchLoader(
            context: self, entity: fetch.entity, batchSize: batchSize, keys: keys, pending: pending,
            prefetchPaths: parent == nil ? fetch.prefetchPaths : []))
    }

    /// The registered objects for one batch: `pending[i]` where it is set,
    /// else the stored object with primary key `keys[i]`, read in one
    /// transaction. With `failuresAsFaults`, an object whose record is gone
    /// or fails its checks is returned as a fault instead of failing the
    /// batch (reading its values reports the error).
    func loadBatch(
        _ keys: [UInt64?], of entity: EntityDescription, pending: [ManagedObject?],
        prefetching paths: [[RelationshipLink]], failuresAsFaults: Bool
    ) throws -> [ManagedObject] {
        // A fetch across sub-entities gives keys of several entities: each
        // key's entity is its tag's (see EntityFamily).
        var registry = registry(for: entity)
        var records = store.spaces(for: entity).records
        var entity = entity
        let objects: [ManagedObject] = try store.read { txn in
            try keys.indices.map { position -> ManagedObject in
                if let object = pending[position] { return object }
                let key = keys[position]!
                if !entity.ownsKey(key) {
                    entity = entity.concreteEntity(forKey: key)
                    registry = self.registry(for: entity)
                    records = store.spaces(for: entity).records
                }
                if let registered = registry.objects[key], !registered.isFault { return registered }
                try CancellationCheck.check()
                do {
                    let object = try StoreLayout.withKey(key) { keyBytes in
                        try records.withValue(forKey: keyBytes, in: txn) { bytes in
                            _ = try store.validatedRecord(bytes, of: entity)
                            return registeredObject(for: entity, primaryKey: key, record: bytes, in: registry)
                        }
                    }
                    guard let object else { throw KuraError.objectNotFound(ObjectID(entity: entity, number: key, isTemporaryID: false)) }
                    return object
                } catch {
                    if failuresAsFaults { return object(of: entity, primaryKey: key) }
                    throw error
                }
            }
        }
        if !paths.isEmpty { try prefetch(paths, of: objects) }
        return objects
    }

    /// Lets go of a batch's objects: each one that has no unsaved changes
    /// and that nothing outside the context holds (no reference but the
    /// context's own registry) leaves the context. Empties `objects`.
    func letGo(of objects: inout [ManagedObject]) {
        let identities = objects.map { (IdentityKey($0.entity), $0.objectID.registryKey, $0.objectID.isTemporaryID) }
        objects = []
        for (entity, key, isTemporary) in identities where !isTemporary {
            registries[entity]?.objects.removeIfUnused(primaryKey: key)
        }
    }
}

/// One result of a batched fetch before its objects load.
private enum BatchEntry {
    case stored(UInt64)
    case object(ManagedObject)
}
