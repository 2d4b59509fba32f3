import Foundation
import Kura
import KuraTestSupport
import Testing

/// A context going away lets go of its objects (``ObjectTable/detachAll()``):
/// in memory order when it holds the last reference to most of them, in
/// place otherwise. Either way, an object someone still holds is detached
/// and keeps its values, and every other one is freed.
@Suite struct ObjectTableTests {
    /// More objects than the size from which a table frees in memory order.
    static let count = 5_000

    @Test func objectsKeptFromALargeSaveOutliveTheirContextDetachedAndTheRestAreFreed() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        var kept: [News] = []
        weak var dropped: News?
        do {
            let context = container.newContext()
            for number in 0..<Self.count {
                let news = News(context: context)
                news.sortOrder = number
                if number % 1_000 == 0 { kept.append(news) }
                if number == 1 { dropped = news }
            }
            try context.save()
            #expect(dropped != nil)
        }
        #expect(dropped == nil, "an object only the context held is freed with it")
        #expect(kept.map(\.sortOrder) == [0, 1_000, 2_000, 3_000, 4_000])
        for news in kept {
            #expect(news.managedObjectContext == nil)
            #expect(throws: KuraError.objectDetached(news.objectID)) { try news.setValue(7, forKey: "sortOrder") }
        }
    }

    @Test func objectsOfALargeFetchOutliveTheirContextDetached() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let writer = container.newContext()
        for number in 0..<Self.count { News(context: writer).sortOrder = number }
        try writer.save()

        var fetched: [News] = []
        do {
            let context = container.newContext()
            fetched = try context.fetch(FetchRequest(entityName: "News", sortDescriptors: [FetchSortDescriptor(key: "sortOrder")]), as: News.self)
        }
        #expect(fetched.count == Self.count)
        #expect(fetched.allSatisfy { $0.managedObjectContext == nil })
        #expect(fetched.last?.sortOrder == Self.count - 1)
        #expect(throws: KuraError.objectDetached(fetched[0].objectID)) { try fetched[0].setValue(7, forKey: "sortOrder") }
    }
}
