/// A fetch request checked against the model: the entity resolved, the
/// predicate compiled, sort keys resolved to attribute positions. A class,
/// so the query's parts share it for one reference each.
final class PreparedFetch: Sendable {
    let request: FetchRequest
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
    let offset: Int

    /// How many results the store side must produce before the offset is
    /// applied: offset + limit (at most `Int.max`), or everything.
    var window: Int? { limit.map { offset.saturatingAdding($0) } }

    /// - Throws: ``KuraError/unknownEntity(_:)``, the predicate's errors,
    ///   ``KuraError/invalidFetchRequest(_:)`` for a negative limit or offset,
    ///   an unknown sort key or property.
    /// - Parameter allowingVariables: For templates: `$variables` may remain.
    init(_ request: FetchRequest, model: ManagedObjectModel, allowingVariables: Bool = false) throws {
        self.request = request
        let entity = try model.requireEntity(named: request.entityName)
        self.entity = entity
        if let box = request.compiledPredicate, box.compiled.entity === entity {
            predicate = box.compiled
            plannedLookup = box.lookup
        } else {
            predicate = try request.predicate.map { try $0.compiled(for: entity, allowingVariables: allowingVariables) }
            plannedLookup = nil
        }
        guard request.fetchLimit >= 0 else {
            throw KuraError.invalidFetchRequest("fetchLimit is \(request.fetchLimit); it must be 0 (no limit) or more")
        }
        guard request.fetchOffset >= 0 else {
            throw KuraError.invalidFetchRequest("fetchOffset is \(request.fetchOffset); it must be 0 or more")
        }
        limit = request.fetchLimit == 0 ? nil : request.fetchLimit
        var read = Set<Int>()
        predicate?.root.forEachAttribute { read.insert($0) }
        offset = request.fetchOffset
        sorts = try request.sortDescriptors.map { descriptor in
            guard let number = entity.attributeNumber(named: descriptor.key) else {
                throw KuraError.invalidFetchRequest("unknown sort key '\(descriptor.key)': \(entity.name) has no such attribute")
            }
            return PreparedSort(number: number, ascending: descriptor.ascending, comparison: descriptor.comparison)
        }
        read.formUnion(sorts.map(\.number))
        readAttributes = read.sorted()
        if !request.propertiesToFetch.isEmpty { _ = try propertyNumbers() }
    }

    /// The attribute positions of dictionary results: ``FetchRequest/propertiesToFetch``,
    /// or every attribute.
    func propertyNumbers() throws -> [Int] {
        guard !request.propertiesToFetch.isEmpty else { return Array(entity.attributes.indices) }
        return try request.propertiesToFetch.map { name in
            guard let number = entity.attributeNumber(named: name) else {
                throw KuraError.invalidFetchRequest("unknown property to fetch '\(name)': \(entity.name) has no such attribute")
            }
            return number
        }
    }
}

/// One sort descriptor, resolved.
struct PreparedSort {
    let number: Int
    let ascending: Bool
    let comparison: FetchSortDescriptor.Comparison
}
