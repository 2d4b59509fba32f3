/// The results of ``ManagedObjectContext/execute(_:)->FetchResult``, in the shape the
/// request's ``FetchRequest/resultType`` asks for.
public enum FetchResult {
    /// The objects, registered in the context.
    case objects([ManagedObject])
    /// The objects' IDs.
    case objectIDs([ObjectID])
    /// One dictionary per object: property (or key path) to value.
    case dictionaries([[String: PropertyValue]])
    /// How many objects match.
    case count(Int)
}

extension ManagedObjectContext {
    /// The objects `request` describes, registered in this context, as
    /// instances of the request's class.
    ///
    /// ```swift
    /// let news: [News] = try context.fetch(FetchRequest<News>(predicate: \News.sortOrder >= 3).sorted(by: \.sortOrder))
    /// let any: [ManagedObject] = try context.fetch(FetchRequest(entityName: "News"))
    /// ```
    ///
    /// A fetch returns the context's own instance of each object: the same
    /// instance as before for an object the context holds (with its unsaved
    /// changes; ``ManagedObject/awakeFromFetch()`` doesn't run again), a new
    /// one for an object it loads. With ``FetchRequest/includesPendingChanges``
    /// (the default), unsaved inserts and changes count and deleted objects
    /// don't. The whole fetch reads one consistent snapshot of the store.
    ///
    /// - Throws: ``KuraError/unknownEntity(_:)``, the predicate's errors
    ///   (``KuraError/unknownAttribute(entity:key:)``,
    ///   ``KuraError/typeMismatch(entity:key:expected:found:)``,
    ///   ``KuraError/missingSubstitutionVariable(_:)``, ``PredicateSyntaxError``, …),
    ///   ``KuraError/invalidFetchRequest(_:)``, and
    ///   ``KuraError/classMismatch(requested:entity:entityClass:)`` for a
    ///   typed request whose entity's objects are of another class; all
    ///   before any data is read.
    /// A fetch run by a task that is cancelled stops with `CancellationError`
    /// at the next record it reads; so do counts that read records.
    ///
    /// - Complexity: see ``QueryPlan``; ``explain(_:)`` shows the plan.
    ///
    /// Typed requests funnel into untyped ones in the caller's module
    /// (these entry points are inlinable): the retyping is then a copy.
    @inlinable
    public func fetch<Object: ManagedObject>(_ request: FetchRequest<Object>) throws -> [Object] {
        let untyped = request.untyped
        if Object.self != ManagedObject.self { try checkClass(Object.self, of: untyped) }
        // Every object of the entity is of its class, so the array is an
        // [Object]; reinterpreting it avoids checking each element again.
        return unsafeBitCast(try fetchObjects(untyped), to: [Object].self)
    }

    /// The first object `request` describes (in its order), or `nil`.
    ///
    /// ```swift
    /// let newest = try context.first(FetchRequest<News>().sorted(by: \.dateCreated, ascending: false))
    /// ```
    @inlinable
    public func first<Object: ManagedObject>(_ request: FetchRequest<Object>) throws -> Object? {
        var limited = request
        limited.fetchLimit = 1
        return try fetch(limited).first
    }

    /// Throws unless the objects of `request`'s entity are of class `type`.
    @usableFromInline
    func checkClass<T: ManagedObject>(_ type: T.Type, of request: FetchRequest<ManagedObject>) throws {
        let entity = try model.requireEntity(of: request)
        guard entity.managedObjectClass is T.Type else {
            throw KuraError.classMismatch(requested: "\(type)", entity: entity.name, entityClass: "\(entity.managedObjectClass)")
        }
    }

    /// The objects of an untyped request.
    @usableFromInline
    func fetchObjects(_ request: FetchRequest<ManagedObject>) throws -> [ManagedObject] {
        try reportingSlow(request, kind: .objects, count: \.count) {
            mergeReceivedChanges()
            if let found = try fetchByTemplateLookup(request) { return found }
            return try fetchObjects(try PreparedFetch(request, model: model))
        }
    }

    /// `body`'s result; when the store has an ``StoreOptions/eventReporter``
    /// and `body` took at least its threshold, a ``StoreEvent/slowFetch(_:)``
    /// with `request`'s plan is reported too.
    private func reportingSlow<Result>(
        _ request: FetchRequest<ManagedObject>, kind: SlowFetchEvent.Kind, count: (Result) -> Int, _ body: () throws -> Result
    ) rethrows -> Result {
        guard let reporter = store.eventReporter else { return try body() }
        let started = ContinuousClock.now
        let result = try body()
        let duration = ContinuousClock.now - started
        if duration >= reporter.slowFetchThreshold {
            let plan = (try? explain(request)).map { "\($0)" } ?? "(no plan: the request no longer prepares)"
            reporter.report(.slowFetch(SlowFetchEvent(
                store: store.path, entityName: request.entityName, kind: kind, resultCount: count(result),
                duration: duration, plan: plan)))
        }
        return result
    }

    /// The objects of a prepared fetch.
    func fetchObjects(_ fetch: PreparedFetch) throws -> [ManagedObject] {
        if parent != nil { return try fetchThroughParent(fetch) }
        if fetch.readsSubentities { return try fetchAcrossSubentities(fetch) }
        let registry = registry(for: fetch.entity)
        let entity = fetch.entity
        let layout = entity.layout
        let objects = try run(fetch,
                       stored: { primaryKey, view, _ in
                           // An object keeps its record: check all of it first.
                           do {
                               try view.checkAllValues(of: layout)
                           } catch {
                               throw self.store.corruptRecord(entity, error)
                           }
                           return self.registeredObject(for: entity, primaryKey: primaryKey, record: view.bytes, in: registry)
                       },
                       pending: { $0 },
                       // Room for every object at once: no rehashing as the identity map grows.
                       willMake: { registry.objects.reserveCapacity(registry.objects.count + $0) })
        if !fetch.prefetchPaths.isEmpty { try prefetch(fetch.prefetchPaths, of: objects) }
        return objects
    }

    /// The objects `request` describes, as instances of `type` (for an
    /// untyped request: `fetch(FetchRequest(entityName: "News"), as: News.self)`).
    ///
    /// - Throws: as ``fetch(_:)``, and ``KuraError/classMismatch(requested:entity:entityClass:)``
    ///   when the entity's objects are not `T`s.
    @inlinable
    public func fetch<T: ManagedObject, Object: ManagedObject>(_ request: FetchRequest<Object>, as type: T.Type) throws -> [T] {
        let untyped = request.untyped
        try checkClass(T.self, of: untyped)
        return unsafeBitCast(try fetchObjects(untyped), to: [T].self)
    }

    /// The IDs of the objects `request` describes; no object is made for
    /// stored results.
    @inlinable
    public func fetchObjectIDs<Object>(_ request: FetchRequest<Object>) throws -> [ObjectID] {
        try fetchObjectIDs(untyped: request.untyped)
    }

    @usableFromInline
    func fetchObjectIDs(untyped request: FetchRequest<ManagedObject>) throws -> [ObjectID] {
        try reportingSlow(request, kind: .objectIDs, count: \.count) { try unreportedFetchObjectIDs(request) }
    }

    private func unreportedFetchObjectIDs(_ request: FetchRequest<ManagedObject>) throws -> [ObjectID] {
        mergeReceivedChanges()
        let fetch = try PreparedFetch(request, model: model)
        if parent != nil { return try fetchThroughParent(fetch).map(\.objectID) }
        if fetch.readsSubentities { return try fetchAcrossSubentities(fetch).map(\.objectID) }
        let entity = fetch.entity
        return try run(fetch,
                       stored: { primaryKey, _, _ in ObjectID(entity: entity, number: primaryKey, isTemporaryID: false) },
                       pending: { $0.objectID })
    }

    /// Dictionaries of the ``FetchRequest/propertiesToFetch`` of the objects
    /// `request` describes (every attribute and relationship when it is
    /// empty): attributes as ``PropertyValue/attribute(_:)`` (`nil` included),
    /// relationships as destinations' IDs, key paths through to-ones
    /// (`author.name`) and aggregates (`tags.@count`) as their values, and
    /// `SELF` as the object's own ID (``PropertyValue/toOne(_:)``). No
    /// object is made for stored results.
    ///
    /// ```swift
    /// var request = FetchRequest(entityName: "News")
    /// request.propertiesToFetch = ["title", "author", "author.name", "tags.@count"]
    /// let rows = try context.fetchDictionaries(request)   // [["title": .attribute(.string("…")), "author": .toOne(…), …]]
    /// ```
    @inlinable
    public func fetchDictionaries<Object>(_ request: FetchRequest<Object>) throws -> [[String: PropertyValue]] {
        try fetchDictionaries(untyped: request.untyped)
    }

    @usableFromInline
    func fetchDictionaries(untyped request: FetchRequest<ManagedObject>) throws -> [[String: PropertyValue]] {
        try reportingSlow(request, kind: .dictionaries, count: \.count) { try unreportedFetchDictionaries(request) }
    }

    private func unreportedFetchDictionaries(_ request: FetchRequest<ManagedObject>) throws -> [[String: PropertyValue]] {
        mergeReceivedChanges()
        let fetch = try PreparedFetch(request, model: model)
        let entity = fetch.entity
        let properties = fetch.dictionaryProperties
        let attributes = properties.compactMap(\.attribute)
        func dictionary(_ node: GraphNode, _ source: some AttributeSource, _ graph: PredicateGraph?) throws -> [String: PropertyValue] {
            var values: [String: PropertyValue] = [:]
            for property in properties {
                if let number = property.attribute {
                    values[property.name] = .attribute(source.attributeValue(number))
                } else if let operand = property.operand {
                    if let graph {
                        values[property.name] = Self.propertyValue(try CompiledComparison.value(of: operand, at: node, graph, []))
                    }
                } else {
                    values[property.name] = .toOne(node.objectID)
                }
            }
            return values
        }
        func objectDictionary(_ object: ManagedObject) throws -> [String: PropertyValue] {
            try dictionary(.object(object), ObjectSource(object: object), PredicateGraph(store: store, transaction: nil, pending: [:]))
        }
        if parent != nil { return try fetchThroughParent(fetch).map(objectDictionary) }
        if fetch.readsSubentities { return try fetchAcrossSubentities(fetch).map(objectDictionary) }
        return try run(fetch,
                       stored: { primaryKey, view, graph in
                           do {
                               try view.checkValues(attributes, of: entity)
                           } catch {
                               throw self.store.corruptRecord(entity, error)
                           }
                           return try dictionary(.record(entity, primaryKey, view), RecordSource(view: view, entity: entity), graph)
                       },
                       pending: objectDictionary)
    }

    /// A value computed on the graph, as a dictionary result holds it.
    private static func propertyValue(_ value: GraphValue) -> PropertyValue {
        switch value {
        case .scalar(let value): return .attribute(value)
        case .object(let reference): return .toOne(reference.map(Self.objectID))
        case .many(let values):
            return .toMany(values.compactMap { value -> ObjectID? in
                if case .object(let reference?) = value { return Self.objectID(reference) }
                return nil
            })
        }
    }

    private static func objectID(_ reference: ObjectReference) -> ObjectID {
        ObjectID(entity: reference.entity, number: reference.number, isTemporaryID: reference.isTemporary)
    }

    /// How many objects `request` would fetch, limit and offset applied.
    /// Without a predicate, this reads the engine's entry count (O(1) on LMDB) and adjusts
    /// it for unsaved changes.
    @inlinable
    public func count<Object>(for request: FetchRequest<Object>) throws -> Int {
        try count(untyped: request.untyped)
    }

    @usableFromInline
    func count(untyped request: FetchRequest<ManagedObject>) throws -> Int {
        try reportingSlow(request, kind: .count, count: { $0 }) { try unreportedCount(for: request) }
    }

    private func unreportedCount(for request: FetchRequest<ManagedObject>) throws -> Int {
        mergeReceivedChanges()
        if parent == nil, PreparedFetch.isWholeEntity(request), let count = try entryCount(of: request) { return count }
        let fetch = try PreparedFetch(request, model: model)
        if parent != nil { return try fetchThroughParent(fetch).count }
        if fetch.readsSubentities { return try countAcrossSubentities(fetch) }
        let pending = try pendingState(for: fetch)
        let spaces = store.spaces(for: fetch.entity)
        let stored = try readSnapshot { txn in
            // Without a predicate there is nothing to plan: the entry count
            // (the plan `explain` shows for it), without making a query.
            if fetch.predicate == nil { return try StoreQuery.entryCount(of: spaces, excluding: pending.excluded, in: txn) }
            let plan = try QueryPlanner.plan(
                fetch, spaces: spaces, store: store, forCount: true, changedEntities: changedEntities(for: fetch), in: txn)
            return try storeQuery(fetch, plan: plan, spaces: spaces, excluded: pending.excluded).count(in: txn)
        }
        return Self.counted(stored + pending.matches.count, windowedBy: request)
    }

    /// `count` matches after `request`'s offset, at most its limit.
    private static func counted(_ count: Int, windowedBy request: FetchRequest<ManagedObject>) -> Int {
        let total = max(0, count - request.fetchOffset)
        return request.fetchLimit > 0 ? min(request.fetchLimit, total) : total
    }

    /// The count of a request for a whole entity without sub-entities
    /// (``PreparedFetch/isWholeEntity(_:)``): the store's entry count and
    /// the context's changes, with no query prepared; `nil` when the
    /// entity has sub-entities to count as well.
    private func entryCount(of request: FetchRequest<ManagedObject>) throws -> Int? {
        let entity = try model.requireEntity(of: request)
        if request.includesSubentities && entity.hasSubentities { return nil }
        try PreparedFetch.checkNumbers(of: request)
        let pending = try pendingState(of: entity, matching: nil, includingPendingChanges: request.includesPendingChanges)
        let spaces = store.spaces(for: entity)
        let stored = try readSnapshot { txn in try StoreQuery.entryCount(of: spaces, excluding: pending.excluded, in: txn) }
        return Self.counted(stored + pending.matches.count, windowedBy: request)
    }

    /// Runs `request` for the result type it asks for.
    public func execute<Object>(_ request: FetchRequest<Object>) throws -> FetchResult {
        switch request.resultType {
        case .managedObject: .objects(try fetchObjects(request.untyped))
        case .managedObjectID: .objectIDs(try fetchObjectIDs(request))
        case .dictionary: .dictionaries(try fetchDictionaries(request))
        case .count: .count(try count(for: request))
        }
    }

    /// The plan a fetch of `request` would follow now: which index, if any,
    /// how it orders, how many records it expects to read.
    ///
    /// ```swift
    /// print(try context.explain(FetchRequest(entityName: "News", predicate: "objectId == 'A1'")))
    /// // SEARCH News USING UNIQUE INDEX objectId (objectId == "A1") (~1 objects)
    /// ```
    public func explain<Object>(_ request: FetchRequest<Object>) throws -> QueryPlan {
        let fetch = try PreparedFetch(request.untyped, model: model)
        if fetch.readsSubentities { return try explainAcrossSubentities(fetch) }
        let spaces = store.spaces(for: fetch.entity)
        return try readSnapshot { txn in
            try QueryPlanner.plan(
                fetch, spaces: spaces, store: store, forCount: request.resultType == .count,
                changedEntities: changedEntities(for: fetch), in: txn)
        }
    }

    // MARK: Running

    /// The entities this context has unsaved changes of, when the fetch
    /// follows relationships and sees pending changes; else none.
    private func changedEntities(for fetch: PreparedFetch) -> Set<ObjectIdentifier> {
        guard fetch.request.includesPendingChanges, fetch.predicate?.followsRelationships == true else { return [] }
        return Set(pending.lazy.filter(\.hasChanges).map { ObjectIdentifier($0.entity) })
    }

    /// The store side of a fetch: with this context's changed objects when
    /// the predicate follows relationships, so it sees them as they are now.
    private func storeQuery(_ fetch: PreparedFetch, plan: QueryPlan, spaces: EntitySpaces, excluded: Set<UInt64>) -> StoreQuery {
        var query = StoreQuery(fetch: fetch, plan: plan, spaces: spaces, store: store, excluded: excluded)
        if fetch.request.includesPendingChanges, fetch.followsRelationships {
            query.pendingObjects = PredicateGraph.pendingObjects(of: self)
        }
        return query
    }

    /// What the context's unsaved changes mean for a fetch: stored records it
    /// must not use (it has newer values or deleted them), and its own objects
    /// that match.
    private func pendingState(for fetch: PreparedFetch) throws -> (excluded: Set<UInt64>, matches: [ManagedObject]) {
        try pendingState(of: fetch.entity, matching: fetch.predicate, includingPendingChanges: fetch.request.includesPendingChanges)
    }

    /// The stored objects of `entity` this context deleted or changed
    /// (which the store's answer must leave out), and its changed and
    /// inserted objects that match `predicate` (`nil`: all).
    private func pendingState(
        of entity: EntityDescription, matching predicate: CompiledPredicate?, includingPendingChanges: Bool
    ) throws -> (excluded: Set<UInt64>, matches: [ManagedObject]) {
        guard includingPendingChanges else { return ([], []) }
        var excluded = Set<UInt64>()
        var matches: [ManagedObject] = []
        for object in pending where object.entity === entity {
            switch object.state {
            case .deleted:
                excluded.insert(object.objectID.number)
            case .persisted where object.isUpdated:
                excluded.insert(object.objectID.number)
                if try predicate?.evaluate(on: object) ?? true { matches.append(object) }
            case .inserted:
                if try predicate?.evaluate(on: object) ?? true { matches.append(object) }
            default:
                break
            }
        }
        return (excluded, matches)
    }

    /// Runs a fetch: the store's matches in one read transaction, merged
    /// with the context's own matches, then the offset and limit.
    func run<Element>(
        _ fetch: PreparedFetch,
        stored: (UInt64, RecordView, PredicateGraph?) throws -> Element,
        pending makePending: (ManagedObject) throws -> Element,
        willMake: (_ storedCount: Int) -> Void = { _ in }
    ) throws -> [Element] {
        let (excluded, matches) = try pendingState(for: fetch)
        let spaces = store.spaces(for: fetch.entity)
        let changed = changedEntities(for: fetch)
        let ordering = RowOrdering(sorts: fetch.sorts)
        if matches.isEmpty {
            // Only stored results: the offset applies now, and only the
            // results become elements. One request when the engine pays
            // per request and the plan reads in one (else it runs again in
            // a transaction: objects the first attempt registered are
            // objects this context had fetched a moment earlier).
            return try readSnapshotInOneRequest { txn in
                let plan = try QueryPlanner.plan(fetch, spaces: spaces, store: store, changedEntities: changed, in: txn)
                let query = storeQuery(fetch, plan: plan, spaces: spaces, excluded: excluded)
                let graph = query.graph(in: txn)
                var elements: [Element] = []
                var skipped = 0
                if fetch.predicate == nil, let estimate = plan.estimatedRows {
                    // Every record comes back: room for them at once.
                    let expected = max(0, min(estimate, fetch.window ?? .max) - fetch.offset)
                    willMake(expected)
                    elements.reserveCapacity(expected)
                }
                let streamed = try query.streamInOrder(in: txn, graph: graph) { primaryKey, view in
                    if skipped < fetch.offset {
                        skipped += 1
                    } else {
                        elements.append(try stored(primaryKey, view, graph))
                    }
                }
                if streamed { return elements }
                let rows = try query.rows(in: txn)
                let count = max(0, rows.count - fetch.offset)
                willMake(count)
                elements.reserveCapacity(count)
                for row in rows.dropFirst(fetch.offset) { elements.append(try stored(row.number, row.payload, graph)) }
                return elements
            }
        }
        let storedRows: [SortableRow<Element>] = try readSnapshot { txn in
            let plan = try QueryPlanner.plan(fetch, spaces: spaces, store: store, changedEntities: changed, in: txn)
            let query = storeQuery(fetch, plan: plan, spaces: spaces, excluded: excluded)
            let rows = try query.rows(in: txn)
            let graph = query.graph(in: txn)
            willMake(rows.count)
            return try rows.map {
                SortableRow(keys: $0.keys, tier: 0, number: $0.number, payload: try stored($0.number, $0.payload, graph))
            }
        }

        var merged = storedRows
        for object in matches {
            try object.loadValues()
            let isNew = object.state == .inserted
            merged.append(SortableRow(
                keys: try ordering.keys(of: ObjectSource(object: object)), tier: isNew ? 1 : 0,
                number: object.objectID.number, payload: try makePending(object)))
        }
        ordering.sort(&merged)
        let start = min(fetch.offset, merged.count)
        let end = fetch.limit.map { min($0, merged.count - start) + start } ?? merged.count
        return merged[start..<end].map(\.payload)
    }
}
