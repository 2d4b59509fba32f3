import Foundation

/// The objects a context notification is about, by ``ObjectID``.
///
/// ```swift
/// let observer = NotificationCenter.default.addObserver(
///     forName: ManagedObjectContext.didSaveNotification, object: context, queue: nil
/// ) { notification in
///     guard let changes = ContextChanges(notification) else { return }
///     print("saved \(changes.insertedObjectIDs.count) new objects")
/// }
/// ```
public struct ContextChanges: Sendable, Hashable {
    // Kept as arrays: a save of 100,000 objects shouldn't hash 100,000 IDs
    // for a notification nobody may observe. The sets are made when read.
    var inserted: [ObjectID] = []
    var updated: [ObjectID] = []
    var deleted: [ObjectID] = []

    /// Objects inserted (for ``ManagedObjectContext/didSaveNotification``:
    /// their new permanent IDs).
    public var insertedObjectIDs: Set<ObjectID> { Set(inserted) }
    /// Saved objects whose attributes changed.
    public var updatedObjectIDs: Set<ObjectID> { Set(updated) }
    /// Objects deleted.
    public var deletedObjectIDs: Set<ObjectID> { Set(deleted) }

    /// No changes.
    public init() {}

    /// The changes a context notification carries, or `nil` for another notification.
    public init?(_ notification: Notification) {
        guard let changes = notification.userInfo?[ManagedObjectContext.changesKey] as? ContextChanges else { return nil }
        self = changes
    }

    /// True when no object is listed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty
    }

    public static func == (lhs: ContextChanges, rhs: ContextChanges) -> Bool {
        lhs.insertedObjectIDs == rhs.insertedObjectIDs && lhs.updatedObjectIDs == rhs.updatedObjectIDs
            && lhs.deletedObjectIDs == rhs.deletedObjectIDs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(insertedObjectIDs)
        hasher.combine(updatedObjectIDs)
        hasher.combine(deletedObjectIDs)
    }
}

extension ManagedObjectContext {
    /// Posted by ``processPendingChanges()`` (which ``save()`` calls first)
    /// when objects were inserted, changed or deleted since the last time;
    /// the object is the context. ``ContextChanges`` reads what changed.
    public static let objectsDidChangeNotification = Notification.Name("KuraObjectsDidChange")
    /// Posted at the start of ``save()``, before any `willSave` hook; its
    /// changes are empty (as in Core Data).
    public static let willSaveNotification = Notification.Name("KuraContextWillSave")
    /// Posted after a save committed and the `didSave` hooks ran, with the
    /// IDs of what it inserted, updated and deleted.
    public static let didSaveNotification = Notification.Name("KuraContextDidSave")
    /// The `userInfo` key of the ``ContextChanges`` in every context notification.
    public static let changesKey = "KuraChanges"

    /// Announces the changes made since the last call with
    /// ``objectsDidChangeNotification``. Kura has no run loop to do this by
    /// itself: ``save()`` calls it, and you may call it whenever observers
    /// should hear about changes.
    public func processPendingChanges() {
        defer { checkInvariants(after: "processPendingChanges()") }
        mergeReceivedChanges()
        guard !unprocessed.isEmpty else { return }
        var changes = ContextChanges()
        for object in unprocessed {
            object.isInUnprocessedList = false
            if object.isInserted { changes.inserted.append(object.objectID) }
            if object.isUpdated { changes.updated.append(object.objectID) }
            if object.isDeleted { changes.deleted.append(object.objectID) }
        }
        unprocessed.removeAll()
        if !changes.isEmpty { post(Self.objectsDidChangeNotification, changes: changes) }
    }

    func post(_ name: Notification.Name, changes: ContextChanges) {
        notificationCenter.post(name: name, object: self, userInfo: [Self.changesKey: changes])
    }
}
