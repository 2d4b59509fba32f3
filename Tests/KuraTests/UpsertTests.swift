import Foundation
import Kura
import Testing

/// Inserts whose unique values are already stored, or inserted earlier in
/// the same save, settled by the context's merge policy.
@Suite struct UpsertTests {
    /// A feed item as a server sends it.
    struct Item {
        let objectId: String
        let title: String
    }

    /// Imports `items` the way the seeds do: one News per item, no fetch
    /// first, one save.
    static func importFeed(_ items: [Item], into context: ManagedObjectContext) throws -> [News] {
        let inserted = items.map { item in
            let news = News(context: context)
            news.objectId = item.objectId
            news.title = item.title
            return news
        }
        try context.save()
        return inserted
    }

    /// A store holding News "a" (title "stored"), and a context with `policy`.
    static func storedA(policy: MergePolicy) throws -> (TestStore, PersistentContainer, ManagedObjectContext) {
        let store = try TestStore()
        let container = try store.open(.news())
        _ = try importFeed([Item(objectId: "a", title: "stored")], into: container.newContext())
        let context = container.newContext()
        context.mergePolicy = policy
        return (store, container, context)
    }

    static func stored(_ container: PersistentContainer) throws -> [String: News] {
        let all = try container.newContext().fetch(FetchRequest<News>())
        return Dictionary(uniqueKeysWithValues: all.map { ($0.objectId, $0) })
    }

    @Test func importingAFeedTwiceUpdatesTheStoredNewsByObjectId() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let first = (0..<20).map { Item(objectId: "news-\($0)", title: "first \($0)") }
        _ = try Self.importFeed(first, into: context)
        let before = try Self.stored(container)
        #expect(before.count == 20)

        // The second time: half the items changed, ten new, and each old
        // one imported by a new context that never fetched it.
        Thread.sleep(forTimeInterval: 0.01)
        let again = container.newContext()
        again.mergePolicy = .mergeByPropertyObjectTrump
        let second = (10..<30).map { Item(objectId: "news-\($0)", title: "second \($0)") }
        let imported = try Self.importFeed(second, into: again)

        let after = try Self.stored(container)
        #expect(after.count == 30, "one object per objectId")
        for number in 0..<30 {
            let news = try #require(after["news-\(number)"])
            #expect(news.title == (number < 10 ? "first \(number)" : "second \(number)"))
            if number < 20 {
                let old = try #require(before["news-\(number)"])
                #expect(news.objectID == old.objectID)
                #expect(news.dateCreated == old.dateCreated, "awakeFromInsert's date is a default, not a change")
                if number >= 10 {
                    #expect(try #require(news.dateUpdated) > #require(old.dateUpdated), "willSave's date is a change")
                }
            }
        }
        // The caller's objects are the stored ones now.
        for news in imported {
            #expect(!news.isInserted && !news.hasChanges && news.managedObjectContext === again)
            #expect(news.objectID == after[news.objectId]?.objectID)
            #expect(news.title == after[news.objectId]?.title)
        }
        #expect(again.insertedObjects.isEmpty)
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test func theSameUniqueValuesTwiceInOneSaveMakeOneObject() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let news = try Self.importFeed(
            [Item(objectId: "a", title: "one"), Item(objectId: "b", title: "b"), Item(objectId: "a", title: "two")], into: context)
        let stored = try Self.stored(container)
        #expect(stored.count == 2)
        #expect(stored["a"]?.title == "two", "the later insert's changes win")
        #expect(news[0].objectID == news[2].objectID)
        #expect(news[0].title == "two" && news[0].managedObjectContext === context)
        #expect(news[2].managedObjectContext == nil, "merged into the first, it leaves the context")
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test(arguments: [MergePolicy.rollback, .mergeByPropertyStoreTrump])
    func whenTheStoreWinsAnUpsertInsertsOnlyWhatIsAbsent(_ policy: MergePolicy) throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let setup = container.newContext()
        _ = try Self.importFeed([Item(objectId: "a", title: "stored")], into: setup)
        let context = container.newContext()
        context.mergePolicy = policy
        let news = try Self.importFeed([Item(objectId: "a", title: "new"), Item(objectId: "b", title: "b")], into: context)
        let stored = try Self.stored(container)
        #expect(stored.count == 2)
        #expect(stored["a"]?.title == "stored")
        #expect(news[0].title == "stored", "the inserted object reads what is stored")
    }

    @Test func theOverwritePolicyReplacesTheStoredValuesWhole() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let setup = container.newContext()
        let original = try Self.importFeed([Item(objectId: "a", title: "stored")], into: setup)[0]
        original.body = "stored body"
        try setup.save()
        let context = container.newContext()
        context.mergePolicy = .overwrite
        _ = try Self.importFeed([Item(objectId: "a", title: "new")], into: context)
        let stored = try #require(try Self.stored(container)["a"])
        #expect(stored.title == "new" && stored.body == "", "every value is the inserted object's")
        #expect(stored.dateCreated != original.dateCreated)
    }

    @Test func theErrorPolicyStillRefusesTheInsert() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        _ = try Self.importFeed([Item(objectId: "a", title: "stored")], into: container.newContext())
        let context = container.newContext()
        let news = News(context: context)
        news.objectId = "a"
        #expect(throws: KuraError.self) { try context.save() }
        #expect(news.isInserted)
        #expect(try Self.stored(container)["a"]?.title == "stored")
    }

    @Test func aStoredObjectTheContextHoldsReadsTheMergedValuesAndTheInsertedOneLeaves() throws {
        let (store, _, context) = try Self.storedA(policy: .mergeByPropertyObjectTrump)
        _ = store
        let held = try #require(try context.fetch(FetchRequest<News>()).first)
        #expect(held.title == "stored")
        let inserted = try Self.importFeed([Item(objectId: "a", title: "new")], into: context)[0]
        #expect(held.title == "new" && !held.hasChanges)
        #expect(inserted.managedObjectContext == nil && inserted.objectID == held.objectID)
        #expect(try context.existingObject(with: inserted.objectID) === held)
    }

    @Test func anUpsertIntoAnObjectTheSameSaveChangesIsRefused() throws {
        let (store, container, context) = try Self.storedA(policy: .mergeByPropertyObjectTrump)
        _ = store
        let held = try #require(try context.fetch(FetchRequest<News>()).first)
        held.title = "changed"
        let news = News(context: context)
        news.objectId = "a"
        #expect(throws: KuraError.self) { try context.save() }
        #expect(held.hasChanges && news.isInserted)

        // Moving the stored object's value away frees it for the insert.
        held.objectId = "moved"
        try context.save()
        #expect(try Self.stored(container).keys.sorted() == ["a", "moved"])
    }

    @Test func relationshipsOfAnUpsertedObjectLandOnTheStoredOne() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let setup = container.newContext()
        let author = Author(context: setup)
        author.name = "Mia"
        let old = Post(context: setup)
        old.author = author
        let tag = Tag(context: setup)
        tag.name = "swift"
        try setup.save()

        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let again = Author(context: context)
        again.name = "Mia"
        let post = Post(context: context)
        post.title = "new"
        post.author = again
        let sameTag = Tag(context: context)
        sameTag.name = "swift"
        post.tags.insert(sameTag)
        try context.save()

        let reader = container.newContext()
        #expect(try reader.count(for: FetchRequest<Author>()) == 1)
        #expect(try reader.count(for: FetchRequest<Tag>()) == 1)
        let stored = try reader.existingObject(with: author.objectID) as! Author
        #expect(Set(stored.posts.map(\.title)) == ["", "new"])
        let storedTag = try reader.existingObject(with: tag.objectID) as! Tag
        #expect(storedTag.posts.map(\.title) == ["new"])
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test func anUpsertIsRecordedInTheHistoryAsAnUpdate() throws {
        var options = StoreOptions()
        options.tracksHistory = true
        let store = try TestStore()
        let container = try store.open(.news(), options: options)
        let original = try Self.importFeed([Item(objectId: "a", title: "stored")], into: container.newContext())[0]
        let token = try container.store.lastHistoryToken()
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        _ = try Self.importFeed([Item(objectId: "a", title: "new"), Item(objectId: "b", title: "b")], into: context)
        let transaction = try #require(try container.store.history(after: token).first)
        #expect(transaction.changes.updatedObjectIDs == [original.objectID])
        #expect(transaction.changes.insertedObjectIDs.count == 1)
        #expect(Set(transaction.changedKeys[original.objectID] ?? []) == ["objectId", "title", "dateUpdated"])
    }

    @Test func aLargeImportHalfStoredTakesOneSaveAndMatchesOneByOneWork() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let count = 4_000
        let setup = container.newContext()
        _ = try Self.importFeed((0..<count / 2).map { Item(objectId: "n\($0 * 2)", title: "old") }, into: setup)
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        _ = try Self.importFeed((0..<count).map { Item(objectId: "n\($0)", title: "new \($0)") }, into: context)

        let stored = try Self.stored(container)
        #expect(stored.count == count)
        #expect(stored.values.allSatisfy { $0.title == "new \($0.objectId.dropFirst())" })
        #expect(try container.store.check().problems.isEmpty)
    }
}

extension UpsertTests {
    @Test func anUpsertSavedThroughAChildContextKeepsTheStoredDefaultsToo() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let original = try Self.importFeed([Item(objectId: "a", title: "stored")], into: container.newContext())[0]
        let parent = container.newContext()
        parent.mergePolicy = .mergeByPropertyObjectTrump
        let child = parent.newChildContext()
        let news = News(context: child)
        news.objectId = "a"
        news.title = "from the child"
        try child.save()
        try parent.save()
        let stored = try #require(try Self.stored(container)["a"])
        #expect(stored.title == "from the child")
        #expect(stored.dateCreated == original.dateCreated)
        #expect(stored.objectID == original.objectID)
    }
}

extension UpsertTests {
    @Test func anObjectDeletedInTheSameSaveFreesItsValuesForANewInsert() throws {
        let (store, container, context) = try Self.storedA(policy: .mergeByPropertyObjectTrump)
        _ = store
        let old = try #require(try context.fetch(FetchRequest<News>()).first)
        context.delete(old)
        let replacement = News(context: context)
        replacement.objectId = "a"
        replacement.title = "replacement"
        try context.save()
        let stored = try #require(try Self.stored(container)["a"])
        #expect(stored.title == "replacement" && stored.objectID != old.objectID)
        #expect(try container.newContext().count(for: FetchRequest<News>()) == 1)
        #expect(try container.store.check().problems.isEmpty)
    }
}

/// An explicit assignment is a change, whatever its value: an upsert writes
/// an attribute set back to its default; awakeFromInsert's values stay defaults.
@Suite struct UpsertDefaultAssignmentTests {
    static func storedWithOrder(_ order: Int, title: String = "stored") throws -> (TestStore, PersistentContainer) {
        let store = try TestStore()
        let container = try store.open(.news())
        let setup = container.newContext()
        let news = News(context: setup)
        news.objectId = "k"
        news.title = title
        news.sortOrder = order
        try setup.save()
        return (store, container)
    }

    @Test(arguments: ["typed", "setValue", "outside a context"])
    func anUpsertWritesAnAttributeSetToItsDefault(way: String) throws {
        let (store, container) = try Self.storedWithOrder(7)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let news: News
        switch way {
        case "typed":
            news = News(context: context)
            news.objectId = "k"
            news.sortOrder = 0
            news.title = ""
        case "setValue":
            news = News(context: context)
            try news.setValue(.string("k"), forKey: "objectId")
            try news.setValue(.int(0), forKey: "sortOrder")
            try news.setValue(.string(""), forKey: "title")
        default:
            // Set before the insert (awakeFromInsert, which runs at the
            // insert, gives objectId its UUID: so objectId is set after).
            news = News(entity: try #require(container.model.entity(named: "News")), insertInto: nil)
            news.sortOrder = 0
            news.title = ""
            context.insert(news)
            news.objectId = "k"
        }
        try context.save()
        let stored = try container.newContext().fetch(FetchRequest<News>())
        #expect(stored.count == 1)
        #expect(stored.first?.sortOrder == 0, "the assignment of the default wins")
        #expect(stored.first?.title == "", "the assignment of the default wins")
        #expect(try container.store.check().isConsistent)
    }

    @Test func whatAwakeFromInsertSetsAndWhatIsNeverAssignedKeepTheStoredValues() throws {
        let (store, container) = try Self.storedWithOrder(7, title: "kept")
        defer { withExtendedLifetime(store) {} }
        let before = try #require(try container.newContext().fetch(FetchRequest<News>()).first)
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let news = News(context: context)
        news.objectId = "k"   // title and sortOrder never assigned; dateCreated set by awakeFromInsert
        try context.save()
        let stored = try #require(try container.newContext().fetch(FetchRequest<News>()).first)
        #expect(stored.sortOrder == 7 && stored.title == "kept")
        #expect(stored.dateCreated == before.dateCreated)
    }

    @Test func aChildContextsAssignmentOfTheDefaultReachesTheUpsert() throws {
        let (store, container) = try Self.storedWithOrder(7)
        defer { withExtendedLifetime(store) {} }
        let parent = container.newContext()
        parent.mergePolicy = .mergeByPropertyObjectTrump
        let child = parent.newChildContext()
        let news = News(context: child)
        news.objectId = "k"
        news.sortOrder = 0
        try child.save()
        try parent.save()
        #expect(try container.newContext().fetch(FetchRequest<News>()).first?.sortOrder == 0)
    }

    @Test func assigningTheDefaultDoesNotDirtyAStoredObject() throws {
        let (store, container) = try Self.storedWithOrder(0)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let news = try #require(try context.fetch(FetchRequest<News>()).first)
        news.sortOrder = 0
        #expect(!news.hasChanges && !context.hasChanges)
    }
}
