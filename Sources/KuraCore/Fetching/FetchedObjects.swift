/// The results of ``ManagedObjectContext/fetchBatched(_:)``: a collection
/// whose objects load batch by batch as they are reached, as the array Core
/// Data returns for a request with a `fetchBatchSize`.
///
/// ```swift
/// var request = News.fetchRequest().sorted(by: "sortOrder")
/// request.fetchBatchSize = 500
/// for news in try context.fetchBatched(request, as: News.self) {
///     total += news.title.count       // about 500 objects in memory at a time
/// }
/// ```
///
/// The fetch itself finds only which objects match, in order (8 bytes per
/// result). Reaching an element loads its whole batch in one read
/// transaction; moving on to another batch lets go of the previous one: each
/// of its objects that has no unsaved changes and that nothing outside the
/// context holds leaves the context, so walking a million objects keeps one
/// batch in memory. Objects you keep a reference to, or change, stay
/// registered as with ``ManagedObjectContext/fetch(_:)``, and the same object
/// is always the same instance.
///
/// Batches after the first read the store as it is when they load: an
/// object another context deleted in between comes back as a fault, whose
/// values can't be read (``ManagedObject/value(forKey:)`` throws
/// ``KuraError/objectNotFound(_:)``). Use ``object(at:)`` to get a batch's
/// loading errors as errors; reaching an element by subscript turns them
/// into faults that report the error when read.
///
/// Not `Sendable`: the results belong to their context's isolation domain.
/// They keep the context alive.
public struct FetchedObjects<Object: ManagedObject>: RandomAccessCollection {
    let loader: BatchLoader

    public var startIndex: Int { 0 }
    public var endIndex: Int { loader.count }

    /// How many objects each batch holds.
    public var batchSize: Int { loader.batchSize }

    /// The object at `position`, loading its batch if it isn't loaded.
    public subscript(position: Int) -> Object {
        unsafeDowncast(loader.object(at: position), to: Object.self)
    }

    /// The object at `position`, loading its batch if it isn't loaded.
    ///
    /// - Throws: the store's errors reading the batch
    ///   (``KuraError/storage(path:failure:)``, a corrupt record), which the
    ///   subscript turns into faults.
    public func object(at position: Int) throws -> Object {
        unsafeDowncast(try loader.loadedObject(at: position), to: Object.self)
    }

    /// The IDs of every result, without loading any object.
    public var objectIDs: [ObjectID] {
        loader.objectIDs
    }
}

/// What ``FetchedObjects`` holds: the ordered results as primary keys (and
/// the context's own unsaved matches by position), and the loaded batch.
final class BatchLoader {
    let context: ManagedObjectContext
    let entity: EntityDescription
    let batchSize: Int
    /// The stored results' primary keys in result order; unused where
    /// `pending` holds the position's object.
    private let keys: [UInt64]
    /// The context's own matches (inserted or changed objects) by position.
    private let pending: [Int: ManagedObject]
    private let prefetchPaths: [[RelationshipLink]]
    /// The loaded batch's number and objects.
    private var loadedBatch = -1
    private var loaded: [ManagedObject] = []

    init(
        context: ManagedObjectContext, entity: EntityDescription, batchSize: Int, keys: [UInt64],
        pending: [Int: ManagedObject], prefetchPaths: [[RelationshipLink]]
    ) {
        self.context = context
        self.entity = entity
        self.batchSize = batchSize
        self.keys = keys
        self.pending = pending
        self.prefetchPaths = prefetchPaths
    }

    var count: Int { keys.count }

    var objectIDs: [ObjectID] {
        keys.indices.map { pending[$0]?.objectID ?? ObjectID(entity: entity, number: keys[$0], isTemporaryID: false) }
    }

    func object(at position: Int) -> ManagedObject {
        precondition(position >= 0 && position < keys.count, "index \(position) out of range 0..<\(keys.count)")
        let batch = position / batchSize
        if batch != loadedBatch {
            do {
                try load(batch: batch, failuresAsFaults: true)
            } catch {
                // The read itself failed: the batch's objects are faults,
                // which report the error when their values are read.
                loaded = range(of: batch).map { pending[$0] ?? context.object(of: entity, primaryKey: keys[$0]) }
                loadedBatch = batch
            }
        }
        return loaded[position - batch * batchSize]
    }

    func loadedObject(at position: Int) throws -> ManagedObject {
        precondition(position >= 0 && position < keys.count, "index \(position) out of range 0..<\(keys.count)")
        let batch = position / batchSize
        if batch != loadedBatch { try load(batch: batch, failuresAsFaults: false) }
        return loaded[position - batch * batchSize]
    }

    private func range(of batch: Int) -> Range<Int> {
        (batch * batchSize)..<min(keys.count, (batch + 1) * batchSize)
    }

    /// Lets go of the loaded batch, then loads batch `number`.
    private func load(batch number: Int, failuresAsFaults: Bool) throws {
        var previous: [ManagedObject] = []
        swap(&previous, &loaded)
        loadedBatch = -1
        context.letGo(of: &previous)
        let range = range(of: number)
        loaded = try context.loadBatch(
            range.map { pending[$0] != nil ? nil : keys[$0] }, of: entity,
            pending: range.map { pending[$0] }, prefetching: prefetchPaths, failuresAsFaults: failuresAsFaults)
        loadedBatch = number
    }
}
