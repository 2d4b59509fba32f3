import Foundation
import Kura
import KuraTestSupport
import Testing

/// Counts awakeFromFetch calls.
final class Counted: ManagedObject {
    @Attribute(.indexed) var rank: Int = 0
    @Attribute var label: String?
    nonisolated(unsafe) static var awakenings = 0
    override func awakeFromFetch() { super.awakeFromFetch(); Self.awakenings += 1 }
}

@Suite(.serialized) struct FetchRequestTests {
    /// Ten saved objects with ranks 0…9 and labels "L0"…"L9".
    func makeStore() throws -> (TestStore, PersistentContainer, ManagedObjectContext) {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Counted.self))
        let context = container.newContext()
        for rank in 0..<10 {
            let object = Counted(context: context)
            object.rank = rank
            object.label = "L\(rank)"
        }
        try context.save()
        return (store, container, container.newContext())
    }

    func ranks(_ objects: [ManagedObject]) -> [Int] {
        objects.map { ($0 as! Counted).rank }
    }

    /// A request is a value: its parts are shared by copies until one
    /// changes (copy on write), and a change reaches only the copy changed.
    @Test func aChangedCopyLeavesTheOriginalAndTheTemplateAsTheyWere() throws {
        let original = FetchRequest(entityName: "News", predicate: "sortOrder > 3", sortDescriptors: [FetchSortDescriptor(key: "title")])
        var copy = original
        copy.sortDescriptors.append(FetchSortDescriptor(key: "sortOrder", ascending: false))
        copy.propertiesToFetch = ["title"]
        copy.relationshipKeyPathsForPrefetching.append("author")
        copy.predicate = "sortOrder < 3"
        copy.fetchLimit = 5
        #expect(original.sortDescriptors.map(\.key) == ["title"])
        #expect(original.propertiesToFetch.isEmpty && original.relationshipKeyPathsForPrefetching.isEmpty)
        #expect(original.predicate?.predicateFormat == "sortOrder > 3" && original.fetchLimit == 0)
        #expect(copy.sortDescriptors.map(\.key) == ["title", "sortOrder"] && copy.predicate?.predicateFormat == "sortOrder < 3")

        let plain = FetchRequest(entityName: "News")
        let sorted = plain.sorted(by: "title").limited(to: 2)
        #expect(plain.sortDescriptors.isEmpty && plain.fetchLimit == 0)
        #expect(sorted.sortDescriptors.map(\.key) == ["title"] && sorted.fetchLimit == 2)
        #expect(FetchRequest(entityName: "News").sortDescriptors.isEmpty)

        let model = try ManagedObjectModel.news()
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "News", predicate: "objectId == $id", sortDescriptors: [FetchSortDescriptor(key: "title")]), forName: "byID")
        var made = try model.fetchRequestFromTemplate(withName: "byID", substitutionVariables: ["id": "a"])
        made.sortDescriptors = []
        made.propertiesToFetch.append("title")
        let again = try model.fetchRequestFromTemplate(withName: "byID", substitutionVariables: ["id": "b"])
        #expect(again.sortDescriptors.map(\.key) == ["title"] && again.propertiesToFetch.isEmpty)
        #expect(model.fetchRequestTemplate(forName: "byID")?.sortDescriptors.map(\.key) == ["title"])
        #expect(made.predicate?.predicateFormat == "objectId == \"a\"" && again.predicate?.predicateFormat == "objectId == \"b\"")
    }

    @Test func limitAndOffsetSliceTheOrderedResults() throws {
        let (_, _, context) = try makeStore()
        let request = FetchRequest(entityName: "Counted").sorted(by: "rank", ascending: false)
        #expect(ranks(try context.fetch(request.limited(to: 3))) == [9, 8, 7])
        #expect(ranks(try context.fetch(request.limited(to: 3, offset: 8))) == [1, 0])
        var offsetOnly = request
        offsetOnly.fetchOffset = 7
        #expect(ranks(try context.fetch(offsetOnly)) == [2, 1, 0])
        #expect(try context.count(for: request.limited(to: 3, offset: 8)) == 2)
        #expect(try context.fetch(request.limited(to: 3, offset: 20)).isEmpty)
    }

    @Test func negativeLimitsOffsetsAndUnknownSortKeysAreErrors() throws {
        let (_, _, context) = try makeStore()
        var request = FetchRequest(entityName: "Counted")
        request.fetchLimit = -1
        #expect(throws: KuraError.invalidFetchRequest("fetchLimit is -1; it must be 0 (no limit) or more")) { try context.fetch(request) }
        request.fetchLimit = 0
        request.fetchOffset = -2
        #expect(throws: KuraError.invalidFetchRequest("fetchOffset is -2; it must be 0 or more")) { try context.count(for: request) }
        #expect(throws: KuraError.invalidFetchRequest("unknown sort key 'rnak': Counted has no such attribute or key path to one")) {
            try context.fetch(FetchRequest(entityName: "Counted").sorted(by: "rnak"))
        }
        #expect(throws: KuraError.unknownEntity("Nope")) { try context.fetch(FetchRequest(entityName: "Nope")) }
    }

    @Test func resultTypesReturnObjectsIDsDictionariesAndCounts() throws {
        let (_, _, context) = try makeStore()
        var request = FetchRequest(entityName: "Counted", predicate: "rank < 3").sorted(by: "rank")
        let ids = try context.fetchObjectIDs(request)
        #expect(ids.map(\.primaryKey) == [1, 2, 3])
        #expect(context.registeredObjects.isEmpty, "fetching IDs makes no object")
        request.propertiesToFetch = ["label"]
        #expect(try context.fetchDictionaries(request)
            == [["label": .attribute(.string("L0"))], ["label": .attribute(.string("L1"))], ["label": .attribute(.string("L2"))]])
        request.resultType = .count
        guard case .count(let count) = try context.execute(request) else { Issue.record("not a count"); return }
        #expect(count == 3)
        request.propertiesToFetch = ["nope"]
        #expect(throws: KuraError.self) { try context.fetchDictionaries(request) }
    }

    @Test func unsavedInsertsAppearDeletionsVanishAndChangesAreRefilteredAndResorted() throws {
        let (_, _, context) = try makeStore()
        let all = try context.fetch(FetchRequest(entityName: "Counted").sorted(by: "rank"))
        let moved = all[2] as! Counted        // rank 2 → 100
        moved.rank = 100
        let dropped = all[5] as! Counted      // rank 5 → -1: no longer matches rank >= 1
        dropped.rank = -1
        context.delete(all[7])
        let new = Counted(context: context)
        new.rank = 4                          // ties with the stored rank 4: saved objects first
        let request = FetchRequest(entityName: "Counted", predicate: "rank >= 1").sorted(by: "rank")
        #expect(ranks(try context.fetch(request)) == [1, 3, 4, 4, 6, 8, 9, 100])
        #expect(try context.fetch(request)[3] === new)
        #expect(try context.count(for: request) == 8)
        #expect(ranks(try context.fetch(request.limited(to: 2, offset: 6))) == [9, 100])
        #expect(try context.count(for: FetchRequest(entityName: "Counted")) == 10)

        var storeOnly = request
        storeOnly.includesPendingChanges = false
        #expect(try context.fetch(storeOnly).count == 9)
        #expect(try context.count(for: storeOnly) == 9)
    }

    @Test func awakeFromFetchRunsForObjectsAFetchLoadsNotForRegisteredOnes() throws {
        let (_, _, context) = try makeStore()
        Counted.awakenings = 0
        _ = try context.fetch(FetchRequest(entityName: "Counted", predicate: "rank < 4"))
        #expect(Counted.awakenings == 4)
        _ = try context.fetch(FetchRequest(entityName: "Counted"))
        #expect(Counted.awakenings == 10)
        _ = try context.fetch(FetchRequest(entityName: "Counted"))
        #expect(Counted.awakenings == 10)
    }

    @Test func findersAreOneLineEach() throws {
        let (_, _, context) = try makeStore()
        #expect(try Counted.findAll(in: context).count == 10)
        #expect(try Counted.findFirst(by: "label", value: "L7", in: context)?.rank == 7)
        #expect(try Counted.findFirst(by: "label", value: "none", in: context) == nil)
        #expect(try Counted.deleteAll(in: context, matching: "rank >= 5") == 5)
        try context.save()
        #expect(try Counted.findAll(in: context).count == 5)
    }

    @Test func sortDescriptorsSupportSeveralKeysNilPlacementAndComparisons() throws {
        let store = try TestStore()
        let context = try store.open(ManagedObjectModel(Counted.self)).newContext()
        let values: [String?] = ["b", nil, "B", "a10", "a9", nil, "A", "b"]
        for (rank, label) in values.enumerated() {
            let object = Counted(context: context)
            object.rank = rank % 2
            object.label = label
        }
        try context.save()
        func labels(_ sorts: [FetchSortDescriptor]) throws -> [String] {
            try context.fetch(FetchRequest(entityName: "Counted", sortDescriptors: sorts), as: Counted.self).map { $0.label ?? "nil" }
        }
        #expect(try labels([FetchSortDescriptor(key: "label")]) == ["nil", "nil", "A", "B", "a10", "a9", "b", "b"])
        #expect(try labels([FetchSortDescriptor(key: "label", ascending: false)]) == ["b", "b", "a9", "a10", "B", "A", "nil", "nil"])
        #expect(try labels([FetchSortDescriptor(key: "label", comparison: .caseInsensitiveCompare)])
            == ["nil", "nil", "A", "a10", "a9", "b", "B", "b"], "ties keep store order")
        #expect(try labels([FetchSortDescriptor(key: "label", comparison: .localizedStandardCompare)])
            == ["nil", "nil", "A", "a9", "a10", "b", "b", "B"], "Foundation puts lowercase first on a tie")
        #expect(try labels([FetchSortDescriptor(key: "rank", ascending: false), FetchSortDescriptor(key: "label")])
            == ["nil", "nil", "a10", "b", "A", "B", "a9", "b"])
    }
}

@Suite struct FetchLimitOverflowTests {
    @Test func theLargestLimitsAndOffsetsNeverOverflow() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        for index in 0..<10 { News(context: context).sortOrder = index }
        try context.save()
        let pending = News(context: context)            // the merged path: stored and unsaved results
        pending.sortOrder = 100
        for includesPending in [false, true] {
            for predicate in [nil, "sortOrder >= 0" as FetchPredicate] {
                for sorted in [false, true] {
                    var request = FetchRequest(entityName: "News", predicate: predicate)
                    request.includesPendingChanges = includesPending
                    if sorted { request = request.sorted(by: "sortOrder") }
                    let total = includesPending ? 11 : 10
                    #expect(try context.fetch(request.limited(to: .max, offset: 1)).count == total - 1)
                    #expect(try context.fetch(request.limited(to: 1, offset: .max)).isEmpty)
                    #expect(try context.fetch(request.limited(to: .max, offset: .max)).isEmpty)
                    #expect(try context.fetch(request.limited(to: 2_000_000_000_000_000_000)).count == total)
                    #expect(try context.count(for: request.limited(to: .max, offset: 1)) == total - 1)
                    #expect(try context.count(for: request.limited(to: .max, offset: .max)) == 0)
                    #expect(try context.fetchObjectIDs(request.limited(to: .max, offset: 3)).count == total - 3)
                }
            }
        }
    }
}
