/// Opens a store and hands out contexts on it: the entry point of Kura.
///
/// ```swift
/// let model = try ManagedObjectModel(News.self)
/// let container = try PersistentContainer(path: "news.kura", model: model)
/// let context = container.newContext()
/// ```
///
/// `PersistentContainer(path:model:)` is the embedded LMDB store; the store
/// can be any engine's (``StoreDescription``), and everything else reads the same:
///
/// ```swift
/// let container = try PersistentContainer(store: .lmdb(path: "news.kura"), model: model)
/// ```
///
/// The container is `Sendable`: share it between tasks and threads, and give
/// each its own context. LMDB lets any number of readers work while one
/// writer saves, without blocking each other.
///
/// Open a store file once per process and share the container: a second
/// container on the same file in the same process throws
/// ``KuraError/storage(path:failure:)`` (LMDB forbids opening a file twice in
/// one process). Other processes may open it at the same time.
public final class PersistentContainer: Sendable {
    /// The open store.
    public let store: PersistentStore

    /// The model in use.
    public var model: ManagedObjectModel { store.model }

    /// Opens (or creates) the store `store` describes for `model`, migrating
    /// a store made with an earlier version of the model.
    ///
    /// - Throws: see ``PersistentStore/init(_:model:migration:)``.
    public init(store: StoreDescription, model: ManagedObjectModel, migration: MigrationOptions = .automatic) throws {
        self.store = try PersistentStore(store, model: model, migration: migration)
    }

    /// Opens an existing store with the model it keeps, without the app's
    /// classes (as `PersistentContainer(path:)` does on LMDB), on any engine.
    public init(store: StoreDescription) throws {
        self.store = try PersistentStore(store, model: nil)
    }

    /// A new context on the store, for the caller's isolation domain.
    public func newContext() -> ManagedObjectContext {
        ManagedObjectContext(store: store)
    }

    /// Runs `body` with a new context on a thread of its own (a new
    /// ``BackgroundContext``), and returns its result: the caller's task
    /// waits without holding a thread of the cooperative pool, however long
    /// the body blocks on the writer lock or the disk.
    ///
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in
    ///     try context.count(for: FetchRequest(entityName: "News"))
    /// }
    /// ```
    public func performBackgroundTask<Result: Sendable>(
        _ body: @escaping @Sendable (ManagedObjectContext) throws -> Result
    ) async throws -> Result {
        try await newBackgroundContext().perform(body)
    }

    /// Closes the store; its contexts throw ``KuraError/storeClosed(path:)``
    /// from then on.
    public func close() {
        store.close()
    }
}
