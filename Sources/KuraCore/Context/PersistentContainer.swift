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
    /// The threads ``performBackgroundTask(_:)`` shares out, made as work needs them.
    let backgroundPool: ContextExecutorPool

    /// The model in use.
    public var model: ManagedObjectModel { store.model }

    /// Opens (or creates) the store `store` describes for `model`, migrating
    /// a store made with an earlier version of the model.
    ///
    /// - Throws: see ``PersistentStore/init(_:model:migration:)``.
    public init(store: StoreDescription, model: ManagedObjectModel, migration: MigrationOptions = .automatic) throws {
        self.store = try PersistentStore(store, model: model, migration: migration)
        backgroundPool = ContextExecutorPool(threadLimit: store.options.backgroundThreadLimit, name: "Kura pool")
    }

    /// Opens an existing store with the model it keeps, without the app's
    /// classes (as `PersistentContainer(path:)` does on LMDB), on any engine.
    public init(store: StoreDescription) throws {
        self.store = try PersistentStore(store, model: nil)
        backgroundPool = ContextExecutorPool(threadLimit: store.options.backgroundThreadLimit, name: "Kura pool")
    }

    /// A new context on the store, for the caller's isolation domain.
    public func newContext() -> ManagedObjectContext {
        ManagedObjectContext(store: store)
    }

    /// Runs `body` with a new context on one of the container's background
    /// threads, and returns its result: the caller's task waits without
    /// holding a thread of the cooperative pool (or an event loop), however
    /// long the body blocks on the writer lock or the disk.
    ///
    /// ```swift
    /// let count = try await container.performBackgroundTask { context in
    ///     try context.count(for: FetchRequest(entityName: "News"))
    /// }
    /// ```
    ///
    /// Made for request-scoped work, as a server's handlers do it: the
    /// context is new for each body and gone after it (cheap: no thread, no
    /// read until it fetches), and the bodies share at most
    /// ``StoreOptions/backgroundThreadLimit`` threads, each running one body
    /// at a time. A thousand concurrent calls hold that many threads, not a
    /// thousand; the others wait their turn in a queue. Return `Sendable`
    /// values (object IDs, ``ObjectSnapshot``s), not objects. Cancelling the
    /// awaiting task cancels a fetch or count in progress in the body.
    ///
    /// - Throws: what `body` throws; ``KuraError/storeClosed(path:)`` once
    ///   ``shutDown()`` began.
    public func performBackgroundTask<Result: Sendable>(
        _ body: @escaping @Sendable (ManagedObjectContext) throws -> Result
    ) async throws -> Result {
        let store = self.store
        guard let pooled = backgroundPool.take() else { throw KuraError.storeClosed(path: store.path) }
        return try await PooledWork(on: pooled).run { try body(ManagedObjectContext(store: store)) }
    }

    /// How many threads ``performBackgroundTask(_:)`` has started so far
    /// (at most ``StoreOptions/backgroundThreadLimit``).
    public var backgroundThreadCount: Int { backgroundPool.threadCount }

    /// Closes the store; its contexts throw ``KuraError/storeClosed(path:)``
    /// from then on.
    public func close() {
        store.close()
    }
}
