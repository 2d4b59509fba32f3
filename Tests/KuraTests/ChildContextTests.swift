import Foundation
import Kura
import KuraTestSupport
import Testing

/// `newChildContext()`: contexts that see their parent's unsaved state and
/// save into it rather than the store.
@Suite struct ChildContextTests {
    static func titles(_ objects: [ManagedObject]) -> [String] {
        objects.map { ($0 as! News).title }
    }

    @Test func aChildSeesItsParentsUnsavedChangesAndSavesIntoTheParentNotTheStore() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let parent = container.newContext()
        for order in 1...3 {
            let news = News(context: parent)
            news.title = "News \(order)"
            news.sortOrder = order
        }
        try parent.save()
        let saved = try parent.fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder"), as: News.self)
        saved[1].title = "Edited in parent"
        parent.delete(saved[2])
        let fourth = News(context: parent)
        fourth.title = "News 4"
        fourth.sortOrder = 4

        let child = parent.newChildContext()
        #expect(child.parent === parent)
        let request = FetchRequest(entityName: "News").sorted(by: "sortOrder")
        let seen = try child.fetch(request)
        #expect(Self.titles(seen) == ["News 1", "Edited in parent", "News 4"])
        #expect(seen[2].objectID == fourth.objectID && seen[2] !== fourth, "the parent's new object, under its temporary ID, as the child's own instance")
        #expect(!child.hasChanges)

        // The child changes News 1, inserts News 5 and deletes the parent's News 4.
        (seen[0] as! News).title = "Edited in child"
        let fifth = News(context: child)
        fifth.title = "News 5"
        fifth.sortOrder = 5
        child.delete(seen[2])
        #expect(Self.titles(try child.fetch(request)) == ["Edited in child", "Edited in parent", "News 5"])
        #expect(try child.count(for: request) == 3)
        #expect(try child.fetchObjectIDs(FetchRequest(entityName: "News", predicate: try FetchPredicate(format: "title BEGINSWITH 'Edited'"))).count == 2)
        #expect(Self.titles(try parent.fetch(request)) == ["News 1", "Edited in parent", "News 4"], "the parent doesn't see the child's changes before it saves")

        try child.save()
        #expect(!child.hasChanges)
        #expect(saved[0].title == "Edited in child", "pushed into the parent's object")
        #expect(saved[0].isUpdated)
        #expect(fourth.managedObjectContext == nil, "the child deleted the parent's new object: gone")
        let pushed = try #require(parent.registeredObject(for: fifth.objectID) as? News)
        #expect(pushed.title == "News 5" && pushed.isInserted && pushed.objectId == fifth.objectId)
        #expect(Self.titles(try container.newContext().fetch(request)) == ["News 1", "News 2", "News 3"], "nothing written yet")

        try parent.save()
        #expect(Self.titles(try container.newContext().fetch(request)) == ["Edited in child", "Edited in parent", "News 5"])
    }

    @Test func droppingAChildDiscardsItsChangesAndAFailedChildSaveChangesNothing() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [EntityDescription(name: "Person", attributes: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "age", type: .int64, defaultValue: .int(0)),
        ])])
        let container = try store.open(model)
        let parent = container.newContext()
        let ann = try parent.insertNewObject(forEntityName: "Person")
        try ann.setValue(.string("Ann"), forKey: "name")
        try parent.save()

        do {
            let child = parent.newChildContext()
            let copy = try child.existingObject(with: ann.objectID)
            try copy.setValue(.int(40), forKey: "age")
        }
        #expect(!parent.hasChanges, "a dropped child leaves nothing behind")
        #expect(try ann.value(forKey: "age") == .int(0))

        let child = parent.newChildContext()
        try child.existingObject(with: ann.objectID).setValue(.int(41), forKey: "age")
        let nameless = try child.insertNewObject(forEntityName: "Person")
        #expect(throws: KuraError.self) { try child.save() }
        #expect(!parent.hasChanges, "the failed save pushed nothing")
        #expect(child.hasChanges && nameless.isInserted, "and the child keeps its changes")
        try nameless.setValue(.string("Bo"), forKey: "name")
        try child.save()
        #expect(parent.insertedObjects.count == 1)
        #expect(try ann.value(forKey: "age") == .int(41))
    }

    @Test func hooksRunInTheChildsSaveAndAgainInTheParentsAwakeFromInsertOnce() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let parent = container.newContext()
        let child = parent.newChildContext()
        let news = News(context: child)                  // awakeFromInsert: objectId, dateCreated
        let id = news.objectId
        try child.save()                                 // willSave: dateUpdated
        let childSaveDate = try #require(news.dateUpdated)
        let inParent = try #require(parent.registeredObject(for: news.objectID) as? News)
        #expect(inParent.objectId == id, "awakeFromInsert didn't run again in the parent")
        #expect(inParent.dateUpdated == childSaveDate)
        try parent.save()
        #expect(try #require(inParent.dateUpdated) >= childSaveDate, "the parent's save ran willSave again")
    }

    @Test func relationshipsCrossBetweenAChildAndItsParent() throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let parent = container.newContext()
        let post = Post(context: parent)
        post.title = "Saved"
        try parent.save()
        let ann = Author(context: parent)                // unsaved in the parent
        ann.name = "Ann"
        let swift = Tag(context: parent)
        swift.name = "swift"
        post.tags.insert(swift)

        let child = parent.newChildContext()
        let childPost = try child.existingObject(with: post.objectID) as! Post
        #expect(childPost.tags.map(\.name) == ["swift"], "the parent's unsaved membership")
        let childAnn = try #require(try child.fetch(FetchRequest(entityName: "Author"), as: Author.self).first)
        #expect(childAnn.name == "Ann")
        let draft = Post(context: child)
        draft.title = "Draft"
        draft.author = childAnn
        childPost.author = childAnn
        #expect(childAnn.posts.count == 2)
        #expect(try child.count(for: FetchRequest(entityName: "Post", predicate: try FetchPredicate(format: "author.name == 'Ann'"))) == 2)

        try child.save()
        #expect(ann.posts.map(\.title).sorted() == ["Draft", "Saved"], "both posts reached Ann in the parent, inverse kept")
        #expect(post.author === ann)
        try parent.save()
        let fresh = container.newContext()
        let stored = try fresh.fetch(FetchRequest(entityName: "Author"), as: Author.self)
        #expect(stored.map(\.name) == ["Ann"] && stored[0].posts.count == 2)
    }
}
