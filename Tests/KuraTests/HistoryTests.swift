import Foundation
import Kura
import KuraTestSupport
import Testing

/// The store's history of saves (Core Data's persistent history), read in
/// this process and in another.
@Suite struct HistoryTests {
    static var tracking: StoreOptions {
        var options = StoreOptions()
        options.tracksHistory = true
        return options
    }

    @Test func everySaveIsRecordedWithItsAuthorObjectsAndChangedKeys() throws {
        let store = try TestStore()
        let container = try store.open(.news(), options: Self.tracking)
        #expect(try container.store.lastHistoryToken() == nil)
        let context = container.newContext()
        context.transactionAuthor = "importer"
        let first = News(context: context)
        first.title = "One"
        let second = News(context: context)
        second.title = "Two"
        try context.save()
        let afterInsert = try #require(try container.store.lastHistoryToken())

        context.transactionAuthor = nil
        first.sortOrder = 9
        context.delete(second)
        try context.save()

        let all = try container.store.history()
        #expect(all.map(\.token.sequence) == [1, 2])
        #expect(all[0].author == "importer" && all[1].author == nil)
        #expect(all[0].changes.insertedObjectIDs == [first.objectID, second.objectID])
        #expect(all[0].processIdentifier == getpid())
        #expect(all[1].changes.updatedObjectIDs == [first.objectID])
        #expect(all[1].changedKeys[first.objectID]?.contains("sortOrder") == true)
        #expect(all[1].changes.deletedObjectIDs.count == 1)
        #expect(try container.store.history(after: afterInsert).map(\.token) == [HistoryToken(sequence: 2)])

        #expect(try container.store.purgeHistory(through: afterInsert) == 1)
        #expect(try container.store.history().map(\.token.sequence) == [2])
        first.title = "Uno"
        try context.save()
        #expect(try container.store.history().map(\.token.sequence) == [2, 3], "sequence numbers go on after a purge")
    }

    /// Found by the outside changes suite: a token older than a purge read
    /// what was left as if nothing were missing, and `UInt64.max` wrapped
    /// around to all of it.
    @Test func aTokenOlderThanAPurgeIsExpiredNotSkippedOver() throws {
        let store = try TestStore()
        let container = try store.open(.news(), options: Self.tracking)
        let context = container.newContext()
        for number in 1...6 {
            News(context: context).title = "News \(number)"
            try context.save()
        }
        #expect(try container.store.purgeHistory(through: HistoryToken(sequence: 4)) == 4)
        #expect(throws: KuraError.historyTokenExpired(HistoryToken(sequence: 2), purgedThrough: HistoryToken(sequence: 4))) {
            try container.store.history(after: HistoryToken(sequence: 2))
        }
        #expect(try container.store.history(after: HistoryToken(sequence: 4)).map(\.token.sequence) == [5, 6])
        #expect(try container.store.history().map(\.token.sequence) == [5, 6])
        #expect(try container.store.history(after: HistoryToken(sequence: .max)).isEmpty)
        // Purging past the last save marks only what was recorded.
        #expect(try container.store.purgeHistory(through: HistoryToken(sequence: 100)) == 2)
        #expect(throws: KuraError.self) { try container.store.history(after: HistoryToken(sequence: 5)) }
        #expect(try container.store.history(after: HistoryToken(sequence: 6)).isEmpty)
        News(context: context).title = "News 7"
        try context.save()
        #expect(try container.store.history(after: HistoryToken(sequence: 6)).map(\.token.sequence) == [7])
        container.close()
        // The mark is kept in the store.
        let reopened = try store.open(.news(), options: Self.tracking)
        #expect(throws: KuraError.self) { try reopened.store.history(after: HistoryToken(sequence: 3)) }
    }

    @Test func withoutTrackingNothingIsRecorded() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        News(context: context).title = "One"
        try context.save()
        #expect(try container.store.history().isEmpty)
        #expect(try container.store.lastHistoryToken() == nil)
    }

    @Test func anotherProcessesSaveIsReadFromTheHistoryAndMerged() throws {
        let store = try TestStore(engine: .lmdb)
        let container = try PersistentContainer(path: store.path, model: MigrationWorkload.v1(), options: Self.tracking)
        try MigrationWorkload.fill(container, count: 5)
        let token = try container.store.lastHistoryToken()
        let context = container.newContext()
        let articles = try context.fetch(FetchRequest(entityName: "Article").sorted(by: "title"))
        #expect(try articles[0].value(forKey: "title") == .string("article 0"))

        let (termination, output) = try Helper.run(["history-writer", store.path])
        #expect(termination == .exited(0), "\(output)")
        let transactions = try container.store.history(after: token)
        #expect(transactions.count == 1)
        let transaction = try #require(transactions.first)
        #expect(transaction.author == "helper" && transaction.processIdentifier != getpid())
        #expect(transaction.changes.updatedObjectIDs == [articles[0].objectID])
        #expect(transaction.changedKeys[articles[0].objectID] == ["title"])
        #expect(transaction.changes.deletedObjectIDs == [articles[1].objectID])
        #expect(transaction.changes.insertedObjectIDs.count == 1)

        context.mergeChanges(transaction.changes)
        #expect(try articles[0].value(forKey: "title") == .string("from the helper"))
        #expect(articles[1].managedObjectContext == nil)
        #expect(try context.count(for: FetchRequest(entityName: "Article")) == 5)
    }
}
