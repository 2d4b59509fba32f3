extension ManagedObjectContext {
    /// The objects a template finds with `value(i)` for the variable at
    /// position `i` of its ``FetchRequestTemplate/variableList``: what
    /// ``fetch(_:)`` of ``FetchRequestTemplate/request(_:)`` returns. A
    /// template that ``FetchRequestTemplate/looksUpDirectly`` makes no
    /// request: the values become the index key, and the entry and its
    /// record are read in one transaction.
    @usableFromInline
    func fetchObjects(template: FetchRequestTemplate, _ value: (Int) throws -> Any) throws -> [ManagedObject] {
        // A slow-fetch report names the request's plan: the general path.
        if store.eventReporter == nil, let (lookup, key) = try template.directLookup(value) {
            mergeReceivedChanges()
            if let found = try fetchUnique(key, lookup, of: template.entity, includesPendingChanges: template.request.includesPendingChanges,
                                           predicate: nil) {
                return found
            }
        }
        return try fetchObjects(try template.request(value))
    }

    /// The results of a request made from a template whose predicate looks
    /// up a unique index (`objectId == $objectId`), found without building a
    /// fetch or a plan: the index entry, then the record, in one read
    /// transaction. What ``fetch(_:)`` would return, or `nil` when the
    /// request needs the general path: a child context, sorts, an offset,
    /// prefetching, indexes turned off, or unsaved changes of the entity
    /// that the fetch must see.
    func fetchByTemplateLookup(_ request: FetchRequest<ManagedObject>) throws -> [ManagedObject]? {
        // The box's key and the template's index as they are: a
        // `PlannedLookup` made of them costs a copy and its release each lookup.
        guard let box = request.compiledPredicate, let key = box.lookupKey, let lookup = box.template.lookup,
              request.allowsIndexes,
              request.sortDescriptors.isEmpty, request.fetchOffset == 0, request.fetchLimit >= 0, request.fetchBatchSize >= 0,
              request.relationshipKeyPathsForPrefetching.isEmpty,
              let entity = try? model.requireEntity(of: request), entity === box.entity
        else { return nil }
        // The index key decides, or the record found is checked against the predicate.
        return try fetchUnique(key, lookup, of: entity, includesPendingChanges: request.includesPendingChanges,
                               predicate: lookup.decidesMatch ? nil : try box.compiled())
    }

    /// The object (none or one) whose entry in `lookup`'s unique index is
    /// `key`, matching `predicate` when one is given; `nil` when the lookup
    /// can't answer alone: a child context, an entity of a family or of
    /// another model, the index not usable, or unsaved changes of the
    /// entity to include.
    private func fetchUnique(
        _ key: [UInt8], _ lookup: FetchRequestTemplate.UniqueLookup, of entity: EntityDescription,
        includesPendingChanges: Bool, predicate: CompiledPredicate?
    ) throws -> [ManagedObject]? {
        guard parent == nil, !entity.isInFamily, let spaces = store.spacesIfOwned(entity),
              !(includesPendingChanges && pending.contains(where: { $0.entity === entity })),
              let index = spaces.indexes.first(where: { $0.description.name == lookup.indexName }), index.isUsableForQueries else {
            return nil
        }
        let registry = registry(for: entity)
        return try store.readOneRequest { txn -> [ManagedObject] in
            try CancellationCheck.check()
            let found = try store.withUniqueRecord(key, in: index, of: spaces, txn) { primaryKey, bytes -> ManagedObject? in
                // An object keeps its record: check all of it first.
                let view = try store.validatedRecord(bytes, of: entity)
                if let predicate, try !predicate.evaluate(on: RecordSource(view: view, entity: entity, primaryKey: primaryKey)) {
                    return nil
                }
                return registeredObject(for: entity, primaryKey: primaryKey, record: bytes, in: registry)
            }
            return (found ?? nil).map { [$0] } ?? []
        }
    }
}
