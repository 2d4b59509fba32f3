extension ManagedObjectContext {
    /// The IDs each of `objects` holds in the relationship called `key`, as
    /// ``ManagedObject/objectIDs(forRelationshipNamed:)`` gives them for one,
    /// in the order of `objects`. The stored to-many members of all of them
    /// are read in one read of the store, not one each: for code that walks
    /// many objects' relationships (an export, a report).
    ///
    /// ```swift
    /// let news = try context.fetch(FetchRequest<News>())
    /// let tagIDs = try context.objectIDs(for: \News.tags, of: news)   // typed (below)
    /// ```
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)`` when an object's
    ///   entity has no relationship called `key`;
    ///   ``KuraError/objectInAnotherContext(_:)`` for an object of another
    ///   context; as ``ManagedObject/objectIDs(forRelationshipNamed:)``.
    public func objectIDs(forRelationshipNamed key: String, of objects: [ManagedObject]) throws -> [[ObjectID]] {
        var ids: [[ObjectID]] = []
        ids.reserveCapacity(objects.count)
        var stored: [(position: Int, link: RelationshipLink, owner: UInt64)] = []
        for object in objects {
            let link = try object.anyLink(key)
            switch try object.destinationIDs(link) {
            case .known(let known):
                ids.append(known)
            case .storedMembers(let context):
                guard context === self else { throw KuraError.objectInAnotherContext(object.objectID) }
                stored.append((ids.count, link, object.objectID.registryKey))
                ids.append([])
            }
        }
        guard !stored.isEmpty else { return ids }
        if parent != nil {
            for (position, link, owner) in stored { ids[position] = link.destinationIDs(try memberKeys(of: link, owner: owner)) }
            return ids
        }
        try readStore { txn in
            for (position, link, owner) in stored {
                ids[position] = link.destinationIDs(try store.memberKeys(of: link, owner: owner, in: txn))
            }
        }
        return ids
    }
}

extension RelationshipLink {
    /// The saved objects of the destination entity with primary keys `keys`.
    func destinationIDs(_ keys: [UInt64]) -> [ObjectID] {
        keys.map { ObjectID(entity: destination, number: $0, isTemporaryID: false) }
    }
}

extension ManagedObjectContext {
    /// ``objectIDs(forRelationshipNamed:of:)`` typed by key path:
    /// `try context.objectIDs(for: \News.tags, of: news)`.
    ///
    /// - Throws: as ``objectIDs(forRelationshipNamed:of:)``; a key path that
    ///   isn't one of the class's relationships is
    ///   ``KuraError/unknownAttribute(entity:key:)``.
    public func objectIDs<Object: ManagedObject, Value: RelationshipValue>(
        for keyPath: KeyPath<Object, Value>, of objects: [Object]
    ) throws -> [[ObjectID]] {
        try objectIDs(forRelationshipNamed: PropertyKeyPathNames.path(of: keyPath), of: objects)
    }
}
