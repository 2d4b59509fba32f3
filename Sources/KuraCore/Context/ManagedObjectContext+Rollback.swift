extension ManagedObjectContext {
    /// Undoes every change since the last save: inserted objects leave the
    /// context, deleted ones come back, changed ones get their stored values
    /// again.
    public func rollback() {
        defer { checkInvariants(after: "rollback()") }
        for object in pending {
            switch object.state {
            case .inserted:
                temporaries[object.objectID.number] = nil
                object.state = .detached
                object.leaveContext()
            case .deleted:
                object.state = .persisted
                object.discardChanges()
            case .persisted:
                object.discardChanges()
            default:
                break
            }
            object.isInPendingList = false
        }
        pending.removeAll()
        for object in unprocessed { object.isInUnprocessedList = false }
        unprocessed.removeAll()
    }

    /// Forgets every object: the context is as new. Objects it held are
    /// detached; values they had loaded can still be read, but they can't be
    /// changed or saved. Fetch again for fresh objects.
    public func reset() {
        defer { checkInvariants(after: "reset()") }
        for object in registeredObjects + pending {
            object.state = .detached
            object.leaveContext()
            object.isInPendingList = false
            object.isInUnprocessedList = false
        }
        registries.removeAll()
        temporaries.removeAll()
        pending.removeAll()
        unprocessed.removeAll()
    }

    /// Brings `object` up to date with the store.
    ///
    /// - With `mergeChanges` false, unsaved changes to the object (a deletion
    ///   included) are dropped and it becomes a fault: its values load from
    ///   the store when next read.
    /// - With `mergeChanges` true, the stored values are read now and the
    ///   object's unsaved changes are applied on top of them; its deletion
    ///   stays. Afterwards the changes are compared with the new stored
    ///   values, and a save checks against the new row version.
    ///
    /// ``ManagedObject/awakeFromFetch()`` runs when the values load. An
    /// inserted object has nothing stored and is left as it is; so is one
    /// that left its context. Refreshing an object of another context is a
    /// programming error and stops the program with a message.
    ///
    /// - Throws: ``KuraError/objectNotFound(_:)`` when merging and the object
    ///   is gone from the store (it is left as it was).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) throws {
        defer { checkInvariants(after: "refresh(_:mergeChanges:)") }
        guard object.context === self else {
            if object.managedObjectContext == nil { return }  // not in a context: nothing to refresh
            fatalError("refresh(_:mergeChanges:): \(object.objectID) belongs to another context")
        }
        switch object.state {
        case .persisted, .deleted:
            break
        default:
            return
        }
        guard mergeChanges else {
            object.state = .persisted
            object.record = nil
            object.discardChanges()
            return
        }
        let local = object.values
        let changed = object.changedAttributes.elements
        let relationships = object.relationshipStates
        let changedRelationships = object.changedRelationships
        let record = try loadRecord(of: object)
        object.record = record
        object.discardChanges()
        try object.loadValues()
        for number in changed where !local.isEmpty {
            object.values[number] = local[number]
            if object.committedValue(number) != local[number] { object.changedAttributes.insert(number) }
        }
        // Changed relationships keep their changes; members are read again.
        for number in changedRelationships.elements {
            object.prepareRelationships()
            switch relationships.isEmpty ? .unloaded : relationships[number] {
            case .toMany(let toMany):
                toMany.setMembers(nil)
                object.relationshipStates[number] = .toMany(toMany)
            case let kept:
                object.relationshipStates[number] = kept
            }
            object.changedRelationships.insert(number)
        }
        object.withoutTrackingChanges { object.awakeFromFetch() }
        if object.hasChanges { noteChange(object) }
    }
}
