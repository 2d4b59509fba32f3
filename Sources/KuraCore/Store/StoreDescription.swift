/// Which engine holds a store, and how to open it: what
/// ``PersistentContainer/init(store:model:migration:)`` takes.
///
/// ```swift
/// let container = try PersistentContainer(store: .lmdb(path: "news.kura"), model: model)
/// ```
///
/// The embedded LMDB file is Kura's own engine. Other engines come in
/// products of their own, which add their spelling to this type (an
/// extension with a static function returning a description), so an app
/// that uses only the embedded store never builds their clients.
public struct StoreDescription: Sendable {
    /// Opens the engine, given the model the app expects (`nil`: the
    /// store's own), which an engine may size itself for.
    let openEngine: @Sendable (ManagedObjectModel?) throws -> any StorageEngine
    /// The options the store opens with.
    public let options: StoreOptions

    /// A description of a store on an engine `openEngine` opens.
    ///
    /// - Parameters:
    ///   - options: The store's options: ``StoreOptions/tracksHistory`` and
    ///     ``StoreOptions/isReadOnly`` for every engine, and the engine's own
    ///     (``StoreOptions/subscript(engine:)``) for `openEngine` to read.
    ///   - openEngine: Opens the engine, given the app's model (or `nil`).
    public init(options: StoreOptions = StoreOptions(),
                openEngine: @escaping @Sendable (ManagedObjectModel?) throws -> any StorageEngine) {
        self.options = options
        self.openEngine = openEngine
    }

    /// A new, empty store in memory only, Core Data's in-memory store type:
    /// for tests and previews. Everything works as on a file (history,
    /// observation, migrations of a store opened again on the same engine)
    /// except what needs a file (``PersistentStore/statistics()``,
    /// ``PersistentStore/backup(to:compacting:)``,
    /// ``PersistentStore/check(problemLimit:)``) and other processes. The
    /// store is gone when its container closes or goes away.
    ///
    /// - Parameters:
    ///   - name: A name for messages (`memory:name`).
    ///   - options: Of these, only ``StoreOptions/tracksHistory`` applies.
    /// - Complexity: lookups are O(log n); each insertion or removal moves
    ///   the keys after it (O(n) in its index or records), which suits the
    ///   thousands of objects of a test, not the millions of a store.
    public static func inMemory(name: String = "store", options: StoreOptions = StoreOptions()) -> StoreDescription {
        StoreDescription(options: options) { _ in InMemoryEngine(name: name) }
    }
}

extension PersistentStore {
    /// Opens the store `description` names (see ``init(engine:model:options:migration:)``).
    public convenience init(
        _ description: StoreDescription, model: ManagedObjectModel?, migration: MigrationOptions = .automatic
    ) throws {
        // Before the engine opens: a model refused leaves no new file behind.
        try model?.checkVersionIdentifier()
        try self.init(engine: description.openEngine(model), model: model, options: description.options, migration: migration)
    }
}
