/// A fetch request checked against the model: the entity resolved, the
/// predicate compiled, sort keys resolved to attribute positions. A class,
/// so the query's parts share it for one reference each.
final class PreparedFetch: Sendable {
    let request: FetchRequest<ManagedObject>
    let entity: EntityDescription
    let predicate: CompiledPredicate?
    /// The unique-index lookup a template decided, if any.
    let plannedLookup: PlannedLookup?
    /// The attributes a query reads from each stored record (for the
    /// predicate and the sort): those values are checked before they are used.
    let readAttributes: [Int]
    let sorts: [PreparedSort]
    /// `nil` for no limit.
    let limit: Int?
    /// ``FetchRequest/propertiesToFetch``, resolved.
    let properties: [PreparedProperty]
    /// ``FetchRequest/relationshipKeyPathsForPrefetching``, resolved.
    let prefetchPaths: [[RelationshipLink]]
    let offset: Int

    /// How many results the store side must produce before the offset is
    /// applied: offset + limit (at most `Int.max`), or everything.
    var window: Int? { limit.map { offset.saturatingAdding($0) } }

    /// - Throws: ``KuraError/unknownEntity(_:)``, the predicate's errors,
    ///   ``KuraError/invalidFetchRequest(_:)`` for a negative limit, offset or batch size,
    ///   an unknown sort key or property.
    /// - Parameter allowingVariables: For templates: `$variables` may remain.
    init(_ request: FetchRequest<ManagedObject>, model: ManagedObjectModel, allowingVariables: Bool = false) throws {
        self.request = request
        let entity = try model.requireEntity(of: request)
        self.entity = entity
        if let box = request.compiledPredicate, box.entity === entity {
            predicate = try box.compiled()
            plannedLookup = box.lookup
        } else {
            predicate = try request.predicate.map { try $0.compiled(for: entity, allowingVariables: allowingVariables) }
            plannedLookup = nil
        }
        try Self.checkNumbers(of: request)
        limit = request.fetchLimit == 0 ? nil : request.fetchLimit
        var read = Set<Int>()
        predicate?.root.forEachAttribute { read.insert($0) }
        offset = request.fetchOffset
        sorts = try request.sortDescriptors.map { descriptor in
            if let number = entity.attributeNumber(named: descriptor.key) {
                return PreparedSort(number: number, path: nil, ascending: descriptor.ascending, comparison: descriptor.comparison)
            }
            return PreparedSort(
                number: -1, path: try Self.sortPath(descriptor.key, of: entity), ascending: descriptor.ascending,
                comparison: descriptor.comparison)
        }
        read.formUnion(sorts.map(\.number).filter { $0 >= 0 })
        readAttributes = read.sorted()
        properties = try request.propertiesToFetch.map { name in
            if let number = entity.attributeNumber(named: name) { return PreparedProperty(name: name, attribute: number, operand: nil) }
            if name == PreparedProperty.objectIDName { return PreparedProperty(name: name, attribute: nil, operand: nil) }
            do {
                return PreparedProperty(name: name, attribute: nil, operand: try FetchPredicate.propertyOperand(name, of: entity))
            } catch {
                throw KuraError.invalidFetchRequest("property to fetch '\(name)': \(error)")
            }
        }
        prefetchPaths = try request.relationshipKeyPathsForPrefetching.map { path in
            var links: [RelationshipLink] = []
            var current = entity
            for name in path.split(separator: ".", omittingEmptySubsequences: false).map(String.init) {
                guard let link = current.link(named: name) else {
                    throw KuraError.invalidFetchRequest(
                        "relationship key path to prefetch '\(path)': \(current.name) has no relationship '\(name)'")
                }
                links.append(link)
                current = link.destination
            }
            return links
        }
    }

    /// - Throws: ``KuraError/invalidFetchRequest(_:)`` for a negative limit,
    ///   offset or batch size.
    static func checkNumbers(of request: FetchRequest<ManagedObject>) throws {
    guard request.fetchLimit >= 0 else {
        throw KuraError.invalidFetchRequest("fetchLimit is \(request.fetchLimit); it must be 0 (no limit) or more")
    }
    guard request.fetchOffset >= 0 else {
        throw KuraError.invalidFetchRequest("fetchOffset is \(request.fetchOffset); it must be 0 or more")
    }
    guard request.fetchBatchSize >= 0 else {
        throw KuraError.invalidFetchRequest("fetchBatchSize is \(request.fetchBatchSize); it must be 0 (the default) or more")
    }
    }

    /// Whether `request` is a whole entity as it is: no predicate, sort,
    /// properties or prefetching, nothing that needs preparing. A count of
    /// it is the store's entry count.
    static func isWholeEntity(_ request: FetchRequest<ManagedObject>) -> Bool {
        let storage = request.storage
        return request.compiledPredicate == nil && storage.predicate == nil && storage.sortDescriptors.isEmpty
            && storage.propertiesToFetch.isEmpty && storage.relationshipKeyPathsForPrefetching.isEmpty
    }

    /// The properties of dictionary results: ``FetchRequest/propertiesToFetch``,
    /// or every attribute and relationship.
    var dictionaryProperties: [PreparedProperty] {
        if !properties.isEmpty { return properties }
        return entity.attributes.indices.map { PreparedProperty(name: entity.attributes[$0].name, attribute: $0, operand: nil) }
            + entity.links.map { link in
                PreparedProperty(name: link.name, attribute: nil, operand: .path(CompiledPath(
                    origin: .evaluated, hops: [link], attribute: nil, entity: link.destination)))
            }
    }
}

/// A property of dictionary results: an attribute of the entity, or a key
/// path through relationships (to an attribute, a relationship, or an
/// aggregate such as `tags.@count`).
struct PreparedProperty {
    /// The property that stands for the object itself: its ID.
    static let objectIDName = "SELF"

    let name: String
    let attribute: Int?
    /// The key path; `nil` with no attribute either for `SELF`, the object's ID.
    let operand: Operand?
}

/// One sort descriptor, resolved: an attribute of the entity, or a key
/// path through to-one relationships to an attribute.
struct PreparedSort {
    /// The attribute's position, or -1 for a key path.
    let number: Int
    let path: CompiledPath?
    let ascending: Bool
    let comparison: FetchSortDescriptor.Comparison
}

extension PreparedFetch {
    /// A sort key path: to-ones, then an attribute.
    static func sortPath(_ key: String, of entity: EntityDescription) throws -> CompiledPath {
        var hops: [RelationshipLink] = []
        var current = entity
        let components = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (position, name) in components.enumerated() {
            if let link = current.link(named: name), position < components.count - 1 {
                guard !link.isToMany else {
                    throw KuraError.invalidFetchRequest("sort key '\(key)': \(current.name).\(name) is a to-many relationship; sort by to-ones only")
                }
                hops.append(link)
                current = link.destination
            } else if let number = current.attributeNumber(named: name), position == components.count - 1, !hops.isEmpty {
                return CompiledPath(origin: .evaluated, hops: hops, attribute: number, entity: current)
            } else {
                break
            }
        }
        throw KuraError.invalidFetchRequest("unknown sort key '\(key)': \(entity.name) has no such attribute or key path to one")
    }

    /// The entities whose saves can change the results: the request's, and
    /// every entity a key path of the predicate, a sort or a property
    /// fetched passes through.
    var entitiesRead: Set<ObjectIdentifier> {
        // An entity with sub-entities stands for them too: a fetch of it
        // (with includesSubentities) reads them, a hop to it reaches them.
        var entities = Set((readsSubentities ? entity.descendantsIncludingSelf : [entity]).map(ObjectIdentifier.init))
        func add(_ path: CompiledPath) {
            for hop in path.hops {
                for member in hop.source.descendantsIncludingSelf + hop.destination.descendantsIncludingSelf {
                    entities.insert(ObjectIdentifier(member))
                }
            }
        }
        predicate?.root.forEachPath(add)
        for sort in sorts { sort.path.map(add) }
        for property in properties { property.operand?.forEachPath(add) }
        return entities
    }

    /// True when the predicate, a sort or a property fetched follows relationships.
    var followsRelationships: Bool {
        predicate?.followsRelationships == true || sorts.contains { $0.path != nil } || properties.contains { $0.operand != nil }
    }
}
