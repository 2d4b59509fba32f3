import Foundation
import Kura
import KuraTestSupport
import Testing

/// Counts the objects made from the store, per test (each test has its own store).
final class Batched: ManagedObject {
    @Attribute(.indexed) var rank: Int = 0
    @Attribute var label: String?
    nonisolated(unsafe) static var awakenings: [String: Int] = [:]
    override func awakeFromFetch() {
        super.awakeFromFetch()
        Self.awakenings[label ?? "", default: 0] += 1
    }
}

@Suite(.serialized) struct FetchedObjectsTests {
    /// Ten saved objects with ranks 0…9 and labels "`tag`0"…"`tag`9".
    func makeStore(_ tag: String) throws -> (TestStore, PersistentContainer, ManagedObjectContext) {
        let store = try TestStore(function: tag)
        let container = try store.open(ManagedObjectModel(Batched.self))
        let context = container.newContext()
        for rank in 0..<10 {
            let object = Batched(context: context)
            object.rank = rank
            object.label = tag
        }
        try context.save()
        return (store, container, container.newContext())
    }

    func request(batchSize: Int) -> FetchRequest<Batched> {
        var request = Batched.fetchRequest().sorted(by: "rank", ascending: false)
        request.fetchBatchSize = batchSize
        return request
    }

    @Test func aBatchedFetchMakesNoObjectUntilReachedThenOneBatchAtATime() throws {
        let (_, _, context) = try makeStore("batches")
        let results = try context.fetchBatched(request(batchSize: 3), as: Batched.self)
        #expect(results.count == 10)
        #expect(results.batchSize == 3)
        #expect(Batched.awakenings["batches", default: 0] == 0)
        #expect(context.registeredObjects.isEmpty)
        #expect(results[1].rank == 8)
        #expect(Batched.awakenings["batches"] == 3)  // the first batch: ranks 9, 8, 7
        #expect(context.registeredObjects.count == 3)
        var seen: [Int] = []
        for object in results {
            seen.append(object.rank)
            #expect(context.registeredObjects.count <= 3)
        }
        #expect(seen == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
        #expect(Batched.awakenings["batches"] == 10)
        #expect(results.objectIDs.count == 10)
    }

    @Test func objectsKeptOrChangedStayRegisteredAsTheSameInstance() throws {
        let (_, _, context) = try makeStore("kept")
        let results = try context.fetchBatched(request(batchSize: 2), as: Batched.self)
        let kept = results[0]
        results[5].label = "changed"
        for object in results { _ = object.rank }
        let registered = context.registeredObjects
        #expect(registered.count == 4)  // kept, changed, and the last batch
        #expect(registered.contains(kept))
        let all = try context.fetch(Batched.fetchRequest().sorted(by: "rank", ascending: false), as: Batched.self)
        #expect(all[0] === kept)
        #expect(all[5].label == "changed")
        #expect(context.hasChanges)
        try context.save()
        #expect(try context.count(for: Batched.fetchRequest().filtered(by: "label == 'changed'")) == 1)
    }

    @Test func pendingChangesLimitAndOffsetGiveTheResultsFetchGives() throws {
        let (_, _, context) = try makeStore("pending")
        let inserted = Batched(context: context)
        inserted.rank = 100
        let deleted = try context.fetch(Batched.fetchRequest().filtered(by: "rank == 5"))[0]
        context.delete(deleted)
        let changed = try context.fetch(Batched.fetchRequest().filtered(by: "rank == 2"), as: Batched.self)[0]
        changed.rank = 50
        for limit in [0, 4] {
            for offset in [0, 3] {
                var batched = request(batchSize: 3).limited(to: limit, offset: offset)
                batched.predicate = "rank > 0"
                let expected = try context.fetch(batched, as: Batched.self)
                let results = try context.fetchBatched(batched, as: Batched.self)
                #expect(Array(results).map(\.rank) == expected.map(\.rank), "limit \(limit) offset \(offset)")
                #expect(zip(results, expected).allSatisfy { $0 === $1 })
            }
        }
        #expect(try context.fetchBatched(request(batchSize: 4), as: Batched.self).map(\.rank).first == 100)
    }

    @Test func anObjectDeletedElsewhereBeforeItsBatchLoadsIsAFaultOrAnError() throws {
        let (_, container, context) = try makeStore("deleted")
        let results = try context.fetchBatched(request(batchSize: 5))
        _ = results[0]
        let other = container.newContext()
        other.delete(try other.fetch(Batched.fetchRequest().filtered(by: "rank == 2"))[0])
        try other.save()
        let objectID = results.objectIDs[7]
        #expect(throws: KuraError.objectNotFound(objectID)) { try results.object(at: 7) }
        let fault = results[7]
        #expect(fault.isFault)
        #expect(throws: KuraError.objectNotFound(objectID)) { try fault.value(forKey: "rank") }
        #expect(try results[6].value(forKey: "rank") == .int(3))
    }

    @Test func batchedFetchesCheckTheRequestAndWorkInChildContexts() throws {
        let (_, _, context) = try makeStore("checks")
        #expect(throws: KuraError.invalidFetchRequest("fetchBatchSize is -1; it must be 0 (the default) or more")) {
            try context.fetchBatched(request(batchSize: -1))
        }
        #expect(throws: KuraError.self) { try context.fetchBatched(request(batchSize: 2), as: News.self) }
        #expect(try context.fetchBatched(Batched.fetchRequest()).batchSize == FetchRequest.defaultBatchSize)
        let child = context.newChildContext()
        let inserted = Batched(context: child)
        inserted.rank = 42
        let results = try child.fetchBatched(request(batchSize: 4), as: Batched.self)
        #expect(results.map(\.rank) == [42, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
        #expect(results[0] === inserted)
    }
}
