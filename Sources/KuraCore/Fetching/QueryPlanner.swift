import Foundation

/// Chooses how a fetch reads the store, by estimated cost.
///
/// Costs are in units of one record read in a sequential scan (including
/// checking the predicate). Reading a record through an index costs about
/// four (a key step and a B-tree lookup); sorting costs about 0.05 per
/// record per level of `log2`. These ratios were measured on raw LMDB with
/// 100k records; they decide between plans, they don't predict times.
enum QueryPlanner {
    static let indexReadCost = 4.0
    static let sortCostPerLevel = 0.05

    /// - Parameter forCount: Plan a count: no order, no objects.
    /// - Parameter changedEntities: Entities the context has unsaved changes
    ///   of: their stored indexes may not say what the context sees, so no
    ///   search goes through a relationship to them.
    static func plan(
        _ fetch: PreparedFetch, spaces: EntitySpaces, store: PersistentStore,
        forCount: Bool = false, changedEntities: Set<ObjectIdentifier> = [], in txn: any StorageTransaction
    ) throws -> QueryPlan {

        // A template's lookup by a unique index, decided at registration.
        if let lookup = fetch.plannedLookup, fetch.request.allowsIndexes,
           let index = spaces.indexes.first(where: { $0.description.name == lookup.indexName }), index.isUsableForQueries {
            let access = IndexAccess(
                index: index, ranges: [], equalityCount: index.attributeNumbers.count, isUniqueLookup: true,
                lookupPrefixes: [lookup.prefix], terms: [], entity: fetch.entity, coversPredicate: true)
            return QueryPlan(
                access: .search(access), entityName: fetch.entity.name, isInSortOrder: true, isReversed: false,
                topK: nil, fetch: fetch, isOrdered: !forCount, limit: fetch.limit,
                offset: fetch.offset, foundPrimaryKeys: nil, estimatedRows: 1)
        }

        // The index searches the predicate allows (worked out once: it is
        // most of planning's cost).
        let accesses = fetch.request.allowsIndexes ? fetch.predicate.map { IndexBounds.accesses(for: $0, spaces: spaces) } ?? [] : []

        // Equality on every attribute of a unique index finds at most one
        // object per value: nothing can beat it, so skip estimating.
        if let lookup = accesses.filter(\.isUniqueLookup).min(by: { $0.ranges.count < $1.ranges.count }) {
            let rows = lookup.ranges.count
            return QueryPlan(
                access: .search(lookup), entityName: fetch.entity.name, isInSortOrder: forCount || fetch.sorts.isEmpty && rows <= 1,
                isReversed: false, topK: nil, fetch: fetch, isOrdered: !forCount, limit: fetch.limit,
                offset: fetch.offset, foundPrimaryKeys: nil, estimatedRows: rows)
        }

        let total = try txn.estimatedCount(in: spaces.records)
        let sorts = forCount ? [] : fetch.sorts
        let window = forCount ? nil : fetch.window

        if forCount && fetch.predicate == nil {
            return QueryPlan(access: .entryCount, entityName: fetch.entity.name, isInSortOrder: false, isReversed: false,
                             topK: nil, fetch: fetch, isOrdered: false, limit: fetch.limit, offset: fetch.offset,
                             foundPrimaryKeys: nil, estimatedRows: total)
        }

        func sortCost(_ rows: Int) -> Double {
            guard !sorts.isEmpty, rows > 1 else { return 0 }
            let kept = Double(window.map { min($0, rows) } ?? rows)
            return Double(rows) * log2(max(kept, 2)) * sortCostPerLevel
        }
        func topK(_ rows: Int?) -> Int? {
            guard let window, !sorts.isEmpty else { return nil }
            return rows.map { window < $0 } ?? true ? window : nil
        }

        // A full scan; with no sort it can stop at the window.
        let scanRows = sorts.isEmpty ? min(total, window ?? total) : total
        var best = QueryPlan(
            access: .scan, entityName: fetch.entity.name, isInSortOrder: sorts.isEmpty, isReversed: false,
            topK: topK(total), fetch: fetch, isOrdered: !forCount, limit: fetch.limit, offset: fetch.offset,
            foundPrimaryKeys: nil, estimatedRows: total)
        var bestCost = Double(fetch.predicate == nil ? scanRows : total) + sortCost(total)

        // Index searches the predicate allows.
        for access in accesses {
            let (estimate, keys) = try estimateRows(of: access, total: total, store: store, in: txn)
            let order = sortOrder(of: access, sorts: sorts, fetch: fetch)
            let reads = order != nil ? min(estimate, window ?? estimate) : estimate
            var cost = Double(reads) * indexReadCost
            if order == nil {
                // Unsorted searches are put in primary-key order.
                cost += sorts.isEmpty ? Double(estimate) * sortCostPerLevel : sortCost(estimate)
            }
            if cost < bestCost {
                bestCost = cost
                best = QueryPlan(
                    access: .search(access), entityName: fetch.entity.name, isInSortOrder: order != nil,
                    isReversed: order ?? false, topK: order != nil ? nil : topK(estimate), fetch: fetch,
                    isOrdered: !forCount, limit: fetch.limit, offset: fetch.offset,
                    foundPrimaryKeys: keys, estimatedRows: estimate)
            }
        }

        // Searches through a relationship: the destinations first, then the
        // objects pointing to them.
        if let predicate = fetch.predicate, fetch.request.allowsIndexes, predicate.followsRelationships {
            let cap = max(64, total / 4)
            for related in RelatedAccess.accesses(for: predicate, store: store)
                where !changedEntities.contains(ObjectIdentifier(related.link.destination)) {
                guard let destinations = try related.destinationKeys(cap: cap, store: store, in: txn),
                      let sources = try related.sourceKeys(pointingTo: destinations, cap: cap, store: store, in: txn) else { continue }
                let cost = Double(destinations.count + sources.count) * indexReadCost + (sorts.isEmpty ? 0 : sortCost(sources.count))
                if cost < bestCost {
                    bestCost = cost
                    best = QueryPlan(
                        access: .related(related), entityName: fetch.entity.name, isInSortOrder: sorts.isEmpty,
                        isReversed: false, topK: topK(sources.count), fetch: fetch, isOrdered: !forCount, limit: fetch.limit,
                        offset: fetch.offset, foundPrimaryKeys: sources, estimatedRows: sources.count)
                }
            }
        }

        // Walking an index in the sort order, stopping at the window. With a
        // predicate, assume it passes one record in eight.
        if !sorts.isEmpty, fetch.request.allowsIndexes, let (index, reversed) = sortIndex(for: sorts, spaces: spaces, equalityCount: 0) {
            let reads = window.map { min(total, $0.saturatingMultiplied(by: fetch.predicate == nil ? 1 : 8)) } ?? total
            let cost = Double(reads) * indexReadCost
            if cost < bestCost {
                bestCost = cost
                best = QueryPlan(
                    access: .walk(index), entityName: fetch.entity.name, isInSortOrder: true, isReversed: reversed,
                    topK: nil, fetch: fetch, isOrdered: !forCount, limit: fetch.limit, offset: fetch.offset,
                    foundPrimaryKeys: nil, estimatedRows: reads)
            }
        }
        return best
    }

    /// Counts the keys in the access's ranges, up to a quarter of the
    /// `total` records. Returns the count (at least that cap when cut short)
    /// and, when every key was seen, their primary keys in index order.
    ///
    /// On an engine where each read is a request to a server, counting a
    /// range costs a round trip, about what reading it costs: the estimate
    /// is then a guess of a tenth of the records, which makes any index
    /// search cheaper than a scan. (There a scan sends every record to the
    /// client, while a search reads its records on the server, so even a
    /// range holding most records costs less than twice a scan.)
    private static func estimateRows(
        of access: IndexAccess, total: Int, store: PersistentStore, in txn: any StorageTransaction
    ) throws -> (Int, [UInt64]?) {
        let cap = max(64, total / 4)
        if access.isUniqueLookup && access.ranges.count <= cap {
            return (access.ranges.count, nil)
        }
        if txn.readsAreRequests {
            return (max(1, total / 10), nil)
        }
        var keys: [UInt64] = []
        var complete = true
        for range in access.ranges {
            try access.index.space.forEach(in: txn, range: range, readAhead: cap + 1) { entry in
                keys.append(try IndexSpace.primaryKey(of: entry, index: access.index, path: store.path))
                if keys.count > cap {
                    complete = false
                    return false
                }
                return true
            }
            if !complete { break }
        }
        return complete ? (keys.count, keys) : (keys.count, nil)
    }

    /// Whether the access's results come in the sort order: the sort keys,
    /// less those fixed by equality, must be the index's attributes after
    /// the equality ones, all ascending or all descending, compared with
    /// `.compare`. Returns whether to walk in reverse, or `nil`.
    private static func sortOrder(of access: IndexAccess, sorts: [PreparedSort], fetch: PreparedFetch) -> Bool? {
        guard !sorts.isEmpty else { return nil }
        let fixed = Set(access.index.attributeNumbers.prefix(access.equalityCount))
        let remaining = sorts.filter { !fixed.contains($0.number) }
        guard !remaining.isEmpty else { return false }
        let following = Array(access.index.attributeNumbers.dropFirst(access.equalityCount))
        guard remaining.count <= following.count,
              remaining.allSatisfy({ $0.comparison == .compare }),
              zip(remaining, following).allSatisfy({ $0.number == $1 }),
              Set(remaining.map(\.ascending)).count == 1 else { return nil }
        return !remaining[0].ascending
    }

    /// An index whose order is the sort order, and whether to walk it in reverse.
    private static func sortIndex(for sorts: [PreparedSort], spaces: EntitySpaces, equalityCount: Int) -> (IndexSpace, Bool)? {
        guard sorts.allSatisfy({ $0.comparison == .compare }), Set(sorts.map(\.ascending)).count == 1 else { return nil }
        for index in spaces.indexes where index.isUsableForQueries && index.attributeNumbers.count >= sorts.count
            && zip(sorts, index.attributeNumbers).allSatisfy({ $0.number == $1 }) {
            return (index, !sorts[0].ascending)
        }
        return nil
    }
}
