import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite struct ChangeTrackingTests {
    /// Found by the outside suite: -0.0 set over 0.0 was no change, so the
    /// store kept +0.0. Values are kept as they are (lossless); predicates
    /// still compare numbers, where -0 == 0.
    @Test func negativeZeroIsAChangeAndIsStoredAsItIs() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [EntityDescription(name: "Reading", attributes: [
            AttributeDescription(name: "value", type: .double, defaultValue: .double(0)),
            AttributeDescription(name: "ratio", type: .float, defaultValue: .float(0)),
        ], indexes: [.index("value")])])
        let container = try store.open(model)
        let context = container.newContext()
        let reading = try context.insertNewObject(forEntityName: "Reading")
        try context.save()
        try reading.setValue(.double(-0.0), forKey: "value")
        try reading.setValue(.float(-0.0), forKey: "ratio")
        #expect(reading.hasChanges && Set(reading.changedValues().keys) == ["value", "ratio"])
        try context.save()
        let reader = container.newContext()
        let stored = try #require(try reader.fetch(FetchRequest(entityName: "Reading")).first)
        guard case .double(let value)? = try stored.value(forKey: "value"), case .float(let ratio)? = try stored.value(forKey: "ratio") else {
            Issue.record("no values")
            return
        }
        #expect(value.sign == .minus && value == 0 && ratio.sign == .minus)
        try stored.setValue(.double(-0.0), forKey: "value")
        #expect(!stored.hasChanges, "the same value again is no change")
        #expect(AttributeValue.double(-0.0) != .double(0) && AttributeValue.double(.nan) == .double(-.nan))
        var scan = FetchRequest(entityName: "Reading", predicate: "value == 0")
        #expect(try container.newContext().count(for: scan) == 1, "by index: -0 == 0")
        scan.allowsIndexes = false
        #expect(try container.newContext().count(for: scan) == 1, "by scan: -0 == 0")
    }

    @Test func insertedUpdatedAndDeletedObjectsAreTracked() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let first = News(context: context)
        let second = News(context: context)
        #expect(context.insertedObjects == [first, second])
        #expect(context.hasChanges)
        #expect(first.isInserted && first.hasChanges && !first.isUpdated)
        try context.save()
        #expect(context.insertedObjects.isEmpty && !context.hasChanges)
        #expect(!first.hasChanges)

        first.title = "changed"
        context.delete(second)
        #expect(context.updatedObjects == [first])
        #expect(context.deletedObjects == [second])
        #expect(first.isUpdated && second.isDeleted)
        #expect(first.changedValues() == ["title": .attribute(.string("changed"))])
        #expect(try first.committedValues(forKeys: ["title"]) == ["title": .attribute(.string(""))])
        try context.save()
        #expect(!context.hasChanges)
        #expect(second.managedObjectContext == nil)
        #expect(!second.isDeleted)
    }

    @Test func insertThenDeleteBeforeSaveCancelsOut() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        context.delete(news)
        #expect(context.insertedObjects.isEmpty)
        #expect(context.deletedObjects.isEmpty)
        #expect(!context.hasChanges)
        #expect(news.managedObjectContext == nil)
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 0)
    }

    @Test func settingTheValueAnAttributeAlreadyHasChangesNothing() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.title = "same"
        try context.save()
        news.title = "same"
        #expect(!news.hasChanges)
        #expect(!context.hasChanges)
        news.title = "other"
        #expect(news.isUpdated)
        news.title = "same"
        #expect(!news.isUpdated, "back to the stored value is no change")
        #expect(news.changedValues().isEmpty)
    }

    /// On a fetched object whose values weren't decoded, a set compares the
    /// new value with the stored bytes: the same value (or a canonically
    /// equivalent text) is no change, another one is, and setting the
    /// stored value back undoes it.
    @Test func settingAFetchedObjectsStoredValueChangesNothing() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let writer = container.newContext()
        let saved = News(context: writer)
        (saved.title, saved.body, saved.sortOrder, saved.imageURL) = ("caf\u{E9}", "plain", 7, nil)
        let when = try #require(saved.dateCreated)
        try writer.save()

        let context = container.newContext()
        func fetched() throws -> News {
            try #require(try context.fetch(FetchRequest(entityName: "News"), as: News.self).first)
        }
        let news = try fetched()
        news.title = "cafe\u{301}"
        news.body = "plain"
        news.sortOrder = 7
        news.imageURL = nil
        news.dateCreated = when
        #expect(!news.hasChanges && !context.hasChanges)
        news.body = "other"
        news.sortOrder = 8
        news.imageURL = "https://example.org"
        #expect(news.isUpdated)
        #expect(Set(news.changedValues().keys) == ["body", "sortOrder", "imageURL"])
        #expect(try news.committedValues(forKeys: ["body", "sortOrder"]) == ["body": .attribute(.string("plain")), "sortOrder": .attribute(.int(7))])
        news.body = "plain"
        news.sortOrder = 7
        news.imageURL = nil
        #expect(!news.isUpdated, "back to the stored values is no change")
        news.title = "tea"
        try context.save()
        #expect(try container.newContext().fetch(FetchRequest(entityName: "News"), as: News.self).map(\.title) == ["tea"])
    }

    @Test func theIdentityMapGivesOneInstancePerRecord() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        try context.save()
        let fetched = try context.fetch(FetchRequest(entityName: "News"))
        #expect(fetched.count == 1)
        #expect(fetched[0] === news)
        #expect(try context.object(with: news.objectID) === news)
        #expect(context.registeredObject(for: news.objectID) === news)

        let other = container.newContext()
        let elsewhere = try other.existingObject(with: news.objectID)
        #expect(elsewhere !== news)
        #expect(try other.fetch(FetchRequest(entityName: "News"))[0] === elsewhere)
    }

    @Test func temporaryIDsBecomePermanentAtSave() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        let temporary = news.objectID
        #expect(temporary.isTemporaryID)
        #expect(temporary.primaryKey == nil)
        #expect(temporary.uriRepresentation.hasPrefix("kura://News/t"))
        #expect(context.registeredObject(for: temporary) === news)
        try context.save()
        #expect(!news.objectID.isTemporaryID)
        #expect(news.objectID.primaryKey == 1)
        #expect(news.objectID.uriRepresentation == "kura://News/1")
        #expect(context.registeredObject(for: temporary) == nil)
        let parsed = try container.model.objectID(forURIRepresentation: "kura://News/1")
        #expect(parsed == news.objectID)
        #expect(throws: KuraError.self) { try container.model.objectID(forURIRepresentation: "kura://Nope/1") }
        #expect(throws: KuraError.self) { try container.model.objectID(forURIRepresentation: "kura://News/t1") }
        #expect(throws: KuraError.self) { try container.model.objectID(forURIRepresentation: "http://News/1") }
        #expect(try container.model.objectID(forURIRepresentation: "kura://News/18446744073709551615").primaryKey == .max)
        let refusals = [
            "kura:/News/1": "does not start with kura://",
            "kura://": "is not of the form kura://Entity/key",
            "kura://News/1/2": "is not of the form kura://Entity/key",
            "kura://Nope/1": "names entity Nope, which is not in the model",
            "kura://News/t1": "is a temporary ID, which only its own context knows",
            "kura://News/": "has no valid primary key",
            "kura://News/0": "has no valid primary key",
            "kura://News/-1": "has no valid primary key",
            "kura://News/1x": "has no valid primary key",
            "kura://News/18446744073709551616": "has no valid primary key",
        ]
        for (text, reason) in refusals {
            #expect(throws: KuraError.invalidObjectID("'\(text)' \(reason)")) {
                try container.model.objectID(forURIRepresentation: text)
            }
        }
    }

    @Test func primaryKeysAreNeverReusedAfterDeletion() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let first = News(context: context)
        try context.save()
        context.delete(first)
        try context.save()
        let second = News(context: context)
        try context.save()
        #expect(second.objectID.primaryKey == 2)
    }

    @Test func existingObjectThrowsForAnObjectThatIsGone() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        try context.save()
        let id = news.objectID
        context.delete(news)
        try context.save()
        let other = container.newContext()
        #expect(throws: KuraError.objectNotFound(id)) { try other.existingObject(with: id) }
        let fault = try other.object(with: id)
        #expect(fault.isFault)
        #expect(throws: KuraError.objectNotFound(id)) { try fault.value(forKey: "title") }
    }

    @Test func objectsAreFaultsUntilAValueIsRead() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.title = "loaded later"
        try context.save()
        let other = container.newContext()
        let fault = try other.object(with: news.objectID) as! News
        #expect(fault.isFault)
        #expect(fault.title == "loaded later")
        #expect(!fault.isFault)
    }

    @Test func anIDOfAnotherSchemaIsRefusedAndOneOfTheSameSchemaIsAdopted() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        try context.save()
        let sameSchema = try ManagedObjectModel.news().objectID(forURIRepresentation: "kura://News/1")
        #expect(try context.object(with: sameSchema) === news)
        let otherSchema = try ManagedObjectModel(entities: [
            EntityDescription(name: "News", attributes: [AttributeDescription(name: "x", type: .int64)]),
        ]).objectID(forURIRepresentation: "kura://News/1")
        #expect(throws: KuraError.invalidObjectID("kura://News/1 belongs to another model")) {
            try context.object(with: otherSchema)
        }
    }
}
