/// A description of objects to fetch: an entity, a predicate, sort
/// descriptors, a limit and an offset, and the shape of the results, typed
/// by the class of the objects it fetches (as Core Data's
/// `NSFetchRequest<Article>`; SwiftData's name for it,
/// ``FetchDescriptor``, is the same type).
///
/// ```swift
/// var request = FetchRequest<News>(predicate: \News.sortOrder > 3, sortBy: [FetchSortDescriptor(\News.sortOrder)])
/// request.fetchLimit = 10
/// let news: [News] = try context.fetch(request)
///
/// let recent = FetchRequest<News>(predicate: #Predicate { $0.sortOrder > 3 && $0.imageURL != nil },
///                                 sortBy: [SortDescriptor(\.dateCreated, order: .reverse)])
/// let newest = News.fetchRequest().sorted(by: \.dateCreated, ascending: false).limited(to: 5)
/// ```
///
/// The entity is the class's (``ManagedObject/entityName``). For a model
/// without classes, or a tool that knows entities only by name, the untyped
/// request is `FetchRequest<ManagedObject>`, made with an entity name:
/// `FetchRequest(entityName: "News", predicate: "sortOrder > 3")`. Both run
/// through the same engine; a typed request is that request, with the
/// compiler checking its class, predicate and sort keys.
///
/// A request is a value: change a copy freely. Fetches check it against the
/// model before reading anything.
public struct FetchRequest<Object: ManagedObject>: Sendable, Hashable, CustomStringConvertible {
    /// What a fetch returns (``FetchResultType``).
    public typealias ResultType = FetchResultType

    /// The entity whose objects are fetched.
    public var entityName: String {
        didSet { compiledPredicate = nil }
    }
    /// The condition objects must meet; `nil` for every object.
    public var predicate: FetchPredicate? {
        get { compiledPredicate?.substitutedPredicate ?? storage.predicate }
        set {
            mutableStorage.predicate = newValue
            compiledPredicate = nil
        }
    }
    /// The predicate already compiled, for requests made from templates.
    /// Changing the entity or the predicate drops it.
    @usableFromInline var compiledPredicate: CompiledPredicateBox?
    /// The order of the results; empty for store order (primary key, then
    /// unsaved objects in insertion order).
    public var sortDescriptors: [FetchSortDescriptor] {
        get { storage.sortDescriptors }
        set { mutableStorage.sortDescriptors = newValue }
    }
    /// At most this many results; 0 for no limit.
    public var fetchLimit = 0
    /// Skip this many results first.
    public var fetchOffset = 0
    /// How many objects ``ManagedObjectContext/fetchBatched(_:)`` loads at a
    /// time; 0 for its default, ``defaultBatchSize``. As Core Data's
    /// `fetchBatchSize`, it changes when objects load, never which ones
    /// match. ``ManagedObjectContext/fetch(_:)`` returns an array, so it
    /// loads every object at once whatever this says.
    public var fetchBatchSize = 0
    /// The batch size of a batched fetch whose request sets none.
    public static var defaultBatchSize: Int { 1000 }
    /// What the fetch returns; see ``ManagedObjectContext/execute(_:)->FetchResult``.
    public var resultType = FetchResultType.managedObject
    /// The properties of dictionary results: attributes, relationships, key
    /// paths through relationships (`author.name`) and aggregates
    /// (`tags.@count`); empty for every attribute and relationship.
    public var propertiesToFetch: [String] {
        get { storage.propertiesToFetch }
        set { mutableStorage.propertiesToFetch = newValue }
    }
    /// Relationship key paths (`author`, `tags`, `author.publisher`) whose
    /// destinations a fetch of objects loads in the same pass, as Core Data's
    /// `relationshipKeyPathsForPrefetching`: reading them afterwards needs no
    /// store read per object.
    public var relationshipKeyPathsForPrefetching: [String] {
        get { storage.relationshipKeyPathsForPrefetching }
        set { mutableStorage.relationshipKeyPathsForPrefetching = newValue }
    }
    /// Whether the context's unsaved changes count (default true): unsaved
    /// inserts appear, deleted objects vanish, changed objects are filtered
    /// and sorted by their current values, and the limit and offset apply
    /// after that. When false, the results are what the store holds (objects
    /// the context has changed still come back as the context's instances).
    public var includesPendingChanges = true
    /// Whether the planner may use indexes (default true). Turn it off to
    /// measure a plan without them, or to avoid an index the planner
    /// misjudges, as SQLite's `NOT INDEXED` does. Results are the same either way.
    public var allowsIndexes = true
    /// Whether a fetch of an entity with sub-entities returns their objects
    /// too (default true), as Core Data's `includesSubentities`: a fetch of
    /// `Media` returns its `Video`s and `Audio`s, each an instance of its
    /// own class. When false, only the entity's own objects come back.
    public var includesSubentities = true

    /// The parts that hold references (the predicate and the lists),
    /// shared by copies until one changes (copy on write): a request made
    /// from a template is a copy of the template's, and retaining and
    /// releasing each part per lookup was much of a lookup's cost.
    /// A request without them shares ``FetchRequestStorage/defaults``
    /// and allocates nothing; the numbers and flags stay in the request, so
    /// setting a limit doesn't copy the storage.
    @usableFromInline var storage: FetchRequestStorage

    private var mutableStorage: FetchRequestStorage {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = FetchRequestStorage(copying: storage) }
            return storage
        }
    }

    /// The same request typed by another class (its parts shared).
    /// Inlinable, as ``untyped`` is: a typed call specialised in the
    /// caller's module copies the fields as they are; unspecialised, it
    /// asked the runtime for the generic struct's metadata twice a call
    /// (a count was 11,300 instructions, 2,700 of them this).
    @inlinable
    init<Other: ManagedObject>(retyping other: FetchRequest<Other>) {
        entityName = other.entityName
        storage = other.storage
        compiledPredicate = other.compiledPredicate
        fetchLimit = other.fetchLimit
        fetchOffset = other.fetchOffset
        fetchBatchSize = other.fetchBatchSize
        resultType = other.resultType
        includesPendingChanges = other.includesPendingChanges
        allowsIndexes = other.allowsIndexes
        includesSubentities = other.includesSubentities
    }

    /// A request for objects of `entityName`, with a predicate and sort
    /// descriptors of its own (storage shared when they are empty).
    init(entity entityName: String, predicate: FetchPredicate?, sortDescriptors: [FetchSortDescriptor]) {
        self.entityName = entityName
        storage = predicate == nil && sortDescriptors.isEmpty
            ? .defaults : FetchRequestStorage(predicate: predicate, sortDescriptors: sortDescriptors)
    }

    /// This request untyped: `FetchRequest<ManagedObject>`, for code that
    /// handles requests of any entity.
    @inlinable
    public var untyped: FetchRequest<ManagedObject> { FetchRequest<ManagedObject>(retyping: self) }

    /// A copy sorted by `key` after any sort descriptors it has.
    public func sorted(by key: String, ascending: Bool = true, comparison: FetchSortDescriptor.Comparison = .compare) -> FetchRequest {
        var copy = self
        copy.sortDescriptors.append(FetchSortDescriptor(key: key, ascending: ascending, comparison: comparison))
        return copy
    }

    /// A copy sorted by a key path of the request's class (through to-one
    /// relationships too: `\Article.author?.name`) after any sort
    /// descriptors it has.
    public func sorted<Value>(
        by keyPath: KeyPath<Object, Value>, ascending: Bool = true, comparison: FetchSortDescriptor.Comparison = .compare
    ) -> FetchRequest {
        var copy = self
        copy.sortDescriptors.append(FetchSortDescriptor(keyPath, ascending: ascending, comparison: comparison))
        return copy
    }

    /// A copy that loads the destinations of these relationships (of the
    /// request's class, through to-ones too: `\Article.author?.publisher`)
    /// in the same pass: ``relationshipKeyPathsForPrefetching``, typed.
    public func prefetching(_ keyPaths: PartialKeyPath<Object>...) -> FetchRequest {
        var copy = self
        copy.relationshipKeyPathsForPrefetching += keyPaths.map { PropertyKeyPathNames.path(of: $0, root: Object.self) }
        return copy
    }

    /// A copy that also requires `predicate` (text, or a tree built in code).
    public func filtered(by predicate: FetchPredicate) -> FetchRequest {
        var copy = self
        copy.predicate = self.predicate.map { $0 && predicate } ?? predicate
        return copy
    }

    /// A copy that also requires a predicate of the request's class.
    public func filtered(by predicate: KeyPathPredicate<Object>) -> FetchRequest {
        filtered(by: predicate.predicate)
    }

    /// A copy with a fetch limit (and an offset).
    public func limited(to limit: Int, offset: Int = 0) -> FetchRequest {
        var copy = self
        copy.fetchLimit = limit
        copy.fetchOffset = offset
        return copy
    }

    public static func == (lhs: FetchRequest, rhs: FetchRequest) -> Bool {
        lhs.entityName == rhs.entityName && lhs.predicate == rhs.predicate && lhs.sortDescriptors == rhs.sortDescriptors
            && lhs.fetchLimit == rhs.fetchLimit && lhs.fetchOffset == rhs.fetchOffset && lhs.resultType == rhs.resultType
            && lhs.fetchBatchSize == rhs.fetchBatchSize
            && lhs.propertiesToFetch == rhs.propertiesToFetch && lhs.includesPendingChanges == rhs.includesPendingChanges
            && lhs.allowsIndexes == rhs.allowsIndexes && lhs.relationshipKeyPathsForPrefetching == rhs.relationshipKeyPathsForPrefetching
            && lhs.includesSubentities == rhs.includesSubentities
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entityName)
        hasher.combine(predicate)
        hasher.combine(sortDescriptors)
        hasher.combine(fetchLimit)
        hasher.combine(fetchOffset)
    }

    /// `News where sortOrder > 3 sort sortOrder ASC limit 10`, as `kura` reads it.
    public var description: String {
        var text = entityName
        if let predicate { text += " where \(predicate.predicateFormat)" }
        if !sortDescriptors.isEmpty {
            text += " sort " + sortDescriptors.map { "\($0.key) \($0.ascending ? "asc" : "desc")" }.joined(separator: ", ")
        }
        if fetchLimit > 0 { text += " limit \(fetchLimit)" }
        if fetchOffset > 0 { text += " offset \(fetchOffset)" }
        return text
    }
}

/// What a fetch returns (``FetchRequest/resultType``).
public enum FetchResultType: String, Sendable, Hashable {
    /// Objects, registered in the context.
    case managedObject
    /// Object IDs only; no object is made.
    case managedObjectID
    /// Dictionaries of ``FetchRequest/propertiesToFetch`` (all attributes
    /// when empty); no object is made for stored results.
    case dictionary
    /// The number of matches only.
    case count
}

/// The parts of a ``FetchRequest`` that hold references. Changed only
/// through the request's `mutableStorage`, so only while one request holds it.
@usableFromInline
final class FetchRequestStorage: @unchecked Sendable {
    /// Every part at its default, never changed (a shared instance is
    /// copied before a change).
    static let defaults = FetchRequestStorage(predicate: nil, sortDescriptors: [])

    var predicate: FetchPredicate?
    var sortDescriptors: [FetchSortDescriptor]
    var propertiesToFetch: [String] = []
    var relationshipKeyPathsForPrefetching: [String] = []

    init(predicate: FetchPredicate?, sortDescriptors: [FetchSortDescriptor]) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
    }

    init(copying other: FetchRequestStorage) {
        predicate = other.predicate
        sortDescriptors = other.sortDescriptors
        propertiesToFetch = other.propertiesToFetch
        relationshipKeyPathsForPrefetching = other.relationshipKeyPathsForPrefetching
    }
}

extension FetchRequest where Object == ManagedObject {
    /// A request for objects of `entityName`, by name, optionally filtered
    /// and sorted: the untyped request, for models without classes and
    /// tools. Nothing is checked until the request is fetched (or
    /// registered as a template).
    public init(entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.init(entity: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
    }
}

extension FetchRequest {
    /// A request for the objects of `Object`'s entity: its predicate
    /// written as text or built in code, checked against the entity when
    /// the request is fetched.
    ///
    /// ```swift
    /// let request = FetchRequest<News>(predicate: "sortOrder > 3", sortBy: [FetchSortDescriptor(\News.sortOrder)])
    /// ```
    public init(predicate: FetchPredicate? = nil, sortBy sortDescriptors: [FetchSortDescriptor] = []) {
        self.init(entity: Object.entityName, predicate: predicate, sortDescriptors: sortDescriptors)
    }

    /// A request for the objects of `Object`'s entity that match a
    /// predicate of key paths of `Object`, which the compiler checks.
    ///
    /// ```swift
    /// let request = FetchRequest<Article>(predicate: \Article.rating > 3 && \Article.author?.name == "Ann")
    /// ```
    public init(predicate: KeyPathPredicate<Object>, sortBy sortDescriptors: [FetchSortDescriptor] = []) {
        self.init(entity: Object.entityName, predicate: predicate.predicate, sortDescriptors: sortDescriptors)
    }
}

extension ManagedObjectAccessors where Self: ManagedObject {
    /// A request for the objects of this class's entity, typed by the class
    /// (Core Data's generated `fetchRequest()`).
    ///
    /// ```swift
    /// let news = try context.fetch(News.fetchRequest().sorted(by: \.sortOrder))   // [News]
    /// ```
    public static func fetchRequest() -> FetchRequest<Self> {
        FetchRequest<Self>()
    }
}
