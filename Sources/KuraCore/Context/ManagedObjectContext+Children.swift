/// The numbers of temporary IDs, shared by a context and its children.
final class TemporaryNumbers {
    private var next: UInt64

    init(next: UInt64) {
        self.next = next
    }

    func take() -> UInt64 {
        defer { next += 1 }
        return next
    }
}

extension ManagedObjectContext {
    /// A context whose ``save()`` pushes its changes into this one instead
    /// of the store: Core Data's child context (a context whose parent is
    /// another context). Use it for an edit that may be thrown away: make
    /// the changes in the child, then save it (they become this context's
    /// unsaved changes) or just drop it.
    ///
    /// ```swift
    /// let editor = context.newChildContext()
    /// let draft = try editor.existingObject(with: news.objectID, as: News.self)
    /// draft.title = "Edited"
    /// try editor.save()        // news.title is "Edited" now; nothing is written yet
    /// try context.save()       // written
    /// ```
    ///
    /// What the child sees is this context as it is, unsaved changes
    /// included: an object loads the values and relationships this context
    /// holds for it (an object inserted here too, under its temporary ID),
    /// and a fetch runs in this context and then applies the child's own
    /// changes. Use the child in the same isolation domain as this context.
    ///
    /// Hooks and validation, as Core Data runs them for nested contexts:
    /// `awakeFromInsert` runs once, where the object is inserted (not again
    /// when a child's save brings it here); `awakeFromFetch` runs when the
    /// child loads an object from this context; each save, the child's
    /// included, runs `willSave` and validation for the objects it saves,
    /// and `didSave` after; `prepareForDeletion` and delete rules run in the
    /// context where `delete(_:)` is called (and again, doing nothing new,
    /// where the child's save deletes it here).
    ///
    /// A child's objects keep the IDs they had when it loaded them: after
    /// this context saves, objects inserted before have permanent IDs here
    /// but temporary ones in the child. Make a new child for the next edit.
    public func newChildContext() -> ManagedObjectContext {
        ManagedObjectContext(parent: self)
    }

    // MARK: What the parent gives its children

    /// The record a child reads for `id`: this context's current values and
    /// to-one destinations of the object, encoded as the store would keep
    /// them (an object this context inserted is referred to by its
    /// temporary number with ``ObjectID/temporaryKeyFlag``).
    func currentRecord(of id: ObjectID) throws(KuraError) -> [UInt8] {
        let object = try currentObject(id)
        try object.loadValues()
        let references = try object.entity.toOneLinks.map { link throws(KuraError) in
            try object.destination(link).map(\.objectID.registryKey)
        }
        return RecordFormat.encode(object.values, references: references, rowVersion: 0, layout: object.entity.layout)
    }

    /// The keys of the current members of `owner`'s to-many `link`, as
    /// ``currentRecord(of:)`` refers to objects.
    func currentMemberKeys(of link: RelationshipLink, owner: ObjectID) throws(KuraError) -> [UInt64] {
        try currentObject(owner).members(link).map(\.objectID.registryKey)
    }

    /// This context's object for `id`, unless it is deleted here.
    private func currentObject(_ id: ObjectID) throws(KuraError) -> ManagedObject {
        let object: ManagedObject
        do {
            object = try self.object(with: id)
        } catch {
            throw KuraError.objectNotFound(id)
        }
        guard object.state == .persisted || object.state == .inserted else { throw KuraError.objectNotFound(id) }
        return object
    }

    // MARK: Fetching in a child

    /// The objects of a fetch in a child context: the parent's results (its
    /// unsaved changes applied), as this context's objects, with this
    /// context's own changes applied; then sorted, offset and limited.
    func fetchThroughParent(_ fetch: PreparedFetch) throws -> [ManagedObject] {
        guard let parent else { preconditionFailure("only a child context fetches through its parent") }
        var request = fetch.request
        request.fetchLimit = 0
        request.fetchOffset = 0
        request.resultType = .managedObject
        request.relationshipKeyPathsForPrefetching = []
        let ownChanges = request.includesPendingChanges
        var objects: [ManagedObject] = []
        for found in try parent.fetch(request) {
            let object = self.object(of: found.entity, primaryKey: found.objectID.registryKey)
            if ownChanges && object.hasChanges { continue }   // judged on its own values below
            objects.append(object)
        }
        if ownChanges {
            // A sub-entity's object is judged by the predicate compiled for
            // its entity (`entity == 'Video'` differs by entity).
            var predicates: [ObjectIdentifier: CompiledPredicate?] = [ObjectIdentifier(fetch.entity): fetch.predicate]
            for object in pending where fetch.reads(object.entity) && (object.isInserted || object.isUpdated) {
                let key = ObjectIdentifier(object.entity)
                if predicates[key] == nil { predicates[key] = try fetch.part(for: object.entity, model: model).predicate }
                if try predicates[key]!?.evaluate(on: object) ?? true { objects.append(object) }
            }
        }
        if !fetch.sorts.isEmpty {
            let ordering = RowOrdering(sorts: fetch.sorts)
            var rows = try objects.map { object in
                try object.loadValues()
                return SortableRow(keys: try ordering.keys(of: ObjectSource(object: object)),
                                   tier: object.isInserted ? 1 : 0, number: object.objectID.number, payload: object)
            }
            ordering.sort(&rows)
            objects = rows.map(\.payload)
        }
        let start = min(fetch.offset, objects.count)
        let end = fetch.limit.map { min($0, objects.count - start) + start } ?? objects.count
        return Array(objects[start..<end])
    }

    // MARK: Saving a child

    /// The end of a child's ``save()``: its changes become the parent's
    /// unsaved changes. Everything is read from the child first, so the
    /// parent is changed only once nothing more can fail.
    func push(into parent: ManagedObjectContext) throws {
        let saving = pending.filter(\.hasChanges)
        struct Change {
            let object: ManagedObject
            var values: [(Int, AttributeValue?)] = []
            var destinations: [(RelationshipLink, ObjectID?)] = []
            var members: [(RelationshipLink, [ObjectID])] = []
        }
        var changes: [Change] = []
        for object in saving where object.state == .inserted || object.state == .persisted {
            try object.loadValues()
            var change = Change(object: object)
            let inserted = object.state == .inserted
            let attributes = inserted ? Array(object.entity.attributes.indices) : object.changedAttributes.elements
            change.values = attributes.map { ($0, object.values[$0]) }
            for link in object.entity.links where !object.relationshipStates.isEmpty
                && (inserted || object.changedRelationships.contains(link.number)) {
                if case .unloaded = object.relationshipStates[link.number] { continue }
                if link.isToMany {
                    change.members.append((link, try object.members(link).map(\.objectID)))
                } else {
                    change.destinations.append((link, try object.destination(link)?.objectID))
                }
            }
            changes.append(change)
        }
        let deleted = saving.filter(\.isDeleted).map(\.objectID)

        // Apply: inserted objects first, so references to them resolve.
        for change in changes where change.object.state == .inserted {
            let object = change.object
            let copy = object.entity.managedObjectClass.init(entity: object.entity, insertInto: nil)
            parent.adoptInserted(copy, number: object.objectID.number)
        }
        func resolve(_ id: ObjectID) throws -> ManagedObject { try parent.object(with: id) }
        for change in changes {
            let target = try resolve(change.object.objectID)
            for (number, value) in change.values {
                try target.setValue(value, forKey: target.entity.attributes[number].name)
            }
            // What the child's awakeFromInsert set stays a default in the parent (see MergePolicy).
            if change.object.state == .inserted { target.changedAttributes = change.object.changedAttributes }
            for (link, destination) in change.destinations {
                try target.setDestination(try destination.map(resolve), link)
            }
            for (link, members) in change.members {
                try target.setMembers(try members.map(resolve), link)
            }
        }
        for id in deleted {
            if let object = parent.registeredObject(for: id) ?? (id.isTemporaryID ? nil : try? resolve(id)) {
                parent.delete(object)
            }
        }

        // The child's objects now match the parent's.
        var saved = ContextChanges()
        for change in changes {
            let object = change.object
            if object.state == .inserted {
                temporaries[object.objectID.number] = nil
                object.state = .persisted
                registry(for: object.entity).objects[object.objectID.registryKey] = object
                saved.inserted.append(object.objectID)
            } else {
                saved.updated.append(object.objectID)
            }
            object.discardChanges()
            object.record = try? parent.currentRecord(of: object.objectID)
        }
        finishSave(saving, deleted: saving.filter(\.isDeleted), into: &saved)
        post(Self.didSaveNotification, changes: saved)
    }

    /// Registers `object`, new, as inserted with the temporary number a
    /// child gave it, without `awakeFromInsert` (it ran in the child).
    private func adoptInserted(_ object: ManagedObject, number: UInt64) {
        object.objectID = ObjectID(entity: object.entity, number: number, isTemporaryID: true)
        object.context = self
        object.state = .inserted
        object.values = object.entity.newObjectValues()
        object.isFullyDecoded = true
        temporaries[number] = object
        noteChange(object)
    }
}
