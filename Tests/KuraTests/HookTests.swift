import Foundation
import Kura
import KuraTestSupport
import Testing

/// Records every hook call, in order, with the object's title.
final class Recorded: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var touched: Int = 0
    nonisolated(unsafe) static var log: [String] = []

    private func record(_ hook: String) { Self.log.append("\(hook) \(title)") }

    override func awakeFromInsert() { super.awakeFromInsert(); record("awakeFromInsert") }
    override func awakeFromFetch() {
        super.awakeFromFetch()
        record("awakeFromFetch")
        touched += 1   // change tracking is off here: not a change
    }
    override func willSave() { super.willSave(); record("willSave") }
    override func didSave() { super.didSave(); record("didSave") }
    override func prepareForDeletion() { super.prepareForDeletion(); record("prepareForDeletion") }
    override func validateForInsert() throws { record("validateForInsert"); try super.validateForInsert() }
    override func validateForUpdate() throws { record("validateForUpdate"); try super.validateForUpdate() }
    override func validateForDelete() throws { record("validateForDelete"); try super.validateForDelete() }
}

/// Each `willSave` of a `Chain` object inserts the next one, for ever.
final class Chain: ManagedObject {
    @Attribute var step: Int = 0
    override func willSave() {
        super.willSave()
        guard let context = managedObjectContext, !isDeleted else { return }
        let next = Chain(context: context)
        next.step = step + 1
    }
}

/// `willSave` of a `Parent` touches its `Child`, which was not changed before.
final class Parent: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var childKey: Int = 0
    nonisolated(unsafe) static var willSaveCount = 0
    override func willSave() {
        super.willSave()
        Self.willSaveCount += 1
        guard let context = managedObjectContext, !isDeleted else { return }
        let children = try! context.fetch(FetchRequest(entityName: "Child"), as: Child.self)
        for child in children where child.key == childKey { child.seenByParent += 1 }
    }
}

final class Child: ManagedObject {
    @Attribute var key: Int = 0
    @Attribute var seenByParent: Int = 0
    nonisolated(unsafe) static var willSaveCount = 0
    override func willSave() { super.willSave(); Self.willSaveCount += 1 }
}

/// Counts its `willSave` calls; `code` is unique, so a save can fail after them.
final class SaveCounted: ManagedObject {
    @Attribute(.unique) var code: String = ""
    nonisolated(unsafe) static var willSaveCalls = 0
    override func willSave() { super.willSave(); Self.willSaveCalls += 1 }
}

@Suite(.serialized) struct HookTests {
    @Test func eachHookFiresTheRightNumberOfTimesInOrder() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Recorded.self))
        Recorded.log = []
        let context = container.newContext()
        let object = Recorded(context: context)
        object.title = "a"
        #expect(Recorded.log == ["awakeFromInsert "])
        try context.save()
        #expect(Recorded.log == ["awakeFromInsert ", "willSave a", "validateForInsert a", "didSave a"])

        Recorded.log = []
        object.title = "b"
        try context.save()
        #expect(Recorded.log == ["willSave b", "validateForUpdate b", "didSave b"])

        Recorded.log = []
        try context.save()   // nothing changed: no hooks
        #expect(Recorded.log == [])

        // A new context loads the object from the store: awakeFromFetch, once.
        Recorded.log = []
        let other = container.newContext()
        let fetched = try other.fetch(FetchRequest(entityName: "Recorded"), as: Recorded.self)
        _ = try other.fetch(FetchRequest(entityName: "Recorded"))
        #expect(Recorded.log == ["awakeFromFetch b"])
        #expect(fetched[0].touched == 1)
        #expect(!fetched[0].hasChanges, "a value set in awakeFromFetch is not a change")

        Recorded.log = []
        other.delete(fetched[0])
        #expect(Recorded.log == ["prepareForDeletion b"])
        try other.save()
        #expect(Recorded.log == ["prepareForDeletion b", "willSave b", "validateForDelete b", "didSave b"])
    }

    @Test func awakeFromFetchRunsAgainWhenARefreshedObjectReloads() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Recorded.self))
        let context = container.newContext()
        let object = Recorded(context: context)
        object.title = "x"
        try context.save()
        Recorded.log = []
        try context.refresh(object, mergeChanges: false)
        #expect(object.isFault)
        #expect(object.title == "x")
        #expect(Recorded.log == ["awakeFromFetch x"])
        try context.refresh(object, mergeChanges: true)
        #expect(Recorded.log == ["awakeFromFetch x", "awakeFromFetch x"])
    }

    @Test func settingDateUpdatedInWillSaveJoinsTheSameSave() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.title = "First"
        let before = Date()
        try context.save()
        let firstUpdate = try #require(news.dateUpdated)
        #expect(firstUpdate >= before)
        #expect(!context.hasChanges, "the willSave change was saved, not left pending")

        news.title = "Second"
        try context.save()
        let secondUpdate = try #require(news.dateUpdated)
        #expect(secondUpdate >= firstUpdate)
        #expect(!context.hasChanges)

        let stored = try container.newContext().fetch(FetchRequest(entityName: "News"), as: News.self)
        #expect(stored[0].dateUpdated == secondUpdate)
        #expect(stored[0].title == "Second")
    }

    @Test func anObjectFirstChangedInAnotherObjectsWillSaveGetsItsOwnWillSaveOnce() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Parent.self, Child.self))
        let context = container.newContext()
        let child = Child(context: context)
        child.key = 7
        try context.save()
        Parent.willSaveCount = 0
        Child.willSaveCount = 0

        let parent = Parent(context: context)
        parent.childKey = 7
        try context.save()
        #expect(Parent.willSaveCount == 1)
        #expect(Child.willSaveCount == 1)
        #expect(child.seenByParent == 1)
        #expect(!context.hasChanges)
        let stored = try container.newContext().fetch(FetchRequest(entityName: "Child"), as: Child.self)
        #expect(stored[0].seenByParent == 1)
    }

    @Test func aWillSaveChainThatNeverSettlesStopsWithAClearErrorAndWritesNothing() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Chain.self))
        let context = container.newContext()
        context.maximumWillSavePasses = 10
        _ = Chain(context: context)
        do {
            try context.save()
            Issue.record("the save should not settle")
        } catch let error as KuraError where error.code == .willSaveDidNotSettle {
            #expect(error.limit == 10)
            #expect(error.objectIDs.count == 1)
        }
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Chain")) == 0)
        #expect(context.insertedObjects.count == 11, "the objects made by willSave stay in the context")
    }

    @Test func everySaveCallsWillSaveAgainEvenAfterAFailedOne() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(SaveCounted.self))
        let first = container.newContext()
        SaveCounted(context: first).code = "a"
        try first.save()

        SaveCounted.willSaveCalls = 0
        let context = container.newContext()
        let object = SaveCounted(context: context)
        object.code = "a"
        #expect(throws: KuraError.self) { try context.save() }
        #expect(SaveCounted.willSaveCalls == 1)

        object.code = "b"
        try context.save()
        #expect(SaveCounted.willSaveCalls == 2, "the failed save's call doesn't count for this one")

        object.code = "c"
        try context.save()
        #expect(SaveCounted.willSaveCalls == 3)
        try context.save()
        #expect(SaveCounted.willSaveCalls == 3, "a save with nothing to write calls nothing")
    }
}
