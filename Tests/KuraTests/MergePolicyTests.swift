import Foundation
import Kura
import KuraTestSupport
import Testing

/// Core Data's merge policies, for an object another context or process
/// changed or deleted since this context read it. (Inserts whose unique
/// values are stored: UpsertTests.)
@Suite struct MergePolicyTests {
    /// What a stale context's save leaves stored, by policy, when another
    /// context changed `title` and `sortOrder` and the stale one changed
    /// `title` and `body`.
    struct Outcome: Sendable, CustomTestStringConvertible {
        let policy: MergePolicy
        let title: String
        let body: String
        let sortOrder: Int
        var testDescription: String { "\(policy)" }
    }

    /// A news saved by `writer`, then read by a second context, `stale`
    /// (with the policy under test), as `ours`.
    struct StaleRead {
        let store: TestStore
        let container: PersistentContainer
        let writer: ManagedObjectContext
        let news: News
        let stale: ManagedObjectContext
        let ours: News

        init(_ policy: MergePolicy, _ setUp: (News) -> Void = { _ in }) throws {
            store = try TestStore()
            container = try store.open(.news())
            writer = container.newContext()
            news = News(context: writer)
            setUp(news)
            try writer.save()
            stale = container.newContext()
            stale.mergePolicy = policy
            ours = try stale.existingObject(with: news.objectID) as! News
            _ = ours.title
        }
    }

    static let outcomes = [
        Outcome(policy: .rollback, title: "theirs", body: "stored", sortOrder: 2),
        Outcome(policy: .overwrite, title: "ours", body: "ours", sortOrder: 1),
        Outcome(policy: .mergeByPropertyStoreTrump, title: "theirs", body: "ours", sortOrder: 2),
        Outcome(policy: .mergeByPropertyObjectTrump, title: "ours", body: "ours", sortOrder: 2),
    ]

    @Test(arguments: outcomes)
    func eachPolicySettlesAConflictPropertyByPropertyAsCoreDataDoes(_ expected: Outcome) throws {
        let scene = try StaleRead(expected.policy) { news in
            news.title = "stored"
            news.body = "stored"
            news.sortOrder = 1
        }
        let (container, writer, news, stale, ours) = (scene.container, scene.writer, scene.news, scene.stale, scene.ours)
        news.title = "theirs"
        news.sortOrder = 2
        try writer.save()
        ours.title = "ours"
        ours.body = "ours"
        try stale.save()

        // The stale context's object reads what was stored, with nothing left to save.
        #expect(!ours.hasChanges)
        #expect(ours.title == expected.title && ours.body == expected.body && ours.sortOrder == expected.sortOrder)
        let reader = container.newContext()
        let read = try reader.existingObject(with: news.objectID) as! News
        #expect(read.title == expected.title && read.body == expected.body && read.sortOrder == expected.sortOrder)
        #expect(read.dateCreated == news.dateCreated)
        // Index entries follow the merged values.
        for sortOrder in [1, 2] {
            let count = try reader.count(for: FetchRequest<News>(predicate: try FetchPredicate(format: "sortOrder == %d", sortOrder)))
            #expect(count == (sortOrder == expected.sortOrder ? 1 : 0))
        }
        #expect(try container.store.check().problems.isEmpty)
        // And another save of the object is no conflict: it read the merged version.
        ours.body = "again"
        try stale.save()
    }

    @Test func theErrorPolicyWritesNothingAndKeepsTheChanges() throws {
        let scene = try StaleRead(.error)
        let (writer, news, stale, ours) = (scene.writer, scene.news, scene.stale, scene.ours)
        news.title = "theirs"
        try writer.save()
        ours.title = "ours"
        #expect(throws: KuraError.conflict(objectIDs: [news.objectID])) { try stale.save() }
        #expect(ours.title == "ours" && ours.hasChanges)
    }

    @Test(arguments: [MergePolicy.rollback, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump])
    func aMergedToOneFollowsThePolicy(_ policy: MergePolicy) throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let writer = container.newContext()
        let (first, second, third) = (Author(context: writer), Author(context: writer), Author(context: writer))
        (first.name, second.name, third.name) = ("first", "second", "third")
        let post = Post(context: writer)
        post.author = first
        try writer.save()

        let stale = container.newContext()
        stale.mergePolicy = policy
        let ours = try stale.existingObject(with: post.objectID) as! Post
        _ = ours.title
        post.author = second
        try writer.save()
        ours.author = try stale.existingObject(with: third.objectID) as? Author
        ours.title = "ours"
        try stale.save()

        let reader = container.newContext()
        let read = try reader.existingObject(with: post.objectID) as! Post
        let expected = policy == .mergeByPropertyObjectTrump ? "third" : "second"
        #expect(read.author?.name == expected)
        #expect(read.title == (policy == .rollback ? "" : "ours"))
        #expect(ours.author?.name == expected)
        // The reference entries moved with the merged to-one.
        #expect(try reader.fetch(FetchRequest<Post>(predicate: try FetchPredicate(format: "author.name == %@", expected))).count == 1)
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test(arguments: MergePolicy.allCases)
    func anUpdateOfAnObjectDeletedElsewhereConflictsOrLetsTheDeletionStand(_ policy: MergePolicy) throws {
        let scene = try StaleRead(policy)
        let (writer, news, stale, ours) = (scene.writer, scene.news, scene.stale, scene.ours)
        writer.delete(news)
        try writer.save()
        ours.title = "ours"

        switch policy {
        case .rollback, .mergeByPropertyStoreTrump:
            try stale.save()
            #expect(ours.managedObjectContext == nil)
            #expect(try stale.count(for: FetchRequest<News>()) == 0)
        case .error, .overwrite, .mergeByPropertyObjectTrump:
            #expect(throws: KuraError.conflict(objectIDs: [news.objectID])) { try stale.save() }
            #expect(ours.hasChanges)
        }
    }

    @Test(arguments: MergePolicy.allCases)
    func aDeletionOfAnObjectChangedElsewhereGoesAheadUnlessThePolicyIsError(_ policy: MergePolicy) throws {
        let scene = try StaleRead(policy)
        let (container, writer, news, stale, ours) = (scene.container, scene.writer, scene.news, scene.stale, scene.ours)
        news.title = "theirs"
        try writer.save()
        stale.delete(ours)
        if policy == .error {
            #expect(throws: KuraError.conflict(objectIDs: [news.objectID])) { try stale.save() }
        } else {
            try stale.save()
            #expect(try container.newContext().count(for: FetchRequest<News>()) == 0)
        }
    }

    @Test func rollbackDropsTheConflictingObjectsMembershipChangesOnly() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let writer = container.newContext()
        let post = Post(context: writer)
        let tag = Tag(context: writer)
        tag.name = "kept"
        try writer.save()

        let stale = container.newContext()
        stale.mergePolicy = .rollback
        let ours = try stale.existingObject(with: post.objectID) as! Post
        _ = ours.title
        post.score = 5
        try writer.save()
        ours.title = "dropped"
        ours.tags.insert(try stale.existingObject(with: tag.objectID) as! Tag)
        let untouched = Post(context: stale)
        untouched.title = "new"
        try stale.save()

        let reader = container.newContext()
        let read = try reader.existingObject(with: post.objectID) as! Post
        #expect(read.title == "" && read.score == 5 && read.tags.isEmpty)
        #expect(try reader.count(for: FetchRequest<Post>()) == 2, "the save's other changes are written")
        #expect(ours.tags.isEmpty && !ours.hasChanges)
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump])
    func aConflictWithAnotherProcessMergesPropertyByProperty(_ policy: MergePolicy) throws {
        let store = try TestStore(engine: .lmdb)
        let container = try PersistentContainer(path: store.path, model: MigrationWorkload.v1())
        try MigrationWorkload.fill(container, count: 3)
        let context = container.newContext()
        context.mergePolicy = policy
        let articles = try context.fetch(FetchRequest(entityName: "Article").sorted(by: "title"))
        let (changed, deleted) = (articles[0], articles[1])
        try changed.setValue(.string("ours"), forKey: "summary")
        try changed.setValue(.string("our title"), forKey: "title")

        // Retitles article 0 and deletes article 1, in another process.
        let (termination, output) = try Helper.run(["history-writer", store.path])
        #expect(termination == .exited(0), "\(output)")
        try deleted.setValue(.int(7), forKey: "views")
        if policy == .mergeByPropertyObjectTrump {
            // An object deleted elsewhere can't be merged into: a conflict, nothing written.
            #expect(throws: KuraError.conflict(objectIDs: [deleted.objectID])) { try context.save() }
            context.delete(deleted)
        }
        try context.save()

        let reader = container.newContext()
        let read = try reader.existingObject(with: changed.objectID)
        let title = policy == .mergeByPropertyStoreTrump ? "from the helper" : "our title"
        #expect(try read.value(forKey: "title") == .string(title))
        #expect(try read.value(forKey: "summary") == .string("ours"))
        #expect(try changed.value(forKey: "title") == .string(title))
        #expect(deleted.managedObjectContext == nil)
        #expect(try container.store.check().problems.isEmpty)
    }
}
