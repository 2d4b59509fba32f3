import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite struct NotificationTests {
    @Test func aContextAnnouncesChangesWillSaveAndDidSaveWithObjectIDs() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let center = NotificationCenter()
        context.notificationCenter = center
        let received = Received()
        for name in [ManagedObjectContext.objectsDidChangeNotification, ManagedObjectContext.willSaveNotification,
                     ManagedObjectContext.didSaveNotification] {
            _ = center.addObserver(forName: name, object: context, queue: nil) { notification in
                received.append(notification.name.rawValue, ContextChanges(notification))
            }
        }
        let existing = News(context: context)
        try context.save()
        received.removeAll()

        let news = News(context: context)
        existing.title = "changed"
        context.processPendingChanges()
        context.processPendingChanges()   // nothing new: no second notification
        try context.save()
        let names = received.names
        #expect(names == ["KuraObjectsDidChange", "KuraContextWillSave", "KuraContextDidSave"])
        let changed = try #require(received.changes[0])
        #expect(changed.insertedObjectIDs.count == 1 && changed.insertedObjectIDs.first!.isTemporaryID)
        #expect(changed.updatedObjectIDs == [existing.objectID])
        let saved = try #require(received.changes[2])
        #expect(saved.insertedObjectIDs == [news.objectID])
        #expect(!news.objectID.isTemporaryID)
        #expect(saved.updatedObjectIDs == [existing.objectID])
        #expect(saved.deletedObjectIDs.isEmpty)
    }
}

final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(String, ContextChanges?)] = []
    func append(_ name: String, _ changes: ContextChanges?) { lock.withLock { entries.append((name, changes)) } }
    func removeAll() { lock.withLock { entries.removeAll() } }
    var names: [String] { lock.withLock { entries.map(\.0) } }
    var changes: [ContextChanges?] { lock.withLock { entries.map(\.1) } }
}
