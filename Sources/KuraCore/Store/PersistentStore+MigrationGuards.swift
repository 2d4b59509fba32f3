/// What keeps a migration from destroying data: an older model is never
/// allowed to migrate a store back, and an inferred migration never removes
/// what holds data unless the app said it may (see the "Changing your
/// model" article).
extension PersistentStore {
    /// Throws ``KuraError/modelOlderThanStore(path:stored:given:)`` when
    /// `order` says `model` is older than the store's; changes nothing.
    func refuseOlder(_ model: ManagedObjectModel, order: ModelVersionOrder) throws {
        guard order == .older else { return }
        throw KuraError.modelOlderThanStore(
            path: path,
            stored: ModelHistoryEntry.describe(version: self.model.versionIdentifier, fingerprint: self.model.fingerprint),
            given: ModelHistoryEntry.describe(version: model.versionIdentifier, fingerprint: model.fingerprint))
    }

    /// The sub-entities `mapping` removes that still have objects, which no
    /// migration removes even when it may remove data: their superentity's
    /// index and relationship entries, which the family shares, name them.
    /// (Delete them first, or remove the whole family.)
    func removedSubentitiesWithObjects(by mapping: SchemaMapping, in txn: StoreTransaction) throws -> [MigrationFailure] {
        let kept = Set(mapping.entities.compactMap { $0.source.map(ObjectIdentifier.init) })
        return try mapping.removedEntities.compactMap { entity in
            // Part of a family that stays (some member is kept).
            guard let family = entity.family, family.members.contains(where: { kept.contains(ObjectIdentifier($0.entity)) }) else {
                return nil
            }
            let count = try spaces(for: entity).records.count(in: txn)
            return count == 0 ? nil : MigrationFailure(.subentityHasObjects(
                entity: entity.name, superentity: entity.superentity?.name ?? family.members[0].entity.name, count: count))
        }
    }

    /// The entities, attributes and relationships `mapping` removes that
    /// hold data in this store (read in `txn`), with how many objects hold it.
    ///
    /// An entity holds data when it has objects; an attribute when an
    /// object stores a value (not nil) in it; a relationship when an object
    /// has a destination or member through it, unless its inverse stays (the
    /// other side keeps the data).
    func removedData(by mapping: SchemaMapping, in txn: StoreTransaction) throws -> [MigrationFailure] {
        var failures: [MigrationFailure] = []
        func note(_ entity: String, _ property: String?, _ count: Int) {
            if count > 0 { failures.append(MigrationFailure(.wouldRemoveData(entity: entity, property: property, count: count))) }
        }
        for entity in mapping.removedEntities {
            note(entity.name, nil, try spaces(for: entity).records.count(in: txn))
        }
        let keptLinks = Set(mapping.entities.flatMap { map -> [ObjectIdentifier] in
            guard let source = map.source else { return [] }
            return map.relationshipSources.compactMap { $0.map { ObjectIdentifier(source.links[$0]) } }
        })
        for map in mapping.entities {
            guard let source = map.source else { continue }
            let spaces = spaces(for: source)
            let kept = Set(map.attributeSources.compactMap { $0 })
            let removed = source.attributes.indices.filter { !kept.contains($0) }
            if !removed.isEmpty {
                var counts = [Int](repeating: 0, count: source.attributes.count)
                try spaces.records.forEach(in: txn, readAhead: .max) { entry in
                    let record = RecordView(trusted: entry.value)
                    for number in removed {
                        if let stored = record.storedValue(ofAttribute: number, of: source),
                           stored[0] != RecordFormat.Tag.null.rawValue {
                            counts[number] += 1
                        }
                    }
                    return true
                }
                for number in removed { note(source.name, source.attributes[number].name, counts[number]) }
            }
            for storage in spaces.relationships where !keptLinks.contains(ObjectIdentifier(storage.link)) {
                let link = storage.link
                if let inverse = link.inverse, keptLinks.contains(ObjectIdentifier(inverse)) { continue }
                // (nil: the entries are its inverse's, counted there.)
                guard let entries = try storage.entryCount(in: txn) else { continue }
                note(source.name, link.name, entries)
            }
        }
        return failures
    }
}
