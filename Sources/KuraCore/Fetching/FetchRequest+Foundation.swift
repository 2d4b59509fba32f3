import Foundation

/// SwiftData's name for a typed fetch request: `FetchDescriptor<Article>` is
/// ``FetchRequest``, made the way SwiftData makes its descriptors.
///
/// ```swift
/// let descriptor = FetchDescriptor<Article>(
///     predicate: #Predicate { $0.rating > 3 && $0.author?.name == name },
///     sortBy: [SortDescriptor(\.addedAt, order: .reverse)])
/// let articles = try context.fetch(descriptor)      // [Article]
/// ```
public typealias FetchDescriptor<Object: ManagedObject> = FetchRequest<Object>

extension FetchRequest {
    /// A request for the objects of `Object`'s entity that match a Foundation
    /// predicate (`#Predicate`), sorted by Foundation sort descriptors, as
    /// SwiftData's `FetchDescriptor(predicate:sortBy:)`.
    ///
    /// The predicate becomes Kura's (``FetchPredicate/init(_:)-(Predicate<Root>)``)
    /// here, once: the request runs as the same predicate written in the
    /// format syntax would, through indexes, relationships and unsaved
    /// changes. A predicate or sort descriptor that can't be converted makes
    /// the request's fetches throw ``KuraError/invalidPredicate(_:)`` or
    /// ``KuraError/invalidFetchRequest(_:)`` naming the part.
    public init(predicate: Predicate<Object>?, sortBy sortDescriptors: [SortDescriptor<Object>] = []) {
        let converted = predicate.map { predicate in
            Result { try FetchPredicate(predicate) }.get(orElse: FetchPredicate.init(unconvertible:))
        }
        var sorts: [FetchSortDescriptor] = []
        var sortError: (any Error)?
        for descriptor in sortDescriptors {
            do {
                sorts.append(try FetchSortDescriptor(descriptor))
            } catch {
                sortError = sortError ?? error
            }
        }
        self.init(entity: Object.entityName, predicate: converted, sortDescriptors: sorts)
        if let sortError { self.predicate = FetchPredicate(unconvertible: sortError) }
    }

    /// Whether the context's unsaved changes count: SwiftData's name for
    /// ``includesPendingChanges``.
    public var includePendingChanges: Bool {
        get { includesPendingChanges }
        set { includesPendingChanges = newValue }
    }
}

extension Result {
    /// The success, or what `recover` makes of the failure.
    fileprivate func get(orElse recover: (Failure) -> Success) -> Success {
        switch self {
        case .success(let value): value
        case .failure(let error): recover(error)
        }
    }
}

extension FetchSortDescriptor {
    /// Foundation's sort descriptor as Kura's: its key path (through to-one
    /// relationships too), its order, and its string comparator
    /// (`.lexical` is ``Comparison/compare``; `.localizedStandard` and
    /// `.localized`, where the platform's Foundation has them, are
    /// ``Comparison/localizedStandardCompare`` and ``Comparison/localizedCompare``).
    ///
    /// - Throws: ``KuraError/invalidFetchRequest(_:)`` for a descriptor without
    ///   a key path (a comparator of its own), a key path that isn't of
    ///   stored properties (a computed property), or a comparator Kura doesn't have.
    public init<Root: ManagedObject>(_ descriptor: SortDescriptor<Root>) throws {
        guard let keyPath = descriptor.keyPath else {
            throw KuraError.invalidFetchRequest("a SortDescriptor without a key path can't sort in the store")
        }
        var comparison = Comparison.compare
        if let comparator = descriptor.stringComparator {
            guard let known = Self.comparison(of: comparator) else {
                throw KuraError.invalidFetchRequest("SortDescriptor(\(keyPath)): its string comparator has no Kura equivalent")
            }
            comparison = known
        }
        guard let names = PropertyKeyPathNames.propertyNames(of: keyPath, root: Root.self) else {
            throw KuraError.invalidFetchRequest(
                "SortDescriptor(\(keyPath)): not a stored property of \(Root.self) (only @Attribute properties, through to-ones, sort in the store)")
        }
        self.init(key: names.joined(separator: "."), ascending: descriptor.order == .forward, comparison: comparison)
    }

    /// Kura's comparison for a Foundation string comparator.
    private static func comparison(of comparator: String.StandardComparator) -> Comparison? {
        var forward = comparator
        forward.order = .forward
        if forward == .lexical { return .compare }
        #if canImport(Darwin)
        if forward == .localizedStandard { return .localizedStandardCompare }
        if forward == .localized { return .localizedCompare }
        #endif
        return nil
    }
}
