import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite struct RollbackTests {
    @Test func rollbackRestoresCommittedValuesAndDropsInsertsAndDeletes() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let kept = News(context: context)
        kept.title = "committed"
        let doomed = News(context: context)
        try context.save()

        kept.title = "changed"
        context.delete(doomed)
        let added = News(context: context)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(kept.title == "committed")
        #expect(!doomed.isDeleted && doomed.managedObjectContext != nil)
        #expect(added.managedObjectContext == nil)
        #expect(try context.fetch(FetchRequest(entityName: "News")).count == 2)
    }

    @Test func resetForgetsEveryObject() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        try context.save()
        _ = News(context: context)
        context.reset()
        #expect(context.registeredObjects.isEmpty)
        #expect(!context.hasChanges)
        let fetched = try context.fetch(FetchRequest(entityName: "News"))
        #expect(fetched.count == 1)
        #expect(fetched[0] !== news, "after reset a fetch makes new instances")
    }

    @Test func refreshWithoutMergingDropsChangesAndReloads() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.title = "stored"
        try context.save()
        news.title = "unsaved"
        try context.refresh(news, mergeChanges: false)
        #expect(news.isFault)
        #expect(news.title == "stored")
        #expect(!context.hasChanges)
    }

    @Test func refreshWithMergingKeepsLocalChangesOverNewStoredValues() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.title = "v1"
        news.body = "b1"
        try context.save()

        let other = container.newContext()
        let elsewhere = try other.existingObject(with: news.objectID) as! News
        elsewhere.body = "b2 from elsewhere"
        try other.save()

        news.title = "local title"
        try context.refresh(news, mergeChanges: true)
        #expect(news.title == "local title")
        #expect(news.body == "b2 from elsewhere")
        #expect(news.changedValues().keys.sorted() == ["title"])
        try context.save()
        let final = try container.newContext().existingObject(with: news.objectID) as! News
        #expect(final.title == "local title" && final.body == "b2 from elsewhere")
    }
}
