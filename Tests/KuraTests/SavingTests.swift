import Foundation
import Kura
import KuraTestSupport
import Testing

/// An entity whose validation reports two problems at once (validation is
/// tested on every engine in StorageEngineTests).
final class Account: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var balance: Int = 0

    override func validateForInsert() throws {
        var failures: [ValidationFailure] = []
        do { try super.validateForInsert() } catch let error as KuraError where error.code == .validationFailed {
            failures += error.validationFailures
        }
        if name.isEmpty {
            failures.append(ValidationFailure(objectID: objectID, key: "name", message: "must not be empty"))
        }
        if balance < 0 {
            failures.append(ValidationFailure(objectID: objectID, key: "balance", message: "must not be negative"))
        }
        if !failures.isEmpty { throw KuraError.validationFailed(failures) }
    }
}

/// An entity whose `awakeFromFetch` rewrites an indexed value (a value
/// set without tracking: not a change, but saved with the next one).
final class Coded: ManagedObject {
    @Attribute(.indexed) var code: String = ""
    @Attribute var note: String = ""

    override func awakeFromFetch() {
        super.awakeFromFetch()
        code = code.uppercased()
    }
}

@Suite struct SavingTests {
    @Test func aDuplicateUniqueValueInOneSaveWritesNothingAndKeepsTheChanges() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let first = News(context: context)
        let second = News(context: context)
        first.objectId = "same"
        second.objectId = "same"
        #expect(throws: KuraError.uniqueConstraintViolated(entity: "News", index: "objectId", values: ["same"], objectID: nil)) {
            try context.save()
        }
        #expect(context.insertedObjects == [first, second])
        #expect(first.objectID.isTemporaryID)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 0)

        second.objectId = "different"
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 2)
    }

    @Test func aValueAlreadyStoredInAUniqueIndexIsRefusedAndTheStoreIsUnchangedOnReopen() throws {
        let store = try TestStore()
        do {
            let container = try store.open(.news())
            let context = container.newContext()
            let stored = News(context: context)
            stored.objectId = "taken"
            stored.title = "original"
            try context.save()

            let other = News(context: context)
            other.objectId = "taken"
            stored.title = "changed in the failed save"
            #expect(throws: KuraError.self) { try context.save() }
            #expect(context.insertedObjects == [other])
            #expect(context.updatedObjects == [stored])
            #expect(stored.title == "changed in the failed save")
            container.close()
        }
        let container = try store.open(.news())
        let all = try container.newContext().fetch(FetchRequest(entityName: "News"), as: News.self)
        #expect(all.map(\.title) == ["original"])
    }

    @Test func movingAUniqueValueFromOneObjectToAnotherInOneSaveWorks() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let old = News(context: context)
        old.objectId = "badge"
        try context.save()
        old.objectId = "retired"
        let new = News(context: context)
        new.objectId = "badge"
        try context.save()
        context.delete(new)
        let newest = News(context: context)
        newest.objectId = "badge"
        try context.save()
        let ids = try container.newContext().fetch(FetchRequest(entityName: "News"), as: News.self).map(\.objectId)
        #expect(ids.sorted() == ["badge", "retired"])
    }

    @Test func nilValuesNeverConflictInAUniqueIndex() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "code", type: .string, isOptional: true)],
                              indexes: [.unique("code")]),
        ])
        let container = try store.open(model)
        let context = container.newContext()
        for _ in 0..<3 { try context.insertNewObject(forEntityName: "Tag") }
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Tag")) == 3)
    }

    @Test func aStaleContextCannotOverwriteANewerSaveByDefault() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let setup = container.newContext()
        let news = News(context: setup)
        news.title = "v1"
        try setup.save()

        let stale = container.newContext()
        let staleNews = try stale.existingObject(with: news.objectID) as! News
        _ = staleNews.title
        news.title = "v2 from the first context"
        try setup.save()

        staleNews.title = "v2 from the stale context"
        #expect(throws: KuraError.conflict(objectIDs: [news.objectID])) { try stale.save() }
        #expect(staleNews.isUpdated, "the stale context keeps its change")

        try stale.refresh(staleNews, mergeChanges: true)
        #expect(staleNews.title == "v2 from the stale context")
        try stale.save()
        let final = try container.newContext().existingObject(with: news.objectID) as! News
        #expect(final.title == "v2 from the stale context")
    }

    @Test func theOverwritePolicyLetsTheLastWriterWinByChoice() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let first = container.newContext()
        let news = News(context: first)
        try first.save()
        let second = container.newContext()
        second.mergePolicy = .overwrite
        let other = try second.existingObject(with: news.objectID) as! News
        news.title = "first"
        try first.save()
        other.title = "second"
        try second.save()
        #expect((try container.newContext().existingObject(with: news.objectID) as! News).title == "second")
    }

    @Test func anUpdateWritesWhatChangedAndKeepsEveryOtherValueAndIndexEntryAsStored() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let writer = container.newContext()
        let news = News(context: writer)
        news.title = "before"
        news.body = "a body that stays"
        news.imageURL = "https://example.com/a.png"
        news.sortOrder = 3
        try writer.save()
        let objectId = news.objectId

        // Only `title` is set: the other values are never decoded, and still stored after the save.
        let updater = container.newContext()
        let stored = try updater.existingObject(with: news.objectID) as! News
        stored.title = "after"
        try updater.save()
        // Then an indexed value: its index entry moves.
        stored.sortOrder = 9
        try updater.save()

        let reader = container.newContext()
        let read = try reader.existingObject(with: news.objectID) as! News
        #expect(read.title == "after")
        #expect(read.body == "a body that stays")
        #expect(read.imageURL == "https://example.com/a.png")
        #expect(read.objectId == objectId)
        #expect(read.dateCreated == news.dateCreated)
        #expect(try reader.fetch(FetchRequest(entityName: "News", predicate: try FetchPredicate(format: "objectId == %@", objectId))).count == 1)
        #expect(try reader.count(for: FetchRequest(entityName: "News", predicate: try FetchPredicate(format: "sortOrder == 9"))) == 1)
        #expect(try reader.count(for: FetchRequest(entityName: "News", predicate: try FetchPredicate(format: "sortOrder == 3"))) == 0)
    }

    @Test func anOverwritingUpdateOfAnotherValueMovesTheIndexEntriesToTheValuesItRead() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let writer = container.newContext()
        let news = News(context: writer)
        news.sortOrder = 3
        try writer.save()
        let overwriter = container.newContext()
        overwriter.mergePolicy = .overwrite
        let read = try overwriter.fetch(FetchRequest(entityName: "News"), as: News.self)[0]
        #expect(read.title.isEmpty)

        // Another context moves the indexed value; the overwriting context
        // then sets only the title, never decoding sortOrder: its save
        // writes the record it read, so the index entry moves back.
        news.sortOrder = 5
        try writer.save()
        read.title = "overwritten"
        try overwriter.save()

        let reader = container.newContext()
        #expect((try reader.existingObject(with: news.objectID) as! News).sortOrder == 3)
        #expect(try reader.count(for: FetchRequest(entityName: "News", predicate: try FetchPredicate(format: "sortOrder == 3"))) == 1)
        #expect(try reader.count(for: FetchRequest(entityName: "News", predicate: try FetchPredicate(format: "sortOrder == 5"))) == 0)
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test func aValueSetInAwakeFromFetchIsSavedWithTheNextChangeAndItsIndexEntryMoves() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Coded.self))
        let writer = container.newContext()
        Coded(context: writer).code = "abc"
        try writer.save()

        let updater = container.newContext()
        let object = try updater.fetch(FetchRequest(entityName: "Coded"), as: Coded.self)[0]
        #expect(object.code == "ABC" && !object.hasChanges)
        object.note = "touched"
        try updater.save()

        let reader = container.newContext()
        #expect(try reader.count(for: FetchRequest(entityName: "Coded", predicate: try FetchPredicate(format: "code == 'ABC'"))) == 1)
        #expect(try reader.count(for: FetchRequest(entityName: "Coded", predicate: try FetchPredicate(format: "code == 'abc'"))) == 0)
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test func aSaveThatWouldPassTheMaximumSizeWritesNothingAndTheContextKeepsItsChanges() throws {
        let store = try TestStore(engine: .lmdb)
        var options = StoreOptions()
        options.initialSize = 256 << 10
        options.maximumSize = 1 << 20
        let container = try store.open(.news(), options: options)
        let context = container.newContext()
        let small = News(context: context)
        small.title = "fits"
        try context.save()
        for index in 0..<400 {
            let news = News(context: context)
            news.body = String(repeating: "x", count: 4000)
            news.sortOrder = index
        }
        #expect(throws: KuraError.storeFull(maximumBytes: 1 << 20)) { try context.save() }
        #expect(context.insertedObjects.count == 400)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 1)
        for object in context.insertedObjects.dropFirst(10) { context.delete(object) }
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 11)
    }

    @Test func aReadOnlyStoreRefusesToSave() throws {
        let store = try TestStore(engine: .lmdb)
        try store.open(.news()).close()
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try store.open(.news(), options: options)
        let context = container.newContext()
        _ = News(context: context)
        #expect(throws: KuraError.storeReadOnly(path: store.path)) { try context.save() }
    }
}
