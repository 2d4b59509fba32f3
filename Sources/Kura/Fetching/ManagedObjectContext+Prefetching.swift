import KuraLMDB

extension ManagedObjectContext {
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
    private func prefetch(_ link: RelationshipLink, of objects: [ManagedObject], in txn: borrowing Transaction) throws -> [ManagedObject] {
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
    private func loadedObject(of entity: EntityDescription, primaryKey: UInt64, in txn: borrowing Transaction) throws -> ManagedObject? {
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
