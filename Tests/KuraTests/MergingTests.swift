import Foundation
import Kura
import KuraTestSupport
import Synchronization
import Testing

/// Saves of one context reaching another: `mergeChanges(fromContextDidSave:)`
/// and `automaticallyMergesChangesFromParent`.
@Suite struct MergingTests {
    /// Three saved News, "News 1" … "News 3", read (values loaded) by a second context.
    static func setUp(_ store: TestStore) throws -> (PersistentContainer, writer: ManagedObjectContext, reader: ManagedObjectContext, [News]) {
        let container = try store.open(.news())
        let writer = container.newContext()
        for index in 1...3 {
            let news = News(context: writer)
            news.title = "News \(index)"
            news.sortOrder = index
        }
        try writer.save()
        let reader = container.newContext()
        let read = try reader.fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder"), as: News.self)
        #expect(read.map(\.title) == ["News 1", "News 2", "News 3"])
        return (container, writer, reader, read)
    }

    @Test func mergingADidSaveNotificationRefreshesKeepsLocalChangesAndRemovesDeletedObjects() throws {
        let store = try TestStore()
        let (container, writer, reader, read) = try Self.setUp(store)
        let center = NotificationCenter()
        writer.notificationCenter = center
        reader.notificationCenter = center
        let saved = Mutex<ContextChanges?>(nil)
        let observer = center.addObserver(forName: ManagedObjectContext.didSaveNotification, object: writer, queue: nil) { note in
            saved.withLock { $0 = ContextChanges(note) }
        }
        defer { center.removeObserver(observer) }

        // The reader changes News 2's sortOrder; the writer retitles 1 and 2 and deletes 3.
        read[1].sortOrder = 20
        let written = try writer.fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder"), as: News.self)
        written[0].title = "First"
        written[1].title = "Second"
        writer.delete(written[2])
        try writer.save()

        let received = Received()
        let didChange = center.addObserver(forName: ManagedObjectContext.objectsDidChangeNotification, object: reader, queue: nil) {
            received.append($0.name.rawValue, ContextChanges($0))
        }
        defer { center.removeObserver(didChange) }
        let changes = try #require(saved.withLock { $0 })
        reader.mergeChanges(fromContextDidSave: Notification(
            name: ManagedObjectContext.didSaveNotification, object: nil, userInfo: [ManagedObjectContext.changesKey: changes]))
        let announced = received.changes.last ?? nil
        #expect(read[0].title == "First")
        #expect(read[1].title == "Second" && read[1].sortOrder == 20, "the reader's own change stays, on top of the saved title")
        #expect(read[2].managedObjectContext == nil, "deleted elsewhere: it left the reader")
        #expect(announced?.updatedObjectIDs == [read[0].objectID, read[1].objectID])
        #expect(announced?.deletedObjectIDs.count == 1)
        #expect(reader.hasChanges)
        try reader.save()   // no conflict: the merge took the writer's row versions
        let fresh = try container.newContext().fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder"), as: News.self)
        #expect(fresh.map(\.title) == ["First", "Second"])
        #expect(fresh.map(\.sortOrder) == [1, 20])
    }

    @Test func contextsThatMergeAutomaticallySeeOtherContextsSavesAtTheirNextFetch() async throws {
        let store = try TestStore()
        let (container, writer, reader, read) = try Self.setUp(store)
        reader.automaticallyMergesChangesFromParent = true
        let stale = container.newContext()
        let staleObjects = try stale.fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder"), as: News.self)
        #expect(staleObjects[0].title == "News 1")

        let written = try writer.fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder"), as: News.self)
        written[0].title = "Changed"
        try writer.save()
        #expect(read[0].title == "News 1", "nothing happens behind the reader's back")
        #expect(try reader.count(for: FetchRequest(entityName: "News")) == 3)
        #expect(read[0].title == "Changed", "merged at the reader's next fetch")
        #expect(staleObjects[0].title == "News 1", "a context that doesn't merge keeps what it read")

        // Saved from another task, merged where the reader lives.
        try await Task.detached {
            let context = container.newContext()
            let news = try context.fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder"), as: News.self)
            news[1].title = "From a task"
            try context.save()
        }.value
        reader.processPendingChanges()
        #expect(read[1].title == "From a task")

        reader.automaticallyMergesChangesFromParent = false
        written[2].title = "Unseen"
        try writer.save()
        _ = try reader.fetch(FetchRequest(entityName: "News"))
        #expect(read[2].title == "News 3")
    }

    @Test func mergedRelationshipChangesReachTheOtherSide() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let writer = container.newContext()
        let ann = Author(context: writer)
        ann.name = "Ann"
        let bob = Author(context: writer)
        bob.name = "Bob"
        let post = Post(context: writer)
        post.title = "Hello"
        post.author = ann
        try writer.save()

        let reader = container.newContext()
        reader.automaticallyMergesChangesFromParent = true
        let authors = try reader.fetch(FetchRequest(entityName: "Author").sorted(by: "name"), as: Author.self)
        #expect(authors[0].posts.map(\.title) == ["Hello"])
        post.author = bob
        try writer.save()
        _ = try reader.fetch(FetchRequest(entityName: "Author"))
        #expect(authors[0].posts.isEmpty)
        #expect(authors[1].posts.map(\.title) == ["Hello"])
    }
}
