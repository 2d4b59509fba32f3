/// Runs a query plan inside one read transaction: finds the matching
/// records, in the fetch's order, without making any object.
///
/// The records are read in place: their bytes are valid until the
/// transaction ends, which is after the caller made objects of the ones it keeps.
struct StoreQuery {
    let fetch: PreparedFetch
    let plan: QueryPlan
    let spaces: EntitySpaces
    let store: PersistentStore
    /// Records the context has changed or deleted: it evaluates those itself.
    let excluded: Set<UInt64>
    /// The context's objects with changes, which predicates that follow
    /// relationships see instead of their records.
    var pendingObjects: [PredicateGraph.PendingKey: ManagedObject] = [:]

    private var ordering: RowOrdering { RowOrdering(sorts: fetch.sorts) }

    /// The matching records in order: the first offset + limit of them when
    /// there is a limit, else all.
    func rows(in txn: StoreTransaction) throws -> [SortableRow<RecordView>] {
        let window = fetch.window
        let ordering = ordering
        let entity = fetch.entity
        var rows: [SortableRow<RecordView>] = []
        let graph = graph(in: txn)
        func source(_ primaryKey: UInt64, _ view: RecordView) -> RecordSource {
            RecordSource(view: view, entity: entity, primaryKey: primaryKey, graph: graph)
        }

        if plan.isInSortOrder {
            // The records in the fetch's order as `streamInOrder` hands them
            // on, each with its sort keys (for the merge with the context's
            // own objects).
            _ = try streamInOrder(in: txn, graph: graph) { primaryKey, view in
                let keys = fetch.sorts.isEmpty ? .none : try ordering.keys(of: source(primaryKey, view))
                rows.append(SortableRow(keys: keys, tier: 0, number: primaryKey, payload: view))
            }
            return rows
        }

        // With a limit and no order from an index: keep the best in a
        // bounded heap as the records stream by.
        if let topK = plan.topK, var numeric = NumericTopK<RecordView>(capacity: topK, sorts: fetch.sorts, entity: entity) {
            let number = numeric.sort.number
            let layout = entity.layout
            let probe = RecordView.SortBitsProbe(field: layout.isIdentity ? number : layout.attributeFields[number], of: layout)
            // Without a predicate, an engine on a server may send only the
            // records that can make the cut (and the context's excluded
            // ones' replacements); elsewhere the records are scanned.
            let ranking = fetch.predicate == nil
                ? RecordRanking(entity: entity, attribute: number, descending: !numeric.sort.ascending,
                                count: topK.saturatingAdding(excluded.count))
                : nil
            // A record whose sort value can't make the cut is passed over
            // before it is validated or matched: most of a long scan's.
            try forEachCandidate(in: txn, graph: graph, ranking: ranking, skipping: { primaryKey, bytes in
                guard let bits = probe.bits(in: bytes) else { return false }
                return !numeric.accepts(bits: bits, number: primaryKey)
            }) { primaryKey, view in
                if let bits = view.orderedSortBits(number, of: entity) {
                    numeric.offer(bits: bits, number: primaryKey, payload: view)
                } else {
                    numeric.offer(view.value(number, of: entity), number: primaryKey, payload: view)
                }
                return true
            }
            return try numeric.heap.sorted().map { entry in
                SortableRow(keys: try ordering.keys(of: source(entry.number, entry.payload)), tier: 0,
                            number: entry.number, payload: entry.payload)
            }
        }
        if let topK = plan.topK, !fetch.sorts.isEmpty {
            var heap = BoundedHeap(capacity: topK, order: RowHeapOrder<RecordView>(ordering: ordering))
            try forEachCandidate(in: txn, graph: graph) { primaryKey, view in
                let keys = try ordering.keys(of: source(primaryKey, view))
                if heap.accepts(keys: keys, number: primaryKey) {
                    heap.offer(SortableRow(keys: keys, tier: 0, number: primaryKey, payload: view))
                }
                return true
            }
            return heap.sorted()
        }

        // Collect, then order by primary key or sort.
        try forEachCandidate(in: txn, graph: graph) { primaryKey, view in
            let keys = fetch.sorts.isEmpty ? .none : try ordering.keys(of: source(primaryKey, view))
            rows.append(SortableRow(keys: keys, tier: 0, number: primaryKey, payload: view))
            return true
        }
        ordering.sort(&rows)
        return window.map { Array(rows.prefix($0)) } ?? rows
    }

    /// When the plan reads the matches in the fetch's order (no sort:
    /// primary-key order; else sort order, each run of equal sort keys put
    /// in primary-key order: see ``SortRun``), calls `body` with each, up to
    /// the window, and returns true; else calls nothing and returns false.
    /// Unlike ``rows(in:)``, nothing is kept per record but the current run.
    func streamInOrder(in txn: StoreTransaction, graph: PredicateGraph?, _ body: (UInt64, RecordView) throws -> Void) throws -> Bool {
        guard plan.isInSortOrder else { return false }
        let window = fetch.window
        if window == 0 { return true }
        var count = 0
        if fetch.sorts.isEmpty {
            try forEachCandidate(in: txn, graph: graph) { primaryKey, view in
                try body(primaryKey, view)
                count += 1
                return window.map { count < $0 } ?? true
            }
            return true
        }
        var run = SortRun(sorts: fetch.sorts, ordered: plan.orderedSorts, entity: fetch.entity, graph: graph)
        try forEachCandidate(in: txn, graph: graph) { primaryKey, view in
            count += try run.add(primaryKey, view, limit: window.map { $0 - count }, body)
            return window.map { count < $0 } ?? true
        }
        if window.map({ count < $0 }) ?? true {
            count += try run.flush(upTo: window.map { $0 - count }, body)
        }
        return true
    }

    /// How many records match, not counting excluded ones.
    /// The records of `spaces`' entity the store holds, less those of
    /// `excluded` it holds: a count without a predicate, from the engine's
    /// entry count (O(1) on LMDB) and one lookup per excluded key.
    static func entryCount(of spaces: EntitySpaces, excluding excluded: Set<UInt64>, in txn: StoreTransaction) throws -> Int {
        var count = try spaces.records.count(in: txn)
        for primaryKey in excluded where try spaces.records.contains(StoreLayout.key(primaryKey), in: txn) {
            count -= 1
        }
        return count
    }

    func count(in txn: StoreTransaction) throws -> Int {
        if case .entryCount = plan.access { return try Self.entryCount(of: spaces, excluding: excluded, in: txn) }
        var count = 0
        try forEachCandidate(in: txn, graph: graph(in: txn)) { _, _ in
            count += 1
            return true
        }
        return count
    }

    /// The graph predicates and sorts that follow relationships read
    /// through, in this transaction; `nil` when nothing follows one.
    func graph(in txn: StoreTransaction) -> PredicateGraph? {
        guard fetch.followsRelationships else { return nil }
        return PredicateGraph(store: store, transaction: txn, pending: pendingObjects)
    }

    /// Calls `body` with each record the plan reads that is not excluded and
    /// matches the predicate, until `body` returns false. A record a walk or
    /// scan reads for which `skipping` (given its primary key and bytes, not
    /// validated yet) returns true is passed over unread.
    private func forEachCandidate(
        in txn: StoreTransaction, graph: PredicateGraph?, ranking: RecordRanking? = nil,
        skipping: (UInt64, UnsafeRawBufferPointer) -> Bool = { _, _ in false },
        _ body: (UInt64, RecordView) throws -> Bool
    ) throws {
        let entity = fetch.entity
        // A `let`: a `var` captured by `consider` would be checked for
        // exclusive access on every record.
        let predicate: CompiledPredicate? = switch plan.access {
        case .search(let access) where access.coversPredicate: nil
        case .related(let access): access.residual
        default: fetch.predicate
        }
        // How many records the walk will read: the window (and one more, to
        // see where a run of equal sort keys ends) when it stops there and
        // every record it reads is a match; all of them when it doesn't stop.
        let readAhead: Int? = if !plan.isInSortOrder || fetch.window == nil {
            .max
        } else if predicate == nil && excluded.isEmpty {
            fetch.window.map { $0.saturatingAdding(1) }
        } else {
            nil
        }
        // A predicate that follows relationships reads other records in this
        // snapshot, and the context's changed objects instead of theirs.
        func consider(_ primaryKey: UInt64, _ view: RecordView) throws -> Bool {
            try CancellationCheck.check()
            if !excluded.isEmpty && excluded.contains(primaryKey) { return true }
            if let predicate,
               !(try predicate.evaluate(on: RecordSource(view: view, entity: entity, primaryKey: primaryKey, graph: graph))) {
                return true
            }
            return try body(primaryKey, view)
        }
        // Where reads are requests, what the predicate follows is read
        // ahead for records in batches, then each is considered (elsewhere
        // a batch would only delay the first result).
        if let graph, let predicate, txn.readsAheadInBatches {
            let hops = PredicateGraph.readAheadHops(of: predicate)
            if !hops.isEmpty {
                var batch: [(UInt64, RecordView)] = []
                func considerBatch() throws -> Bool {
                    defer { batch.removeAll(keepingCapacity: true) }
                    try graph.readAhead(hops, from: batch, of: entity)
                    for (primaryKey, view) in batch where !(try consider(primaryKey, view)) { return false }
                    return true
                }
                var stopped = false
                try visitCandidates(in: txn, readAhead: readAhead, ranking: ranking, skipping: skipping) { primaryKey, view in
                    batch.append((primaryKey, view))
                    guard batch.count == Self.readAheadBatch else { return true }
                    stopped = !(try considerBatch())
                    return !stopped
                }
                if !stopped { _ = try considerBatch() }
                return
            }
        }
        try visitCandidates(in: txn, readAhead: readAhead, ranking: ranking, skipping: skipping, consider)
    }

    /// How many records a predicate's relationships are read ahead for at once.
    static let readAheadBatch = 256

    /// Calls `consider` with each record the plan reads, until it returns false.
    private func visitCandidates(
        in txn: StoreTransaction, readAhead: Int?, ranking: RecordRanking?, skipping: (UInt64, UnsafeRawBufferPointer) -> Bool,
        _ consider: (UInt64, RecordView) throws -> Bool
    ) throws {
        let entity = fetch.entity
        switch plan.access {
        case .scan, .entryCount:
            try store.forEachRecord(
                of: entity, values: fetch.readAttributes, readAhead: readAhead, in: txn, ranking: ranking, skipping: skipping, consider)
        case .search(let access):
            if !access.lookupPrefixes.isEmpty && !plan.isReversed {
                // A unique lookup: one seek per value, no range to walk.
                for prefix in access.lookupPrefixes {
                    let found = try store.withUniqueRecord(prefix, in: access.index, of: spaces, txn) { primaryKey, record in
                        (primaryKey, try view(of: record, primaryKey: primaryKey))
                    }
                    guard let (primaryKey, view) = found else { continue }
                    guard try consider(primaryKey, view) else { return }
                }
                return
            }
            if var keys = plan.foundPrimaryKeys {
                if entity.family != nil { keys.removeAll { !entity.ownsKey($0) } }
                // In the index's order when that is the results' order; else
                // by primary key, the order the store keeps its records in
                // (neighbours share pages) and the order the results are
                // put in, where the sort then finds them already.
                if !plan.isInSortOrder {
                    keys.sort()
                } else if plan.isReversed {
                    keys.reverse()
                }
                try txn.readAhead { $0.read(keys: keys.map(StoreLayout.key), in: spaces.records) }
                for primaryKey in keys {
                    guard let view = try record(primaryKey, in: txn) else { continue }
                    guard try consider(primaryKey, view) else { return }
                }
                return
            }
            let direction: IterationDirection = plan.isReversed ? .reverse : .forward
            for range in plan.isReversed ? access.ranges.reversed() : access.ranges {
                var stopped = false
                try walk(access.index, range: range, direction: direction, readAhead: readAhead, in: txn, skipping: skipping) { primaryKey, view in
                    let more = try consider(primaryKey, view)
                    stopped = !more
                    return more
                }
                if stopped { return }
            }
        case .walk(let index):
            try walk(index, range: .all, direction: plan.isReversed ? .reverse : .forward, readAhead: readAhead, in: txn,
                     skipping: skipping, consider)
        case .related:
            var keys = plan.foundPrimaryKeys ?? []
            // A relationship the family shares names its other members' objects too.
            if entity.family != nil { keys.removeAll { !entity.ownsKey($0) } }
            try txn.readAhead { $0.read(keys: keys.map(StoreLayout.key), in: spaces.records) }
            for primaryKey in keys {
                guard let view = try record(primaryKey, in: txn) else { continue }
                guard try consider(primaryKey, view) else { return }
            }
        }
    }

    /// Reads the records of an index's entries in `range`, passing over
    /// those `skipping` returns true for (see ``PersistentStore/forEachRecord(of:values:readAhead:in:skipping:_:)``).
    private func walk(
        _ index: IndexSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?, in txn: StoreTransaction,
        skipping: (UInt64, UnsafeRawBufferPointer) -> Bool, _ body: (UInt64, RecordView) throws -> Bool
    ) throws {
        let entity = fetch.entity
        try txn.forEachJoined(
            in: index.space, range: range, direction: direction, readAhead: readAhead, records: spaces.records
        ) { entry, record in
            let primaryKey = try IndexSpace.primaryKey(of: entry, index: index, path: store.path)
            // An index the family shares holds its other members' entries.
            if !entity.ownsKey(primaryKey) { return true }
            if let record, skipping(primaryKey, record) {
                try CancellationCheck.check(passingOver: primaryKey)
                return true
            }
            return try body(primaryKey, try view(of: record, primaryKey: primaryKey))
        }
    }

    /// The record an index entry names, checked. A missing one means the
    /// index and the records disagree: the store is damaged.
    private func view(of record: UnsafeRawBufferPointer?, primaryKey: UInt64) throws -> RecordView {
        guard let record else {
            throw KuraError.corruptStore(
                path: store.path, reason: "an index of \(fetch.entity.name) names record \(primaryKey), which is missing")
        }
        return try store.validatedRecord(record, of: fetch.entity, values: fetch.readAttributes)
    }

    /// The record of `primaryKey`, which an index entry names. A missing one
    /// means the index and the records disagree: the store is damaged.
    private func record(_ primaryKey: UInt64, in txn: StoreTransaction) throws -> RecordView? {
        var view: RecordView?
        _ = try StoreLayout.withKey(primaryKey) { key in
            try txn.visitValue(forKey: key, in: spaces.records) { view = try self.view(of: $0, primaryKey: primaryKey) }
        }
        return try view ?? self.view(of: nil, primaryKey: primaryKey)
    }
}
