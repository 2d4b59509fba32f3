import Foundation
import Kura
@testable import KuraCore
import KuraEngineConformance
import KuraTestSupport
import Testing

/// An ordered to-many keeps an order key per member (`MemberOrder`): a save
/// writes entries for the members that joined, moved or left, whatever the
/// list's length, and reading gives the order the context had.
@Suite struct MemberOrderTests {
    /// A store of `OrderedListFormatTests.model()` with one list of `count`
    /// items (`item 0` … in order), in `items` and in `picks`.
    final class Lists {
        let store: EngineStore
        let container: PersistentContainer
        let context: ManagedObjectContext
        let list: ManagedObject

        init(count: Int, function: String = #function) throws {
            store = try EngineStore(.underTest, function: function)
            container = try store.open(OrderedListFormatTests.model())
            context = container.newContext()
            list = try context.insertNewObject(forEntityName: "List")
            try list.setValue("list", forKey: "name")
            var items: [ManagedObject] = []
            for number in 0..<count { items.append(try item(number, in: context)) }
            try list.mutableSetValue(forKey: "items").set(items)
            try list.mutableSetValue(forKey: "picks").set(items)
            try context.save()
        }

        func item(_ number: Int, in context: ManagedObjectContext) throws -> ManagedObject {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue("item \(number)", forKey: "name")
            return item
        }

        /// The list as a new context reads it: item numbers in order (the
        /// items loaded in one read: on PostgreSQL, a fault each was a
        /// round trip each).
        func numbers(_ key: String) throws -> [Int] {
            let reader = container.newContext()
            let list = try reader.existingObject(with: self.list.objectID)
            let ids = try list.objectIDs(forRelationshipNamed: key)
            let items = try reader.existingObjects(with: ids)
            #expect(items.map(\.objectID) == ids)
            return try items.map { Int(try $0.value(forKey: "name", as: String.self).dropFirst(5))! }
        }

        /// Every entry of the relationship's order space.
        func orderEntries(_ key: String) throws -> Set<[UInt8]> {
            let store = container.store
            let entity = try #require(store.model.entity(named: "List"))
            let link = try #require(entity.links.first { $0.name == key })
            let space = try #require(store.storage(of: link).spaces.last)
            return try store.engine.storeRead { txn in
                var entries = Set<[UInt8]>()
                try space.forEach(in: txn) { entries.insert(Array($0.key) + [0xFF] + Array($0.value)); return true }
                return entries
            }
        }

        /// How many entries of both orders `change` (then a save) adds and removes.
        func entriesWritten(_ change: () throws -> Void) throws -> Int {
            let before = [try orderEntries("items"), try orderEntries("picks")]
            try change()
            try context.save()
            let after = [try orderEntries("items"), try orderEntries("picks")]
            return zip(before, after).reduce(0) { $0 + $1.1.subtracting($1.0).count + $1.0.subtracting($1.1).count }
        }

        deinit { withExtendedLifetime(store) {} }
    }

    @Test func anAppendToALongListWritesItsTwoEntriesWithoutReadingTheList() throws {
        let lists = try Lists(count: 2_000)
        let context = lists.container.newContext()
        let list = try context.existingObject(with: lists.list.objectID)
        let item = try lists.item(2_000, in: context)
        // Through the to-one inverse, and through the relationship's view: each list gains one member.
        let written = try lists.entriesWritten {
            try item.setObject(list, forKey: "list")
            try list.mutableSetValue(forKey: "picks").insert(item)
            let unread = list.toManyState(try #require(list.entity.links.first { $0.name == "items" })).members == nil
            #expect(unread, "the members were read")
            try context.save()
        }
        #expect(written == 4)
        #expect(try lists.numbers("items") == Array(0...2_000))
        #expect(try lists.numbers("picks") == Array(0...2_000))
        #expect(try lists.container.store.check().isConsistent)
    }

    @Test func insertsAtTheFrontAndAppendsNeedNotReadTheList() throws {
        let lists = try Lists(count: 1_000)
        let context = lists.container.newContext()
        let list = try context.existingObject(with: lists.list.objectID)
        let items = try (1_000..<1_004).map { try lists.item($0, in: context) }
        let link = try #require(list.entity.links.first { $0.name == "items" })
        let written = try lists.entriesWritten {
            for key in ["items", "picks"] {
                let view = try list.mutableSetValue(forKey: key)
                try view.insert(items[0], at: 0)
                try view.insert(items[1])
                try view.insert(items[2], at: 0)
                try view.insert(items[3])
                try view.insert(items[3], at: 0)  // an added one moved first
                try view.insert(items[1])  // a member already: nothing
            }
            let unread = list.toManyState(link).members == nil
            #expect(unread, "the members were read")
            try context.save()
        }
        #expect(written == 16)
        let expected = [1_003, 1_002, 1_000] + Array(0..<1_000) + [1_001]
        #expect(try lists.numbers("items") == expected)
        #expect(try lists.numbers("picks") == expected)
        // Read before the save, the members show the same order.
        let other = lists.container.newContext()
        let again = try other.existingObject(with: lists.list.objectID)
        let view = try again.mutableSetValue(forKey: "items")
        try view.insert(try lists.item(2_000, in: other), at: 0)
        try view.insert(try lists.item(2_001, in: other))
        let stored = try #require(try other.fetch(FetchRequest(entityName: "Item", predicate: "name == 'item 1003'")).first)
        try view.insert(stored, at: 0)  // a stored member moved first: the list is read for it
        let shown = try view.objects.map { Int(try $0.value(forKey: "name", as: String.self).dropFirst(5))! }
        #expect(shown == [1_003, 2_000] + expected.dropFirst() + [2_001], "\(shown.prefix(6)) … \(shown.suffix(3))")
        try other.save()
        #expect(try lists.numbers("items") == [1_003, 2_000] + expected.dropFirst() + [2_001])
        #expect(try lists.container.store.check().isConsistent)
    }

    @Test func insertsMovesAndRemovalsWriteOnlyTheirMembersEntries() throws {
        let lists = try Lists(count: 500)
        let context = lists.context
        var expected = Array(0..<500)
        let items = try lists.list.objects(forKey: "items")
        let front = try lists.item(500, in: context)
        let middle = try lists.item(501, in: context)
        for key in ["items", "picks"] {
            let view = try lists.list.mutableSetValue(forKey: key)
            #expect(try lists.entriesWritten { try view.insert(front, at: 0) } == 2)
            #expect(try lists.entriesWritten { try view.insert(middle, at: 250) } == 2)
            #expect(try lists.entriesWritten { try view.insert(items[10], at: 400) } == 4, "a move")
            #expect(try lists.entriesWritten { try view.remove(items[20]) } == 2)
            #expect(try lists.entriesWritten {
                var members = try view.objects
                members.swapAt(3, 300)
                try view.set(members)
            } == 8, "two moves")
            // Assigning the whole list with one member appended writes that member's entries.
            #expect(try lists.entriesWritten { try view.set(try view.objects + [try lists.item(502 + expected.count, in: context)]) } == 2)
            try view.remove(try view.objects.last!)
            try context.save()
        }
        expected.insert(500, at: 0)
        expected.insert(501, at: 250)
        expected.removeAll { $0 == 10 }
        expected.insert(10, at: 400)
        expected.removeAll { $0 == 20 }
        expected.swapAt(3, 300)
        #expect(try lists.numbers("items") == expected)
        #expect(try lists.numbers("picks") == expected)
        #expect(try lists.container.store.check().isConsistent)
    }

    @Test func insertsAtOnePlaceSpreadTheKeysAroundItNowAndThen() throws {
        let lists = try Lists(count: 300)
        let context = lists.context
        let view = try lists.list.mutableSetValue(forKey: "items")
        var expected = Array(0..<300)
        var written = 0
        for number in 300..<450 {
            // Always between the first and second members: the gap there halves each time.
            written += try lists.entriesWritten { try view.insert(try lists.item(number, in: context), at: 1) }
            expected.insert(number, at: 1)
        }
        #expect(try lists.numbers("items") == expected)
        #expect(try lists.container.store.check().isConsistent)
        // 2 entries each, plus the spreads: far from the list's 600 entries per insert.
        #expect(written < 150 * 10, "\(written) entries written")
        #expect(written > 150 * 2, "some spreads happened: \(written)")
    }

    @Test func randomChangesAcrossContextsKeepTheOrderEveryReaderSees() throws {
        let lists = try Lists(count: 40)
        var generator = SplitMix64(seed: 40)
        var expected = ["items": Array(0..<40), "picks": Array(0..<40)]
        var next = 40
        for round in 0..<30 {
            // Each round a new context (members read or not) makes a few changes and saves.
            let context = lists.container.newContext()
            let list = try context.existingObject(with: lists.list.objectID)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let key = Bool.random(using: &generator) ? "items" : "picks"
                let view = try list.mutableSetValue(forKey: key)
                var order = expected[key]!
                switch Int.random(in: 0..<5, using: &generator) {
                case 0:  // append a new item
                    let item = try lists.item(next, in: context)
                    if key == "items" { try item.setObject(list, forKey: "list") } else { try view.insert(item) }
                    order.append(next)
                    next += 1
                case 1 where !order.isEmpty:  // move
                    let from = Int.random(in: 0..<order.count, using: &generator)
                    let to = Int.random(in: 0..<order.count, using: &generator)
                    let member = try view.objects[from]
                    try view.insert(member, at: to)
                    order.insert(order.remove(at: from), at: to)
                case 2 where !order.isEmpty:  // remove
                    let at = Int.random(in: 0..<order.count, using: &generator)
                    try view.remove(try view.objects[at])
                    order.remove(at: at)
                case 3:  // insert a new item at a position
                    let at = Int.random(in: 0...order.count, using: &generator)
                    try view.insert(try lists.item(next, in: context), at: at)
                    order.insert(next, at: at)
                    next += 1
                default:  // assign a shuffled list
                    var members = try view.objects
                    let positions = Array(members.indices).shuffled(using: &generator)
                    members = positions.map { members[$0] }
                    try view.set(members)
                    order = positions.map { order[$0] }
                }
                expected[key] = order
            }
            try context.save()
            #expect(try lists.numbers("items") == expected["items"], "round \(round)")
            #expect(try lists.numbers("picks") == expected["picks"], "round \(round)")
        }
        #expect(try lists.container.store.check().isConsistent)
    }

    @Test func orderKeysLeaveRoomAndSpreadEvenly() {
        #expect(OrderKeys.between(nil, nil) == OrderKeys.first)
        #expect(OrderKeys.between(OrderKeys.first, nil) == OrderKeys.first + OrderKeys.gap)
        #expect(OrderKeys.between(nil, OrderKeys.first) == OrderKeys.first - OrderKeys.gap)
        #expect(OrderKeys.between(10, 20) == 15)
        #expect(OrderKeys.between(10, 11) == nil)
        #expect(OrderKeys.between(.max, nil) == nil)
        #expect(OrderKeys.between(.max - 3, nil).map { $0 > .max - 3 } == true)
        #expect(OrderKeys.between(nil, 0) == nil)
        #expect(OrderKeys.between(nil, 5) == 2)
        #expect(OrderKeys.fresh(count: 3) == [OrderKeys.first, OrderKeys.first + OrderKeys.gap, OrderKeys.first + 2 * OrderKeys.gap])
        #expect(OrderKeys.spread(count: 3, between: 0, and: 400, minimumGap: 1) == [100, 200, 300])
        #expect(OrderKeys.spread(count: 3, between: 0, and: 400, minimumGap: 101) == nil)
        #expect(OrderKeys.spread(count: 1, between: nil, and: nil, minimumGap: 1) == [UInt64.max / 2])
    }

    @Test func theMembersThatMoveAreTheFewestOutsideALongestRunInOrder() {
        #expect([0, 1, 2, 3].longestIncreasingRun() == [0, 1, 2, 3])
        #expect([3, 0, 1, 2].longestIncreasingRun() == [1, 2, 3])
        #expect([0, 3, 1, 2].longestIncreasingRun().count == 3)
        #expect([4, 3, 2, 1, 0].longestIncreasingRun().count == 1)
        #expect([-1, 0, -1, 1].longestIncreasingRun() == [1, 3], "new members (-1) are never in the run")
        #expect([Int]().longestIncreasingRun() == [])
    }
}

/// `insert(_:at:)` takes the positions `Array.insert(_:at:)` takes, and
/// throws for others instead of putting the member somewhere else.
@Suite struct OrderedInsertPositionTests {
    @Test(arguments: ["items", "picks"])
    func aPositionOutOfRangeIsRefusedAndChangesNothing(key: String) throws {
        let lists = try MemberOrderTests.Lists(count: 10)
        let context = lists.container.newContext()
        let list = try context.existingObject(with: lists.list.objectID)
        let view = try list.mutableSetValue(forKey: key)
        let new = try lists.item(10, in: context)
        for position in [11, 15, -1, Int.max, Int.min] {
            #expect(throws: KuraError.self, "insert at \(position)") { try view.insert(new, at: position) }
        }
        #expect(try !view.contains(new))
        let member = try view.objects[3]
        for position in [10, 12, -1] {
            #expect(throws: KuraError.self, "move to \(position)") { try view.insert(member, at: position) }
        }
        let reader = lists.container.newContext()
        let stored = try reader.existingObject(with: lists.list.objectID).mutableSetValue(forKey: key).objects.map(\.objectID)
        #expect(try view.objects.map(\.objectID) == stored, "nothing moved")
        // The ends themselves are positions.
        try view.insert(new, at: 10)
        try view.insert(member, at: 10)
        try context.save()
        #expect(try lists.numbers(key) == [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 3])
    }
}
