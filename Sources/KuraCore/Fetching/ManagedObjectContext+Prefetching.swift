extension ManagedObjectContext {
    /// The objects with these IDs, loaded rather than faults, read in one
    /// read transaction, with the relationships named in `relationships`
    /// loaded too (as ``FetchRequest/relationshipKeyPathsForPrefetching``
    /// does for a fetch): Core Data's batch faulting, for walking many
    /// objects by ID without a store read each. IDs whose objects are gone
    /// are left out; the order is the IDs' order.
    ///
    /// - Throws: ``KuraError/invalidFetchRequest(_:)`` for a relationship
    ///   an entity doesn't have; ``KuraError/storage(path:failure:)``.
    public func existingObjects(with objectIDs: [ObjectID], prefetching relationships: [String] = []) throws -> [ManagedObject] {
        mergeReceivedChanges()
        var objects: [ManagedObject] = []
        objects.reserveCapacity(objectIDs.count)
        if parent != nil || objectIDs.contains(where: \.isTemporaryID) {
            for id in objectIDs { if let object = try? existingObject(with: id) { objects.append(object) } }
        } else {
            try store.read { txn in
                for id in objectIDs {
                    if let object = try loadedObject(of: id.entity, primaryKey: id.number, in: txn), object.state != .removed {
                        objects.append(object)
                    }
                }
            }
        }
        guard !relationships.isEmpty else { return objects }
        var byEntity: [ObjectIdentifier: [ManagedObject]] = [:]
        for object in objects { byEntity[ObjectIdentifier(object.entity), default: []].append(object) }
        for group in byEntity.values {
            let entity = group[0].entity
            let paths = try relationships.map { name in
                guard let link = entity.link(named: name) else {
                    throw KuraError.invalidFetchRequest("relationship to prefetch '\(name)': \(entity.name) has no relationship '\(name)'")
                }
                return [link]
            }
            try prefetch(paths, of: group)
        }
        return objects
    }

    /// Loads the destinations of `paths` from `objects` in one read
    /// transaction: each hop's destinations (their records, not faults), and
    /// the relationship itself (a to-one's destination, a to-many's members),
    /// so reading them afterwards costs no store read.
    func prefetch(_ paths: [[RelationshipLink]], of objects: [ManagedObject]) throws {
        try store.read { txn in
            for path in paths {
                var current = objects
                for link in path {
                    current = try prefetch(link, of: current, in: txn)
                }
            }
        }
    }

    /// Loads one relationship of `objects`; returns the destinations reached.
    private func prefetch(_ link: RelationshipLink, of objects: [ManagedObject], in txn: StoreTransaction) throws -> [ManagedObject] {
        var reached: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        func reach(_ destination: ManagedObject) {
            if seen.insert(ObjectIdentifier(destination)).inserted { reached.append(destination) }
        }
        for object in objects where object.state == .persisted || object.state == .deleted {
            object.prepareRelationships()
            if link.isToMany {
                if case .toMany = object.relationshipStates[link.number] {
                    for member in try object.members(link) { reach(member) }  // changed or read already: as the object has it
                    continue
                }
                var members: [ManagedObject] = []
                try store.forEachMemberKey(of: link, owner: object.objectID.number, in: txn) { key in
                    if let member = try loadedObject(of: link.destination, primaryKey: key, in: txn) { members.append(member) }
                    return true
                }
                for member in members { reach(member) }
                let state = ToManyState()
                state.setMembers(members)
                object.relationshipStates[link.number] = .toMany(state)
            } else if case .toOne(let known) = object.relationshipStates[link.number] {
                if let known { reach(known) }
            } else {
                if object.record == nil {
                    object.record = try store.record(of: object.objectID, in: txn)
                    if object.record != nil { object.withoutTrackingChanges { object.awakeFromFetch() } }
                }
                var target: ManagedObject?
                if let key = object.committedDestinationKey(link) {
                    target = try loadedObject(of: link.destination, primaryKey: key, in: txn)
                }
                object.relationshipStates[link.number] = .toOne(target)
                if let target { reach(target) }
            }
        }
        return reached
    }

    /// The registered object with its values loaded: registered already, or
    /// made from its record; `nil` when the record is gone.
    private func loadedObject(of entity: EntityDescription, primaryKey: UInt64, in txn: StoreTransaction) throws -> ManagedObject? {
        // A relationship to a superentity holds its sub-entities' keys.
        let entity = entity.concreteEntity(forKey: primaryKey)
        let registry = registry(for: entity)
        if let registered = registry.objects[primaryKey], !registered.isFault { return registered }
        guard let record = try store.record(of: ObjectID(entity: entity, number: primaryKey, isTemporaryID: false), in: txn) else {
            return nil
        }
        return record.withUnsafeBytes { bytes in
            registeredObject(for: entity, primaryKey: primaryKey, record: bytes, in: registry)
        }
    }
}
