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
        forCount: Bool = false, changedEntities: Set<ObjectIdentifier> = [], in txn: StoreTransaction
    ) throws -> QueryPlan {
        let plans = Plans(fetch: fetch, forCount: forCount)

        // A template's lookup by a unique index, decided at registration.
        if let lookup = fetch.plannedLookup, fetch.request.allowsIndexes,
           let index = spaces.indexes.first(where: { $0.description.name == lookup.indexName }), index.isUsableForQueries {
            let access = IndexAccess(
                index: index, ranges: [], equalityCount: index.attributeNumbers.count, isUniqueLookup: true,
                lookupPrefixes: [lookup.prefix], terms: [], entity: fetch.entity, coversPredicate: true)
            return plans.make(.search(access), isInSortOrder: true, estimatedRows: 1, ordered: !forCount)
        }

        // The index searches the predicate allows (worked out once: it is
        // most of planning's cost).
        let accesses = fetch.request.allowsIndexes ? fetch.predicate.map { IndexBounds.accesses(for: $0, spaces: spaces) } ?? [] : []

        // Equality on every attribute of a unique index finds at most one
        // object per value: nothing can beat it, so skip estimating.
        if let lookup = accesses.filter(\.isUniqueLookup).min(by: { $0.ranges.count < $1.ranges.count }) {
            let rows = lookup.ranges.count
            return plans.make(.search(lookup), isInSortOrder: forCount || fetch.sorts.isEmpty && rows <= 1, estimatedRows: rows)
        }

        let total = try txn.estimatedCount(in: spaces.records)
        if forCount && fetch.predicate == nil {
            return plans.make(.entryCount, isInSortOrder: false, estimatedRows: total, ordered: false)
        }

        // The cheapest of: a full scan, each index search, each search
        // through a relationship, a walk of an index in the sort order.
        var best = plans.scan(total: total)
        for access in accesses {
            best = min(best, try plans.search(access, total: total, store: store, in: txn))
        }
        if let predicate = fetch.predicate, fetch.request.allowsIndexes, predicate.followsRelationships {
            for related in RelatedAccess.accesses(for: predicate, store: store)
                where !changedEntities.contains(ObjectIdentifier(related.link.destination)) {
                if let candidate = try plans.search(related, total: total, store: store, in: txn) { best = min(best, candidate) }
            }
        }
        if let walk = plans.walk(spaces: spaces, total: total) { best = min(best, walk) }
        return best.plan
    }

    /// A plan with its estimated cost; the first of equal costs wins.
    struct CostedPlan: Comparable {
        let plan: QueryPlan
        let cost: Double

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.cost < rhs.cost }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.cost == rhs.cost }
    }

    /// The plans of one fetch, each with its cost.
    private struct Plans {
        let fetch: PreparedFetch
        let forCount: Bool
        let sorts: [PreparedSort]
        let window: Int?

        init(fetch: PreparedFetch, forCount: Bool) {
            self.fetch = fetch
            self.forCount = forCount
            sorts = forCount ? [] : fetch.sorts
            window = forCount ? nil : fetch.window
        }

        func make(
            _ access: QueryPlan.Access, isInSortOrder: Bool, isReversed: Bool = false, orderedSorts: Int? = nil, topK: Int? = nil,
            foundPrimaryKeys: [UInt64]? = nil, estimatedRows: Int, ordered: Bool? = nil
        ) -> QueryPlan {
            QueryPlan(
                access: access, entityName: fetch.entity.name, isInSortOrder: isInSortOrder, isReversed: isReversed,
                orderedSorts: orderedSorts ?? fetch.sorts.count,
                topK: topK, fetch: fetch, isOrdered: ordered ?? !forCount, limit: fetch.limit, offset: fetch.offset,
                foundPrimaryKeys: foundPrimaryKeys, estimatedRows: estimatedRows)
        }

        func sortCost(_ rows: Int) -> Double {
            guard !sorts.isEmpty, rows > 1 else { return 0 }
            let kept = Double(window.map { min($0, rows) } ?? rows)
            return Double(rows) * log2(max(kept, 2)) * sortCostPerLevel
        }

        /// The window to keep while reading `rows` (unknown: `nil`), when
        /// sorting them in memory keeps fewer than it reads.
        func topK(_ rows: Int?) -> Int? {
            guard let window, !sorts.isEmpty else { return nil }
            return rows.map { window < $0 } ?? true ? window : nil
        }

        /// A full scan; with no sort it can stop at the window.
        func scan(total: Int) -> CostedPlan {
            let scanRows = sorts.isEmpty ? min(total, window ?? total) : total
            return CostedPlan(
                plan: make(.scan, isInSortOrder: sorts.isEmpty, topK: topK(total), estimatedRows: total),
                cost: Double(fetch.predicate == nil ? scanRows : total) + sortCost(total))
        }

        /// An index search: its ranges' keys counted (up to a cap), read in
        /// the sort order when the index gives it, else sorted.
        func search(
            _ access: IndexAccess, total: Int, store: PersistentStore, in txn: StoreTransaction
        ) throws -> CostedPlan {
            let (estimate, keys) = try estimateRows(of: access, total: total, store: store, in: txn)
            let order = sortOrder(of: access, sorts: sorts, fetch: fetch)
            let reads = order != nil ? min(estimate, window ?? estimate) : estimate
            var cost = Double(reads) * indexReadCost
            if order == nil {
                // Unsorted searches are put in primary-key order.
                cost += sorts.isEmpty ? Double(estimate) * sortCostPerLevel : sortCost(estimate)
            }
            let plan = make(
                .search(access), isInSortOrder: order != nil, isReversed: order?.reversed ?? false, orderedSorts: order?.sorts,
                topK: order != nil ? nil : topK(estimate), foundPrimaryKeys: keys, estimatedRows: estimate)
            return CostedPlan(plan: plan, cost: cost)
        }

        /// A search through a relationship: the destinations first, then the
        /// objects pointing to them; `nil` when either is past the cap.
        func search(
            _ related: RelatedAccess, total: Int, store: PersistentStore, in txn: StoreTransaction
        ) throws -> CostedPlan? {
            let cap = max(64, total / 4)
            guard let destinations = try related.destinationKeys(cap: cap, store: store, in: txn),
                  let sources = try related.sourceKeys(pointingTo: destinations, cap: cap, store: store, in: txn) else { return nil }
            let cost = Double(destinations.count + sources.count) * indexReadCost + (sorts.isEmpty ? 0 : sortCost(sources.count))
            let plan = make(
                .related(related), isInSortOrder: sorts.isEmpty, topK: topK(sources.count), foundPrimaryKeys: sources,
                estimatedRows: sources.count)
            return CostedPlan(plan: plan, cost: cost)
        }

        /// Walking an index in the sort order, stopping at the window. With
        /// a predicate, assume it passes one record in eight.
        func walk(spaces: EntitySpaces, total: Int) -> CostedPlan? {
            guard !sorts.isEmpty, fetch.request.allowsIndexes,
                  let (index, reversed, ordered) = sortIndex(for: sorts, spaces: spaces) else { return nil }
            let reads = window.map { min(total, $0.saturatingMultiplied(by: fetch.predicate == nil ? 1 : 8)) } ?? total
            return CostedPlan(
                plan: make(.walk(index), isInSortOrder: true, isReversed: reversed, orderedSorts: ordered, estimatedRows: reads),
                cost: Double(reads) * indexReadCost)
        }
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
        of access: IndexAccess, total: Int, store: PersistentStore, in txn: StoreTransaction
    ) throws -> (Int, [UInt64]?) {
        let cap = max(64, total / 4)
        if access.isUniqueLookup && access.ranges.count <= cap {
            return (access.ranges.count, nil)
        }
        if !txn.countsRangesCheaply {
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

    /// Whether the access's results come in the sort order, at least in its
    /// first keys: the sort keys, less those fixed by equality, must begin
    /// with the index's attributes after the equality ones, all ascending or
    /// all descending, compared with `.compare`. Returns whether to walk in
    /// reverse, and how many of `sorts` (from the first) that order gives:
    /// the records of a run equal in those are sorted by the rest as the
    /// run ends (an incremental sort, see ``SortRun``). `nil` when the index
    /// gives none of the order.
    private static func sortOrder(of access: IndexAccess, sorts: [PreparedSort], fetch: PreparedFetch) -> (reversed: Bool, sorts: Int)? {
        guard !sorts.isEmpty else { return nil }
        let fixed = Set(access.index.attributeNumbers.prefix(access.equalityCount))
        let remaining = sorts.filter { !fixed.contains($0.number) }
        guard let first = remaining.first else { return (false, sorts.count) }
        let following = Array(access.index.attributeNumbers.dropFirst(access.equalityCount))
        let matched = zip(remaining, following).prefix {
            $0.number == $1 && $0.comparison == .compare && $0.ascending == first.ascending
        }.count
        guard matched > 0 else { return nil }
        // The sorts up to the last matched one (the fixed ones among them are constant).
        let last = remaining[matched - 1]
        let ordered = matched == remaining.count ? sorts.count : sorts.firstIndex { $0.number == last.number }! + 1
        return (!first.ascending, ordered)
    }

    /// An index whose order is the sort order (at least its first key),
    /// whether to walk it in reverse, and how many sorts its order gives;
    /// the index giving the most of them.
    private static func sortIndex(for sorts: [PreparedSort], spaces: EntitySpaces) -> (IndexSpace, Bool, Int)? {
        guard let first = sorts.first else { return nil }
        var best: (IndexSpace, Bool, Int)?
        for index in spaces.indexes where index.isUsableForQueries {
            let matched = zip(sorts, index.attributeNumbers).prefix {
                $0.number == $1 && $0.comparison == .compare && $0.ascending == first.ascending
            }.count
            if matched > (best?.2 ?? 0) { best = (index, !first.ascending, matched) }
        }
        return best
    }
}
