/// A description of objects to fetch: an entity, and (coming with the next
/// step) a predicate, sort descriptors, a limit and an offset.
public struct FetchRequest: Sendable, Hashable {
    /// The entity whose objects are fetched.
    public var entityName: String
    /// At most this many results; 0 for no limit.
    public var fetchLimit = 0
    /// Skip this many results first.
    public var fetchOffset = 0
    /// Whether the context's unsaved inserts, changes and deletions count.
    public var includesPendingChanges = true

    public init(entityName: String) {
        self.entityName = entityName
    }
}
