extension ManagedObjectContext {
    /// Writes every insertion, change and deletion to the store in one write
    /// transaction.
    ///
    /// In order:
    /// 1. ``processPendingChanges()`` announces unannounced changes, then
    ///    ``willSaveNotification`` is posted;
    /// 2. ``ManagedObject/willSave()`` runs once for each object to write.
    ///    Objects first changed inside a `willSave` get their own call in a
    ///    further round; after ``maximumWillSavePasses`` rounds the save
    ///    throws ``KuraError/willSaveDidNotSettle(passes:objectIDs:)``;
    /// 3. `validateForInsert`/`validateForUpdate`/`validateForDelete` run for
    ///    every object, and all failures are thrown together as
    ///    ``KuraError/validationFailed(_:)``;
    /// 4. records, index entries and ID counters are written and committed
    ///    together; new objects get permanent IDs;
    /// 5. ``ManagedObject/didSave()`` runs for each written object, then
    ///    ``didSaveNotification`` is posted.
    ///
    /// If any step throws, nothing is written and every pending change stays
    /// in the context (including what `willSave` set), so you can fix the
    /// cause and save again.
    ///
    /// - Throws: ``KuraError/validationFailed(_:)``,
    ///   ``KuraError/uniqueConstraintViolated(entity:index:values:objectID:)``,
    ///   ``KuraError/conflict(objectIDs:)``, ``KuraError/storeFull(maximumBytes:)``,
    ///   ``KuraError/willSaveDidNotSettle(passes:objectIDs:)``,
    ///   ``KuraError/storeClosed(path:)``, ``KuraError/storeReadOnly(path:)``,
    ///   ``KuraError/saveInProgress`` when called from inside a save's hook,
    ///   ``KuraError/storage(path:failure:)``.
    public func save() throws {
        if isSaving { throw KuraError.saveInProgress }
        if let error = deferredErrors.first {
            deferredErrors.removeAll()
            throw error
        }
        processPendingChanges()
        compactPending()
        guard !pending.isEmpty else { return }
        isSaving = true
        defer { isSaving = false }

        post(Self.willSaveNotification, changes: ContextChanges())
        if runsObjectHooks { try runWillSave() }
        compactPending()
        try validatePending()
        if let parent {
            try push(into: parent)
            return
        }

        let saving = pending
        let written = try changeSet(of: saving)
        var result = try store.save(written.changes)

        // Committed: adopt what was written.
        var saved = ContextChanges()
        adoptInserted(written.inserted, result: &result, into: &saved)
        adoptUpdated(written.updated, result: &result, into: &saved)
        finishSave(saving, deleted: written.deleted, into: &saved)
        store.broadcast(saved, from: mergesAutomatically ? inbox : nil)
        store.observers.deliver(saved, from: ObjectIdentifier(self))
        post(Self.didSaveNotification, changes: saved)
    }

    /// What a save writes, and the objects it writes for, by what happens to them.
    struct SaveWrite {
        var changes = ChangeSet()
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        var deleted: [ManagedObject] = []
    }

    /// The change set of the objects `saving` (the pending list): their
    /// records, references, memberships, and the history entry.
    private func changeSet(of saving: [ManagedObject]) throws -> SaveWrite {
        var write = SaveWrite()
        for object in saving where object.state == .inserted { write.inserted.append(object) }
        let inserted = write.inserted
        // Built on the first reference: a save of objects without relationships never needs it.
        var insertPositions: [IdentityKey: Int]?
        func reference(_ object: ManagedObject?) -> ChangeSet.Reference? {
            guard let object else { return nil }
            if insertPositions == nil {
                insertPositions = Dictionary(uniqueKeysWithValues: inserted.enumerated().map { (IdentityKey($1), $0) })
            }
            if let position = insertPositions![IdentityKey(object)] { return .inserted(position) }
            switch object.state {
            case .persisted, .deleted: return .stored(object.objectID.number)
            default: return nil  // never saved, or gone: nothing to point to
            }
        }
        write.changes.inserts.reserveCapacity(inserted.count)
        // One pass over the objects for their records and memberships
        // (inserts, then updates, in order): each pass over a large save
        // touches every object's memory again.
        for object in inserted {
            try object.loadValues()
            write.changes.inserts.append(.init(
                objectID: object.objectID, values: object.values, references: toOneReferences(of: object, reference),
                changedAttributes: object.changedAttributes))
            try membershipChanges(of: object, reference, into: &write.changes.memberships)
        }
        for object in saving {
            switch object.state {
            case .persisted:
                let rewritesRecord = object.rewritesRecordWhenSaved
                let unloaded = rewritesRecord ? try object.valuesForSave() : nil
                let update = ChangeSet.Update(
                    objectID: object.objectID, values: rewritesRecord ? object.values : [],
                    references: rewritesRecord ? toOneReferences(of: object, reference) : [],
                    expectedVersion: expectedVersion(of: object), rewritesRecord: rewritesRecord, unloaded: unloaded,
                    changedAttributes: object.hasUntrackedValues ? nil : object.changedAttributes, readRecord: object.record)
                update.changedRelationships = object.changedRelationships
                write.changes.updates.append(update)
                try membershipChanges(of: object, reference, into: &write.changes.memberships)
                write.updated.append(object)
            case .deleted:
                write.changes.deletes.append(.init(objectID: object.objectID, expectedVersion: expectedVersion(of: object)))
                write.deleted.append(object)
            case .inserted, .unregistered, .removed, .detached:
                break
            }
        }
        write.changes.mergePolicy = mergePolicy
        if store.options.tracksHistory {
            write.changes.history = ChangeSet.History(author: transactionAuthor, updatedKeys: write.updated.map { object in
                object.changedAttributes.elements.map { object.entity.attributes[$0].name }
                    + object.changedRelationships.elements.map { object.entity.relationships[$0].name }
            })
        }
        return write
    }

    /// Inserted objects after their save: permanent IDs, the stored record
    /// (moved out of `result`, not copied), registered under their keys.
    private func adoptInserted(_ inserted: [ManagedObject], result: inout SaveResult, into saved: inout ContextChanges) {
        saved.inserted.reserveCapacity(inserted.count)
        // Every inserted object saved (the usual case): the temporary
        // numbers go at once, not one dictionary removal each.
        let savesEveryInsert = inserted.count == temporaries.count
        if savesEveryInsert { temporaries.removeAll() }
        var registry: EntityRegistry?  // the current run's entity's: not a dictionary lookup per object
        for (position, object) in inserted.enumerated() {
            if !savesEveryInsert { temporaries[object.objectID.number] = nil }
            let primaryKey = result.insertedKeys[position]
            object.objectID = ObjectID(entity: object.entity, number: primaryKey, isTemporaryID: false)
            if !result.mergedInserts.isEmpty, let merge = result.mergedInserts[position] {
                adoptUpserted(object, merge, record: result.insertedRecords[position], into: &saved)
                continue
            }
            swap(&object.record, &result.insertedRecords[position])
            object.hasUntrackedValues = false
            object.state = .persisted
            object.changedAttributes.removeAll()
            if registry == nil || object.entity !== inserted[position - 1].entity {
                registry = self.registry(for: object.entity)
                let runEnd = inserted[position...].firstIndex { $0.entity !== object.entity } ?? inserted.endIndex
                registry!.objects.reserveCapacity(registry!.objects.count + runEnd - position)
            }
            registry!.objects[primaryKey] = object
            object.adoptSavedRelationships()
            saved.inserted.append(object.objectID)
        }
    }

    /// An inserted object the save merged into a stored object, or into an
    /// earlier insert, by its unique values (see ``MergePolicy``).
    ///
    /// The object takes the ID of the object it merged into. When this
    /// context holds no other object for that ID, it is that object from now
    /// on (saved, reading the merged values). Otherwise the object the
    /// context holds reads the merged values, and this one leaves the
    /// context: its ID names the one to use.
    private func adoptUpserted(
        _ object: ManagedObject, _ merge: SaveResult.MergedInsert, record: [UInt8]?, into saved: inout ContextChanges
    ) {
        let registry = self.registry(for: object.entity)
        let key = object.objectID.number
        if let holder = registry.objects[key], holder !== object {
            if holder.state == .persisted && !holder.hasChanges {
                if let record { holder.record = record }
                holder.discardChanges()
                if case .intoStored = merge { saved.updated.append(holder.objectID) }
            }
            object.state = .removed
            object.changedAttributes.removeAll()  // its values stay readable
            object.leaveContext()
            return
        }
        object.record = record
        object.state = .persisted
        object.discardChanges()
        registry.objects[key] = object
        saved.updated.append(object.objectID)
    }

    /// Updated objects after their save: the record as stored, no changes
    /// left. An object whose conflict was settled by its merge policy reads
    /// the stored values again, or leaves the context when the policy let a
    /// deletion elsewhere stand.
    private func adoptUpdated(_ updated: [ManagedObject], result: inout SaveResult, into saved: inout ContextChanges) {
        for (position, object) in updated.enumerated() {
            if !result.settledUpdates.isEmpty, let settled = result.settledUpdates[position] {
                switch settled {
                case .refreshed:
                    object.record = result.updatedRecords[position]
                    object.discardChanges()
                    saved.updated.append(object.objectID)
                case .deleted:
                    forget(object)
                    saved.deleted.append(object.objectID)
                }
                continue
            }
            if result.updatedRecords[position] != nil {
                swap(&object.record, &result.updatedRecords[position])
                object.hasUntrackedValues = false
            }
            object.changedAttributes.removeAll()
            object.adoptSavedRelationships()
            saved.updated.append(object.objectID)
        }
    }

    /// The end of every save, to the store or into a parent: deleted objects
    /// leave the context, the lists of changes empty, `didSave` runs.
    func finishSave(_ saving: [ManagedObject], deleted: [ManagedObject], into saved: inout ContextChanges) {
        for object in deleted {
            registries[IdentityKey(object.entity)]?.objects[object.objectID.registryKey] = nil
            object.state = .removed
            object.changedAttributes.removeAll()   // its last values stay readable
            object.leaveContext()
            saved.deleted.append(object.objectID)
        }
        let list = pending
        list.forEachUnretained { $0.isInPendingList = false }
        pending.removeAll()
        for object in unprocessed { object.isInUnprocessedList = false }
        unprocessed.removeAll()
        for object in saving where runsObjectHooks && (object.state == .persisted || object.state == .removed) {
            object.didSave()
        }
        checkInvariants(after: "a save")
    }

    /// The destination of each to-one of `object`, in the entity's order.
    private func toOneReferences(
        of object: ManagedObject, _ reference: (ManagedObject?) -> ChangeSet.Reference?
    ) -> [ChangeSet.Reference?] {
        guard !object.entity.links.isEmpty else { return [] }
        return object.entity.toOneLinks.map { link in
            if !object.relationshipStates.isEmpty, case .toOne(let destination) = object.relationshipStates[link.number] {
                return reference(destination)
            }
            return object.committedDestinationKey(link).map { .stored($0) }
        }
    }

    /// What changed in the to-manys of `object` that the store keeps itself
    /// (joined members, and the order of ordered ones: where members that
    /// joined or moved go, not the whole list).
    private func membershipChanges(
        of object: ManagedObject, _ reference: (ManagedObject?) -> ChangeSet.Reference?,
        into memberships: inout [ChangeSet.MembershipChange]
    ) throws {
        guard !object.relationshipStates.isEmpty, let owner = reference(object) else { return }
        for link in object.entity.links where link.isToMany {
            guard case .toMany(let toMany) = object.relationshipStates[link.number],
                  toMany.hasChanges || (object.state == .inserted && !toMany.added.isEmpty) else { continue }
            let joined = link.storageType.keepsMemberEntries
            guard joined || link.isOrdered else { continue }
            memberships.append(ChangeSet.MembershipChange(
                owner: owner, link: link,
                added: joined ? toMany.added.values.compactMap(reference) : [],
                removed: toMany.removed.values.compactMap(reference),
                placements: link.isOrdered ? toMany.placements(reference) : []))
        }
    }

    /// The version the context read, which the store checks at save (the
    /// merge policy says what another one means); `nil` when it read none.
    private func expectedVersion(of object: ManagedObject) -> UInt64? {
        guard let record = object.record else { return nil }
        return record.withUnsafeBytes { RecordView(trusted: $0).rowVersion }
    }

    /// Calls `willSave` once per object to save, in passes over the pending
    /// list, until a pass finds no object with changes that hasn't had its
    /// call. An object is due when its pass reaches it: one that a hook
    /// changes before its turn comes gets its call in the same pass, one
    /// that a hook added to the list gets it in the next.
    private func runWillSave() throws {
        saveNumber = saveNumber == .max ? 1 : saveNumber + 1
        let number = saveNumber
        @inline(__always) func isDue(_ object: ManagedObject) -> Bool {
            object.willSaveNumber != number && object.hasChanges
        }
        var passes = 0
        while true {
            let list = pending
            guard passes < maximumWillSavePasses else {
                let due = list.filter(isDue)
                if due.isEmpty { return }
                throw KuraError.willSaveDidNotSettle(passes: passes, objectIDs: due.map(\.objectID))
            }
            var calledAny = false
            list.forEachUnretained { object in
                guard isDue(object) else { return }
                object.willSaveNumber = number
                calledAny = true
                object.willSave()
            }
            if !calledAny { return }
            passes += 1
        }
    }

    /// Validates every object to save; throws all failures at once.
    private func validatePending() throws {
        var failures: [ValidationFailure] = []
        let list = pending  // a `validateFor…` override may change objects: the walk goes over this copy
        list.forEachUnretained { object in
            do {
                switch (object.state, runsObjectHooks) {
                case (.inserted, true): try object.validateForInsert()
                case (.persisted, true): try object.validateForUpdate()
                case (.deleted, true): try object.validateForDelete()
                case (.inserted, false), (.persisted, false): try object.validateProperties()
                case (.deleted, false): try object.validateDenyRules()
                default: break
                }
            } catch let error as KuraError where error.code == .validationFailed {
                failures += error.validationFailures
            } catch let failure as ValidationFailure {
                failures.append(failure)
            } catch {
                failures.append(ValidationFailure(objectID: object.objectID, key: nil, message: "\(error)"))
            }
            object.appendUnstorableValues(to: &failures)
        }
        if !failures.isEmpty { throw KuraError.validationFailed(failures) }
    }
}
