import Foundation
import Synchronization

/// Saves of other contexts waiting to be merged into one context: filled by
/// the saving context's thread, emptied by the receiving context's own.
final class MergeInbox: Sendable {
    let received = Mutex<[ContextChanges]>([])

    func take() -> [ContextChanges] {
        received.withLock { changes in
            defer { changes.removeAll() }
            return changes
        }
    }
}

extension ManagedObjectContext {
    /// Brings this context up to date with a save of another context:
    /// Core Data's `mergeChanges(fromContextDidSave:)`. Pass the
    /// ``didSaveNotification`` the other context posted (on any thread; call
    /// this from the thread or task that owns this context).
    ///
    /// - Objects this context holds that the save updated are refreshed:
    ///   those without unsaved changes become faults and read the saved
    ///   values when next used (``ManagedObject/awakeFromFetch()`` runs
    ///   then); those with unsaved changes read the saved values now and keep
    ///   their own changes on top (``refresh(_:mergeChanges:)`` with
    ///   `mergeChanges: true`), so a later save doesn't conflict over them.
    /// - Objects it holds that the save deleted leave the context (their
    ///   unsaved changes with them: there is nothing left to save them to).
    /// - Objects the save inserted are not registered here until fetched.
    ///
    /// Then ``objectsDidChangeNotification`` is posted with the refreshed
    /// objects as updated and the removed ones as deleted.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        guard let changes = ContextChanges(notification) else { return }
        mergeChanges(changes)
    }

    /// Merges a save's changes, as ``mergeChanges(fromContextDidSave:)`` does.
    public func mergeChanges(_ changes: ContextChanges) {
        defer { checkInvariants(after: "mergeChanges(_:)") }
        var merged = ContextChanges()
        for id in changes.updated {
            guard let object = registered(id), object.state == .persisted || object.state == .deleted else { continue }
            if object.hasChanges {
                do {
                    try refresh(object, mergeChanges: true)
                } catch {
                    forget(object)  // deleted by a later save meanwhile
                    merged.deleted.append(object.objectID)
                    continue
                }
            } else {
                try? refresh(object, mergeChanges: false)
            }
            merged.updated.append(object.objectID)
        }
        for id in changes.deleted {
            guard let object = registered(id) else { continue }
            forget(object)
            merged.deleted.append(id)
        }
        if !merged.isEmpty { post(Self.objectsDidChangeNotification, changes: merged) }
    }

    /// Whether saves of the other contexts on this context's store (in this
    /// process) are merged into it by themselves: Core Data's property of
    /// the same name. They arrive as the other contexts save, and are merged
    /// (as ``mergeChanges(fromContextDidSave:)`` does) at this context's next
    /// fetch, count, save or ``processPendingChanges()``: always on the
    /// thread or task that owns this context, never behind its back.
    public var automaticallyMergesChangesFromParent: Bool {
        get { mergesAutomatically }
        set {
            guard newValue != mergesAutomatically else { return }
            mergesAutomatically = newValue
            let inbox = self.inbox ?? MergeInbox()
            self.inbox = inbox
            if newValue { store.subscribe(inbox) } else { store.unsubscribe(inbox) }
        }
    }

    /// Merges what other contexts saved since the last call, when this
    /// context merges automatically.
    @inline(__always)
    func mergeReceivedChanges() {
        if mergesAutomatically { mergeInbox() }
    }

    @inline(never)
    private func mergeInbox() {
        guard let inbox else { return }
        for changes in inbox.take() { mergeChanges(changes) }
    }

    /// The object this context holds for `id` (an ID of any context of the same store).
    private func registered(_ id: ObjectID) -> ManagedObject? {
        guard !id.isTemporaryID, let entity = model.entity(named: id.entity.name) else { return nil }
        return registries[IdentityKey(entity)]?.objects[id.number]
    }

    /// Takes a saved object out of the context for good.
    func forget(_ object: ManagedObject) {
        registries[IdentityKey(object.entity)]?.objects[object.objectID.number] = nil
        object.state = .removed
        object.discardChanges()
        object.leaveContext()
    }
}

extension PersistentStore {
    /// Sends `changes` to every subscribed context of this store but the
    /// sender's (`nil` when the sender doesn't subscribe).
    func broadcast(_ changes: ContextChanges, from sender: MergeInbox?) {
        guard !changes.isEmpty else { return }
        mergeSubscribers.withLock { subscribers in
            guard !subscribers.isEmpty else { return }
            subscribers.removeAll { $0.inbox == nil }
            for subscriber in subscribers {
                guard let inbox = subscriber.inbox, inbox !== sender else { continue }
                inbox.received.withLock { $0.append(changes) }
            }
        }
    }

    func subscribe(_ inbox: MergeInbox) {
        mergeSubscribers.withLock { $0.append(WeakInbox(inbox: inbox)) }
    }

    func unsubscribe(_ inbox: MergeInbox) {
        mergeSubscribers.withLock { $0.removeAll { $0.inbox == nil || $0.inbox === inbox } }
    }
}

/// A context's inbox, without keeping the context's inbox alive.
struct WeakInbox: Sendable {
    weak var inbox: MergeInbox?
}
