import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// The store suite every engine passes: the same contexts, hooks,
/// templates, predicates, relationships, migrations, history and
/// observation, whatever holds the bytes.
@Suite(.timeLimit(.minutes(5))) struct StorageEngineTests {
    static func news(_ context: ManagedObjectContext, _ orders: [Int]) throws -> [News] {
        let news = orders.map { order in
            let news = News(context: context)
            news.title = "News \(order)"
            news.sortOrder = order
            return news
        }
        try context.save()
        return news
    }

    /// What a save of new objects does to the engine: records put with
    /// `.append`, in order, among other changes of the same transaction
    /// (PostgreSQL keeps such a run apart until something else uses its space).
    @Test(arguments: TestEngine.built)
    func keysAppendedInOrderReadBackAndMixWithOtherChangesOfTheirTransaction(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let storage = try store.open(.news()).store.engine
        func key(_ number: UInt64) -> [UInt8] { withUnsafeBytes(of: number.bigEndian, Array.init) }
        func put(_ number: UInt64, _ value: String, in space: StorageSpace, _ txn: any StorageTransaction, flags: PutFlags) throws {
            try key(number).withUnsafeBytes { key in try Array(value.utf8).withUnsafeBytes { try txn.put($0, forKey: key, in: space, flags: flags) } }
        }
        func value(_ number: UInt64, in space: StorageSpace, _ txn: any StorageTransaction) throws -> String? {
            var found: String?
            _ = try key(number).withUnsafeBytes { key in
                try txn.visitValue(forKey: key, in: space) { found = String(decoding: $0, as: UTF8.self) }
            }
            return found
        }
        func all(in space: StorageSpace, _ txn: any StorageTransaction) throws -> [String] {
            var entries: [String] = []
            try txn.forEach(in: space, range: .all, direction: .forward) { entry in
                entries.append(String(decoding: entry.value, as: UTF8.self))
                return true
            }
            return entries
        }
        var space = StorageSpace(number: 0)
        try storage.performWrite { txn in
            space = try txn.createSpace(named: "appended")
            let other = try txn.createSpace(named: "other")
            for number in 1...3 as ClosedRange<UInt64> {
                try put(number, "v\(number)", in: space, txn, flags: .append)
                try put(number, "o\(number)", in: other, txn, flags: .noOverwrite)  // another space between appends
            }
            let readBack = try value(2, in: space, txn)
            #expect(readBack == "v2", "read back before the commit")
            try put(4, "v4", in: space, txn, flags: .append)  // a new run after the read
            try put(5, "v5", in: space, txn, flags: .append)
            try key(4).withUnsafeBytes { try txn.delete($0, in: space) }  // keys of the run not sent yet
            try put(5, "v5 again", in: space, txn, flags: [])
            try key(2).withUnsafeBytes { try txn.delete($0, in: space) }
            try put(6, "v6", in: space, txn, flags: .append)
            let (entries, others) = (try all(in: space, txn), try all(in: other, txn))
            #expect(entries == ["v1", "v3", "v5 again", "v6"])
            #expect(others == ["o1", "o2", "o3"])
        }
        var committed: ([String], Int) = ([], 0)
        try storage.performRead { txn in committed = (try all(in: space, txn), try txn.count(in: space)) }
        #expect(committed.0 == ["v1", "v3", "v5 again", "v6"] && committed.1 == 4)
        // A key appended that is there already (a store whose ID counter is
        // behind its records): the transaction fails and writes nothing.
        #expect(throws: (any Error).self) {
            try storage.performWrite { txn in
                try put(7, "v7", in: space, txn, flags: .append)
                try put(8, "v8", in: space, txn, flags: .append)
                try put(6, "v6 twice", in: space, txn, flags: .append)
            }
        }
        try storage.performRead { txn in committed = (try all(in: space, txn), try txn.count(in: space)) }
        #expect(committed.0 == ["v1", "v3", "v5 again", "v6"] && committed.1 == 4, "nothing of the failed write")
    }

    @Test(arguments: TestEngine.built)
    func changesAreTrackedSavedAndFetchedWithPredicatesSortsAndLimits(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let container = try store.open(.news())
        let context = container.newContext()
        let news = try Self.news(context, Array(1...20))
        #expect(!context.hasChanges)

        news[0].title = "First"
        context.delete(news[1])
        #expect(context.updatedObjects.count == 1 && context.deletedObjects.count == 1)
        try context.save()

        let reader = container.newContext()
        #expect(try reader.count(for: FetchRequest(entityName: "News")) == 19)
        let range = FetchRequest(entityName: "News", predicate: "sortOrder BETWEEN {5, 9} AND title BEGINSWITH 'News'")
        let descending = try reader.fetch(range.sorted(by: "sortOrder", ascending: false)).map { ($0 as! News).sortOrder }
        let plan = try reader.explain(range.sorted(by: "sortOrder", ascending: false))
        #expect(descending == [9, 8, 7, 6, 5], "\(plan)")
        var top = FetchRequest(entityName: "News", sortDescriptors: [FetchSortDescriptor(key: "sortOrder")])
        top.fetchLimit = 3
        top.fetchOffset = 1
        #expect(try reader.fetch(top).map { ($0 as! News).sortOrder } == [3, 4, 5])
        let first = try #require(try reader.fetch(FetchRequest(entityName: "News", predicate: "title == 'First'")).first as? News)
        #expect(first.objectID == news[0].objectID && first.sortOrder == 1)
        #expect(try reader.fetch(FetchRequest(entityName: "News", predicate: "sortOrder == 2")).isEmpty)
    }

    @Test(arguments: TestEngine.built)
    func hooksRunAndAFailedSaveWritesNothingAndKeepsEveryChange(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let container = try store.open(.news())
        let context = container.newContext()
        let saved = try Self.news(context, [1])[0]
        #expect(saved.dateUpdated != nil, "willSave ran")

        let clash = News(context: context)
        clash.objectId = saved.objectId
        saved.title = "changed"
        // The same error on every engine (PostgreSQL finds the taken key
        // when it sends the batch), naming the index and the value.
        do {
            try context.save()
            Issue.record("a taken unique value was saved")
        } catch let error as KuraError where error.code == .uniqueConstraintViolated {
            #expect(error.entity == "News" && error.values == [saved.objectId], "\(error.values)")
        }
        #expect(context.insertedObjects.contains(clash) && saved.isUpdated, "the context keeps its changes")
        let reader = container.newContext()
        #expect(try reader.count(for: FetchRequest(entityName: "News")) == 1)
        #expect(try reader.fetch(FetchRequest(entityName: "News")).map { ($0 as! News).title } == ["News 1"], "nothing written")

        clash.objectId = "another"
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 2)
    }

    @Test(arguments: TestEngine.built)
    func validationCollectsEveryFailureWritesNothingAndChecksStoredObjectsFromTheirRecords(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let container = try store.open(ManagedObjectModel(Account.self))
        let context = container.newContext()
        let first = Account(context: context)
        first.balance = -1
        let second = Account(context: context)
        second.name = "ok"
        second.balance = -2
        do {
            try context.save()
            Issue.record("the save should fail validation")
        } catch let error as KuraError where error.code == .validationFailed {
            let failures = error.validationFailures
            #expect(failures.count == 3)
            #expect(failures.filter { $0.objectID == first.objectID }.compactMap(\.key).sorted() == ["balance", "name"])
            #expect(failures.filter { $0.objectID == second.objectID }.compactMap(\.key) == ["balance"])
            #expect(KuraError.validationFailed(failures).description.contains("must not be empty"))
        }
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Account")) == 0, "nothing written")
        #expect(context.insertedObjects.count == 2, "the context keeps its changes")
        first.name = "fixed"
        first.balance = 0
        second.balance = 0
        try context.save()

        // A stored object, fetched without its values: validating a change
        // reads what it needs of its record.
        let other = container.newContext()
        let stored = try #require(try other.fetch(FetchRequest(entityName: "Account", predicate: "name == 'ok'")).first as? Account)
        stored.balance = 5
        try other.save()
        let reread = try container.newContext().fetch(FetchRequest(entityName: "Account", sortDescriptors: [FetchSortDescriptor(key: "name")]))
        #expect(reread.map { ($0 as! Account).balance } == [0, 5])
    }

    @Test(arguments: TestEngine.built)
    func aValueTooLongForAnIndexKeyIsTheSameErrorOnEveryEngine(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.objectId = String(repeating: "x", count: 600)
        #expect(throws: KuraError.indexKeyTooLong(entity: "News", index: "objectId", objectID: nil)) { try context.save() }
        news.objectId = String(repeating: "x", count: 500)
        try context.save()
    }

    @Test(arguments: TestEngine.built)
    func templatesSubstituteVariablesAndUniqueLookupsFindTheirObject(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let model = try ManagedObjectModel.news()
        try model.setFetchRequestTemplate(FetchRequest(entityName: "News", predicate: "objectId == $objectId"), forName: "getNews")
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "News", predicate: "sortOrder IN $orders", sortDescriptors: [FetchSortDescriptor(key: "sortOrder")]),
            forName: "inOrders")
        let container = try store.open(model)
        let news = try Self.news(container.newContext(), [1, 2, 3, 4])

        let reader = container.newContext()
        let lookup = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": news[2].objectId])
        #expect(try reader.fetch(lookup).map(\.objectID) == [news[2].objectID])
        let none = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": "nobody"])
        #expect(try reader.fetch(none).isEmpty)
        let some = try model.fetchRequestFromTemplate(withName: "inOrders", substitutionVariables: ["orders": [4, 1]])
        #expect(try reader.fetch(some).map { ($0 as! News).sortOrder } == [1, 4])
        #expect(throws: KuraError.missingSubstitutionVariable("objectId")) {
            try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: [:])
        }
    }

    @Test(arguments: TestEngine.built)
    func relationshipsKeyPathPredicatesAndDeleteRulesWork(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let container = try store.open(.blog())
        let context = container.newContext()
        let ann = Author(context: context)
        ann.name = "Ann"
        let bob = Author(context: context)
        bob.name = "Bob"
        let swift = Tag(context: context)
        swift.name = "swift"
        var posts: [Post] = []
        for number in 0..<4 {
            let post = Post(context: context)
            post.title = "Post \(number)"
            post.score = number
            post.author = number < 3 ? ann : bob
            if number % 2 == 0 { post.tags = [swift] }
            posts.append(post)
        }
        posts[0].comments = ["c", "a", "b"].map { text in
            let comment = Comment(context: context)
            comment.text = text
            return comment
        }
        try context.save()

        let reader = container.newContext()
        let byAnn = FetchRequest(entityName: "Post", predicate: "author.name == 'Ann' AND score > 0").sorted(by: "score")
        #expect(try reader.fetch(byAnn).map { ($0 as! Post).title } == ["Post 1", "Post 2"])
        let tagged = FetchRequest(entityName: "Post", predicate: "ANY tags.name == 'swift'").sorted(by: "score")
        #expect(try reader.fetch(tagged).map { ($0 as! Post).title } == ["Post 0", "Post 2"])
        let busy = FetchRequest(entityName: "Author", predicate: "posts.@count >= 3")
        #expect(try reader.fetch(busy).map { ($0 as! Author).name } == ["Ann"])
        let first = try #require(try reader.existingObject(with: posts[0].objectID) as? Post)
        #expect(first.comments.map(\.text) == ["c", "a", "b"], "an ordered to-many keeps its order")

        // Ann's deletion cascades to her posts and their comments, and
        // leaves the tag without them.
        context.delete(ann)
        try context.save()
        let after = container.newContext()
        #expect(try after.count(for: FetchRequest(entityName: "Post")) == 1)
        #expect(try after.count(for: FetchRequest(entityName: "Comment")) == 0)
        let tag = try #require(try after.fetch(FetchRequest(entityName: "Tag")).first as? Tag)
        #expect(tag.posts.isEmpty)

        // The store's check reads the graph on every engine, and counts it.
        let report = try container.store.check()
        #expect(report.isConsistent, "\(report.problems)")
        #expect(report.entities.first { $0.entity == "Post" }?.records == 1)
        #expect(report.entities.first { $0.entity == "Author" }?.records == 1)
    }

    @Test(arguments: TestEngine.built)
    func anUpdateOfAStaleObjectIsAConflictNotALostUpdate(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let container = try store.open(.news())
        let news = try Self.news(container.newContext(), [1])[0]
        let first = container.newContext()
        let second = container.newContext()
        let mine = try #require(try first.existingObject(with: news.objectID) as? News)
        let theirs = try #require(try second.existingObject(with: news.objectID) as? News)
        _ = (mine.title, theirs.title)
        mine.sortOrder = 10
        try first.save()
        theirs.sortOrder = 20
        #expect(throws: KuraError.conflict(objectIDs: [news.objectID])) { try second.save() }
        #expect(theirs.isUpdated)
        let stored = try #require(try container.newContext().existingObject(with: news.objectID) as? News)
        #expect(stored.sortOrder == 10)
    }

    @Test(arguments: TestEngine.built)
    func historyRecordsEverySaveAndAnotherContextMergesIt(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        var options = StoreOptions()
        options.tracksHistory = true
        let container = try store.open(.news(), options: options)
        let reader = container.newContext()
        let seen = try Self.news(reader, [1, 2])
        let token = try #require(try container.store.lastHistoryToken())

        let writer = container.newContext()
        writer.transactionAuthor = "writer"
        let mine = try #require(try writer.existingObject(with: seen[0].objectID) as? News)
        mine.title = "retitled"
        try writer.save()

        let history = try container.store.history(after: token)
        #expect(history.count == 1 && history[0].author == "writer")
        #expect(history[0].changes.updatedObjectIDs == [seen[0].objectID])
        reader.mergeChanges(history[0].changes)
        #expect(seen[0].title == "retitled")
    }

    @Test(arguments: TestEngine.built)
    func observedResultsFollowTheSavesOfAnotherContext(_ engine: TestEngine) async throws {
        let store = try EngineStore(engine)
        let container = try store.open(.news())
        let writer = container.newContext()
        let written = try Self.news(writer, [1, 2])
        let observer = container.newContext()
        var results = observer.results(for: FetchRequest(entityName: "News").sorted(by: "sortOrder")).makeAsyncIterator()
        let first = try #require(try await results.next())
        #expect(first.objects.count == 2)

        written[0].sortOrder = 3
        try writer.save()
        let second = try #require(try await results.next())
        #expect(second.objects.map { ($0 as! News).title } == ["News 2", "News 1"])
        #expect(second.difference.moved.count == 1 || !second.difference.updated.isEmpty)

        // The engine reports that commit too: it is this process's own, not
        // taken for another process's (which would deliver and fetch again).
        let fetches = results.observation.fetchCount
        try await Task.sleep(for: .milliseconds(300))
        #expect(results.observation.inbox?.hasDelivery == false, "an own commit was heard as another process's")
        #expect(results.observation.fetchCount == fetches)
    }

    @Test(arguments: TestEngine.built)
    func aChangedModelMigratesTheStoreWhenItOpensAgain(_ engine: TestEngine) throws {
        let store = try EngineStore(engine)
        let container = try store.open(ModelVersions.v1(version: "1"))
        try ModelVersions.fillV1(container, count: 10)
        let v2 = try ModelVersions.articles([
            ModelVersions.attribute("title", .string, default: .string("")),
            ModelVersions.attribute("views", .int64, default: .int(0)),
            ModelVersions.attribute("summary", .string, optional: true),
            ModelVersions.attribute("likes", .int32, default: .int(7)),
        ], indexes: [IndexDescription(["views"], name: "byViews")], version: "2")

        let migrated = try store.reopen(container, v2)
        #expect(migrated.store.lastMigration != nil)
        let rows = try ModelVersions.rows(migrated, ["title", "views", "likes"])
        #expect(rows.count == 10)
        #expect(rows.allSatisfy { $0["likes"] == .int(7) })
        let context = migrated.newContext()
        let request = FetchRequest(entityName: "Article", predicate: "views >= 8").sorted(by: "views")
        #expect(try context.fetch(request).map { try $0.value(forKey: "title", as: String.self) } == ["article 8", "article 9"])
        let plan = try context.explain(request)
        #expect(plan.description.contains("byViews"), "the new index is filled and used: \(plan)")
    }
}
