/// A context that lives on a thread of its own, used from any task with
/// `await`: Core Data's private-queue context with `perform { }`, or
/// SwiftData's `ModelActor`.
///
/// ```swift
/// let importer = container.newBackgroundContext()
/// let ids = try await importer.perform { context in
///     let added = feed.map { item in
///         let news = News(context: context)
///         news.title = item.title
///         return news
///     }
///     try context.save()               // the writer lock and fsync wait here, not on the pool
///     return added.map(\.objectID)     // Sendable values cross back; objects don't
/// }
/// ```
///
/// Its methods run on its ``ContextExecutor``'s thread, so a save waiting
/// for another process's writer lock or for the disk, or a long fetch,
/// blocks that thread alone and never one of Swift's cooperative pool.
/// Cancelling the awaiting task cancels a fetch or count in progress (it
/// throws `CancellationError`); a save, once started, finishes.
///
/// Objects stay inside: ``perform(_:)`` hands the body the context, and
/// only `Sendable` results (``ObjectID``s, values) come out. To write an
/// actor with methods of its own around a context, give it a
/// ``ContextExecutor`` the same way.
public actor BackgroundContext {
    /// The executor whose thread runs the actor.
    public nonisolated let executor: ContextExecutor
    /// The context, usable only on the actor (in ``perform(_:)`` or the
    /// actor's methods).
    public let context: ManagedObjectContext

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// A new context on `store`, on a new thread.
    public init(store: PersistentStore, name: String = "Kura background context") {
        executor = ContextExecutor(name: name)
        context = ManagedObjectContext(store: store)
    }

    /// Runs `body` with the context on the actor's thread, and returns its result.
    public func perform<Result: Sendable>(_ body: @Sendable (ManagedObjectContext) throws -> Result) rethrows -> Result {
        try body(context)
    }

    /// Saves the context (see ``ManagedObjectContext/save()``).
    public func save() throws {
        try context.save()
    }

    /// The IDs of the objects `request` matches (see
    /// ``ManagedObjectContext/fetchObjectIDs(_:)``).
    public func fetchObjectIDs<Object>(_ request: FetchRequest<Object>) throws -> [ObjectID] {
        try context.fetchObjectIDs(request)
    }

    /// How many objects `request` matches (see ``ManagedObjectContext/count(for:)``).
    public func count<Object>(for request: FetchRequest<Object>) throws -> Int {
        try context.count(for: request)
    }
}

extension PersistentContainer {
    /// A context on a thread of its own, for work that shouldn't hold up
    /// the caller's: imports, exports, large fetches (see ``BackgroundContext``).
    public func newBackgroundContext() -> BackgroundContext {
        BackgroundContext(store: store)
    }
}
