extension ManagedObjectContext {
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
              parent == nil, request.allowsIndexes,
              request.sortDescriptors.isEmpty, request.fetchOffset == 0, request.fetchLimit >= 0, request.fetchBatchSize >= 0,
              request.relationshipKeyPathsForPrefetching.isEmpty,
              let entity = try? model.requireEntity(of: request), entity === box.entity, entity.family == nil,
              !(request.includesPendingChanges && pending.contains(where: { $0.entity === entity }))
        else { return nil }
        let spaces = store.spaces(for: entity)
        guard let index = spaces.indexes.first(where: { $0.description.name == lookup.indexName }), index.isUsableForQueries else {
            return nil
        }
        let registry = registry(for: entity)
        // The index key decides, or the record found is checked against the predicate.
        let predicate = lookup.decidesMatch ? nil : try box.compiled()
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
