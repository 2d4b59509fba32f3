extension ManagedObjectContext {
    /// The objects `request` describes.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        let entity = try model.requireEntity(named: request.entityName)
        let registry = registry(for: entity)
        var objects: [ManagedObject] = try store.read { txn in
            var found: [ManagedObject] = []
            try store.forEachRecord(of: entity, in: txn) { key, view in
                let object = registeredObject(for: entity, primaryKey: key, record: view.bytes, in: registry)
                if !(request.includesPendingChanges && object.isDeleted) { found.append(object) }
                return true
            }
            return found
        }
        if request.includesPendingChanges {
            objects += pending.filter { $0.isInserted && $0.entity === entity }
        }
        let start = min(request.fetchOffset, objects.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, objects.count) : objects.count
        return Array(objects[start..<end])
    }

    /// The objects `request` describes, as `type`.
    public func fetch<T: ManagedObject>(_ request: FetchRequest, as type: T.Type) throws -> [T] {
        try fetch(request).map { object in
            guard let typed = object as? T else { throw KuraError.classNotInModel("\(T.self)") }
            return typed
        }
    }

    /// How many objects `request` would fetch.
    public func count(for request: FetchRequest) throws -> Int {
        try fetch(request).count
    }
}
