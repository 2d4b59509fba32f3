extension ManagedObjectContext {
    /// The results of `request`, now and after every save that could
    /// change them: what `NSFetchedResultsController` gives a table view,
    /// as an async sequence.
    ///
    /// ```swift
    /// let request = FetchRequest<News>().sorted(by: \.category).sorted(by: \.title)
    /// for try await results in context.results(for: request, sectionNameKey: "category") {
    ///     tableView.apply(results.difference)      // or redraw from results.sections; results.objects: [News]
    /// }
    /// ```
    ///
    /// The first element holds the current results. A new element follows
    /// each save (of this context, another context of the store in this
    /// process, or another process) that inserted, changed or deleted
    /// objects of an entity the request reads: its entity, and every entity
    /// the key paths of its predicate and sorts pass through. Saves of other
    /// entities cost the observer nothing.
    /// Before fetching again, the context merges what the other contexts
    /// and processes saved (as ``mergeChanges(_:)`` does), so the objects
    /// hold the saved values. Several saves in quick succession may arrive
    /// as one element; a save that leaves the results, their order and
    /// their objects as they were yields nothing.
    ///
    /// Other processes' saves are seen through the store file (see
    /// ``PersistentStore/commits()``) within milliseconds. When the store
    /// tracks history (``StoreOptions/tracksHistory``) their changes are
    /// read from it and merged like local ones; otherwise every object the
    /// context holds is refreshed (``refreshAllObjects()``) and every result
    /// that stays counts as updated.
    ///
    /// Unsaved changes of this context are in the results (the request's
    /// ``FetchRequest/includesPendingChanges``), but changing an object
    /// yields nothing until a save.
    ///
    /// Iterate the sequence in the task that owns the context: the objects
    /// belong to it. The sequence ends (returns `nil`) when that task is
    /// cancelled, and stops observing when the loop ends.
    ///
    /// - Parameters:
    ///   - request: The fetch to run now and after every save that may change its results.
    ///   - sectionNameKey: The attribute whose value groups the
    ///     results into ``FetchedResults/sections``, or `nil` for one section.
    /// - Throws: from the first iteration, the errors of ``fetch(_:)`` and
    ///   ``KuraError/invalidFetchRequest(_:)`` for an unknown section key;
    ///   ``KuraError/storage(path:failure:)`` when the system can't watch the
    ///   store file; later, the errors of ``fetch(_:)``.
    public func results<Object>(for request: FetchRequest<Object>, sectionNameKey: String? = nil) -> FetchedResultsSequence<Object> {
        FetchedResultsSequence(context: self, request: request.untyped, sectionNameKey: sectionNameKey)
    }

    /// The results of `request`, grouped into sections by the attribute at
    /// `keyPath` (of the request's class, through to-ones too):
    /// ``results(for:sectionNameKey:)`` with the key the compiler checks.
    ///
    /// ```swift
    /// for try await results in context.results(for: request, sectionedBy: \.category) { … }
    /// ```
    public func results<Object, Value>(for request: FetchRequest<Object>, sectionedBy keyPath: KeyPath<Object, Value>) -> FetchedResultsSequence<Object> {
        results(for: request, sectionNameKey: PropertyKeyPathNames.path(of: keyPath))
    }

    /// Brings every object the context holds up to date with the store:
    /// ``refresh(_:mergeChanges:)`` for each, keeping unsaved changes
    /// (Core Data's `refreshAllObjects()`). Objects without changes become
    /// faults and read the stored values when next used; an object deleted
    /// from the store meanwhile leaves the context.
    public func refreshAllObjects() {
        for registry in registries.values {
            for object in Array(registry.objects.values) {
                if object.hasChanges {
                    do { try refresh(object, mergeChanges: true) } catch { forget(object) }
                } else {
                    try? refresh(object, mergeChanges: false)
                }
            }
        }
    }
}

/// The async sequence of ``ManagedObjectContext/results(for:sectionNameKey:)``.
public struct FetchedResultsSequence<Object: ManagedObject>: AsyncSequence {
    public typealias Element = FetchedResults<Object>
    public typealias Failure = any Error

    let context: ManagedObjectContext
    let request: FetchRequest<ManagedObject>
    let sectionNameKey: String?

    public func makeAsyncIterator() -> Iterator {
        Iterator(observation: ResultsObservation(
            context: context, request: request, sectionNameKey: sectionNameKey,
            checkClass: { try $0.checkClass(Object.self, of: $1) }))
    }

    /// Fetches the results again after each save that could change them.
    public struct Iterator: AsyncIteratorProtocol {
        let observation: ResultsObservation

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> FetchedResults<Object>? {
            try await observation.next(isolation: actor)?.retyped(as: Object.self)
        }

        public mutating func next() async throws -> FetchedResults<Object>? {
            try await observation.next(isolation: nil)?.retyped(as: Object.self)
        }
    }
}

/// The state of one observation: its registration with the store, and the
/// previous results to compare with.
final class ResultsObservation {
    let context: ManagedObjectContext
    let request: FetchRequest<ManagedObject>
    let sectionNameKey: String?
    /// Checks that the entity's objects are of the sequence's class.
    let checkClass: (ManagedObjectContext, FetchRequest<ManagedObject>) throws -> Void
    private(set) var inbox: ObserverInbox?
    /// The previous results (held, so no identity is reused while compared) and section names.
    private var previous: (objects: [ManagedObject], sections: [String]) = ([], [])
    private var isFinished = false
    /// How many times the request was fetched (for tests: saves that can't
    /// change the results must not fetch).
    private(set) var fetchCount = 0

    init(
        context: ManagedObjectContext, request: FetchRequest<ManagedObject>, sectionNameKey: String?,
        checkClass: @escaping (ManagedObjectContext, FetchRequest<ManagedObject>) throws -> Void
    ) {
        self.context = context
        self.request = request
        self.sectionNameKey = sectionNameKey
        self.checkClass = checkClass
    }

    deinit {
        if let inbox { context.store.observers.unregister(inbox) }
    }

    func next(isolation actor: isolated (any Actor)?) async throws -> FetchedResults<ManagedObject>? {
        guard !isFinished else { return nil }
        do {
            guard let inbox else { return try start() }
            while true {
                guard let delivery = await inbox.next() else { return finish() }
                var changed = Set<ObjectID>()
                for (changes, merges) in delivery.saves {
                    if merges { context.mergeChanges(changes) }
                    changed.formUnion(changes.updated)
                }
                if delivery.refreshesEverything { context.refreshAllObjects() }
                let results = try fetch { delivery.refreshesEverything || changed.contains($0.objectID) }
                if !results.difference.isEmpty { return results }
            }
        } catch is CancellationError {
            return finish()
        } catch {
            _ = finish()
            throw error
        }
    }

    /// Checks the request, registers with the store, and fetches the first results.
    private func start() throws -> FetchedResults<ManagedObject>? {
        if Task.isCancelled { return finish() }
        let prepared = try PreparedFetch(request, model: context.model)
        try checkClass(context, request)
        if let key = sectionNameKey, prepared.entity.attributeNumber(named: key) == nil {
            throw KuraError.invalidFetchRequest("unknown section key '\(key)': \(prepared.entity.name) has no such attribute")
        }
        let inbox = ObserverInbox(entities: prepared.entitiesRead, observer: ObjectIdentifier(context))
        try context.store.observers.register(inbox, store: context.store)
        self.inbox = inbox
        return try fetch { _ in false }
    }

    /// Fetches the results and compares them with the previous ones.
    private func fetch(isChanged: (ManagedObject) -> Bool) throws -> FetchedResults<ManagedObject> {
        let objects = try context.fetch(request)
        fetchCount += 1
        var sections: [FetchedResultsSection] = []
        if let key = sectionNameKey {
            var start = 0
            var name: String?
            for (position, object) in objects.enumerated() {
                let value = try object.value(forKey: key).map(String.init(describing:)) ?? ""
                if value != name {
                    if let name { sections.append(.init(name: name, range: start..<position)) }
                    name = value
                    start = position
                }
            }
            if let name { sections.append(.init(name: name, range: start..<objects.count)) }
        } else if !objects.isEmpty {
            sections = [.init(name: "", range: 0..<objects.count)]
        }
        let identities = objects.map(ObjectIdentifier.init)
        let names = sections.map(\.name)
        let difference = ResultsDifference(
            from: previous.objects.map(ObjectIdentifier.init), to: identities, isChanged: { isChanged(objects[$0]) },
            oldSections: previous.sections, newSections: names)
        previous = (objects, names)
        return FetchedResults(objects: objects, sections: sections, difference: difference)
    }

    private func finish() -> FetchedResults<ManagedObject>? {
        isFinished = true
        if let inbox {
            inbox.cancel()
            context.store.observers.unregister(inbox)
            self.inbox = nil
        }
        return nil
    }
}
