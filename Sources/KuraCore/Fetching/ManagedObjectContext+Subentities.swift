/// Fetches of an entity with sub-entities (``FetchRequest/includesSubentities``).
///
/// Each concrete entity of the family below the fetched one keeps its
/// records in a space of its own, so such a fetch is one fetch per entity
/// (each with its own plan: an index the family shares is read with the
/// entity's own keys picked out, see ``EntityFamily``), all in one read
/// transaction, then merged: sorted by the request's sort descriptors (by
/// primary key, whose tag puts each entity's objects together, when it has
/// none), the offset and limit applied to the whole. Each part fetches at
/// most offset + limit objects. A batched fetch (``ManagedObjectContext/fetchBatched(_:)``)
/// of a superentity makes its objects at once, as a child context's does.
extension PreparedFetch {
    /// True when the fetch reads the objects of sub-entities too.
    var readsSubentities: Bool {
        request.includesSubentities && entity.hasSubentities
    }

    /// The concrete entities whose objects the fetch reads.
    var memberEntities: [EntityDescription] {
        readsSubentities ? entity.descendantsIncludingSelf.filter { !$0.isAbstract } : [entity]
    }

    /// True when objects of `other` are among what the fetch reads.
    func reads(_ other: EntityDescription) -> Bool {
        other === entity || (readsSubentities && other.isKind(of: entity))
    }

    /// The fetch of `member`'s own objects that is part of this one: the
    /// same predicate (compiled for `member`) and sorts, offset + limit as
    /// its limit, no offset.
    func part(for member: EntityDescription, model: ManagedObjectModel) throws -> PreparedFetch {
        var request = request
        let predicate = request.predicate
        request.entityName = member.name
        request.predicate = predicate
        request.fetchOffset = 0
        request.fetchLimit = window ?? 0
        request.includesSubentities = false
        request.resultType = .managedObject
        return try PreparedFetch(request, model: model)
    }
}

extension ManagedObjectContext {
    /// The objects of a fetch that reads sub-entities: each member's, in one
    /// snapshot, merged into the request's order, offset and limit applied.
    func fetchAcrossSubentities(_ fetch: PreparedFetch) throws -> [ManagedObject] {
        // In key order (the tags'), so that without sort descriptors and
        // unsaved inserts the parts' results, each in key order, are the
        // whole's in order.
        let members = fetch.memberEntities.sorted { $0.layout.keyTag < $1.layout.keyTag }
        let parts = try members.map { try fetch.part(for: $0, model: model) }
        var objects: [ManagedObject] = []
        try withOneSnapshot {
            for part in parts { objects += try fetchObjects(part) }
        }
        let ordering = RowOrdering(sorts: fetch.sorts)
        if fetch.sorts.isEmpty && !objects.contains(where: \.isInserted) {
            let start = min(fetch.offset, objects.count)
            let end = fetch.limit.map { min($0, objects.count - start) + start } ?? objects.count
            return start == 0 && end == objects.count ? objects : Array(objects[start..<end])
        }
        var rows: [SortableRow<ManagedObject>] = []
        rows.reserveCapacity(objects.count)
        for object in objects {
            var keys = SortKeys.none
            if !fetch.sorts.isEmpty {
                try object.loadValues()
                keys = try ordering.keys(of: ObjectSource(object: object))
            }
            rows.append(SortableRow(keys: keys, tier: object.isInserted ? 1 : 0, number: object.objectID.number, payload: object))
        }
        ordering.sort(&rows)
        let start = min(fetch.offset, rows.count)
        let end = fetch.limit.map { min($0, rows.count - start) + start } ?? rows.count
        return rows[start..<end].map(\.payload)
    }

    /// How many objects a fetch that reads sub-entities matches, limit and
    /// offset applied.
    func countAcrossSubentities(_ fetch: PreparedFetch) throws -> Int {
        var total = 0
        try withOneSnapshot {
            for member in fetch.memberEntities {
                var part = try fetch.part(for: member, model: model).request
                part.fetchLimit = 0
                total += try count(for: part)
            }
        }
        total = max(0, total - fetch.offset)
        return fetch.limit.map { min($0, total) } ?? total
    }

    /// The plan of a fetch that reads sub-entities: each member's.
    func explainAcrossSubentities(_ fetch: PreparedFetch) throws -> QueryPlan {
        let plans = try withOneSnapshot {
            try fetch.memberEntities.map { member in
                var part = try fetch.part(for: member, model: model).request
                part.resultType = fetch.request.resultType
                return try explain(part)
            }
        }
        return QueryPlan(merging: plans, of: fetch)
    }
}

extension QueryPlan {
    /// The plan of a fetch across sub-entities: its members' plans, merged.
    init(merging plans: [QueryPlan], of fetch: PreparedFetch) {
        let first = plans[0]
        self.init(
            access: first.access, entityName: fetch.entity.name, isInSortOrder: false, isReversed: false, orderedSorts: fetch.sorts.count,
            topK: nil, fetch: fetch, isOrdered: first.isOrdered, limit: fetch.limit, offset: fetch.offset, foundPrimaryKeys: nil,
            estimatedRows: plans.allSatisfy { $0.estimatedRows != nil } ? plans.reduce(0) { $0 + $1.estimatedRows! } : nil,
            memberPlans: plans)
    }
}
