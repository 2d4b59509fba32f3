import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

@Suite struct QueryPlannerTests {
    /// 2000 news with sortOrder 0…1999 and titles "T0"…"T1999".
    func makeContext() throws -> (TestStore, ManagedObjectContext) {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        for order in 0..<2000 {
            let news = News(context: context)
            news.objectId = "id\(order)"
            news.sortOrder = order
            news.title = "T\(order)"
        }
        try context.save()
        return (store, container.newContext())
    }

    func plan(_ context: ManagedObjectContext, _ request: FetchRequest<ManagedObject>) throws -> String {
        try context.explain(request).description
    }

    @Test func theExplainOutputNamesTheIndexOrTheScan() throws {
        let (_, context) = try makeContext()
        let news = FetchRequest(entityName: "News")
        #expect(try plan(context, FetchRequest(entityName: "News", predicate: "objectId == 'id5'"))
            == "SEARCH News USING UNIQUE INDEX objectId (objectId == \"id5\") (~1 objects)")
        // Where a read is a request to a server, counting a range costs what
        // reading it costs: the planner guesses a tenth of the records, so
        // any index search beats sending every record to the client.
        let guesses = TestEngine.underTest == .postgres
        #expect(try plan(context, FetchRequest(entityName: "News", predicate: "sortOrder BETWEEN {10, 20}")).hasPrefix(
            "SEARCH News USING INDEX sortOrder (sortOrder BETWEEN {10, 20}) (~\(guesses ? 200 : 11) objects)"))
        #expect(try plan(context, FetchRequest(entityName: "News", predicate: "sortOrder > -1")).hasPrefix(
            guesses ? "SEARCH News USING INDEX sortOrder (sortOrder > -1) (~200 objects)" : "SCAN News (2000 objects)"),
                "a range holding everything is cheaper to scan, when its size is known")
        #expect(try plan(context, FetchRequest(entityName: "News", predicate: "title CONTAINS[c] '7'")).hasPrefix("SCAN News"))
        #expect(try plan(context, news.sorted(by: "sortOrder").limited(to: 10)) == "WALK News BY INDEX sortOrder, LIMIT 10")
        #expect(try plan(context, news.sorted(by: "sortOrder", ascending: false).limited(to: 10))
            == "WALK News BY INDEX sortOrder DESC, LIMIT 10")
        #expect(try plan(context, news.sorted(by: "title").limited(to: 10)) == "SCAN News (2000 objects), TOP 10 BY title ASC, LIMIT 10")
        #expect(try plan(context, news.sorted(by: "sortOrder")) == "SCAN News (2000 objects), SORT BY sortOrder ASC",
                "sorting a full scan in memory beats walking the whole index")
        #expect(try plan(context, FetchRequest(entityName: "News", predicate: "sortOrder BETWEEN {10, 20}").sorted(by: "sortOrder", ascending: false))
            .contains("IN INDEX ORDER DESC"))
        var count = news
        count.resultType = .count
        #expect(try plan(context, count) == "COUNT News FROM ENTRY COUNT")
    }

    @Test func anIndexGivingTheFirstSortKeyIsWalkedInOrderAndOnlyTiesAreSorted() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let setup = container.newContext()
        // 3000 news, sortOrder in 0..<30: runs of 100 equal sortOrders, titles in no order.
        var g = SplitMix64(seed: 53)
        for index in 0..<3000 {
            let news = News(context: setup)
            news.sortOrder = index % 30
            news.title = "T\(Int.random(in: 0..<100_000, using: &g))"
        }
        try setup.save()
        let context = container.newContext()
        var request = FetchRequest(entityName: "News", predicate: "sortOrder >= 3")
        request.sortDescriptors = [FetchSortDescriptor(key: "sortOrder", ascending: false), FetchSortDescriptor(key: "title")]
        request.fetchLimit = 20
        request.fetchOffset = 150
        let plan = try context.explain(request)
        #expect(plan.description.contains("IN INDEX ORDER DESC, TIES BY title ASC, LIMIT 20, OFFSET 150"), "\(plan)")
        #expect(plan.sortsInMemory)
        let all = try context.fetch(FetchRequest(entityName: "News"), as: News.self)
            .filter { $0.sortOrder >= 3 }
            .sorted { ($0.sortOrder, $1.title, $1.objectID.number) > ($1.sortOrder, $0.title, $0.objectID.number) }
        #expect(try context.fetch(request, as: News.self).map(\.objectID) == Array(all.dropFirst(150).prefix(20)).map(\.objectID))
        // A walk without a predicate too, and with the context's own changes among the runs.
        let first = try #require(all.first)
        first.title = "A"
        let added = News(context: context)
        added.sortOrder = 29
        added.title = "B"
        var walk = FetchRequest(entityName: "News").sorted(by: "sortOrder", ascending: false).sorted(by: "title")
        walk.fetchLimit = 3
        #expect(try context.explain(walk).description == "WALK News BY INDEX sortOrder DESC, TIES BY title ASC, LIMIT 3")
        let titles = try context.fetch(walk, as: News.self).map(\.title)
        let expected = try context.fetch(FetchRequest(entityName: "News"), as: News.self).filter { $0.sortOrder == 29 }.map(\.title).sorted()
        #expect(titles == Array(expected.prefix(3)) && titles.prefix(2) == ["A", "B"], "\(titles)")
    }

    @Test func plansReturnTheRightObjects() throws {
        let (_, context) = try makeContext()
        let lookup = try context.fetch(FetchRequest(entityName: "News", predicate: "objectId == 'id1234'"), as: News.self)
        #expect(lookup.map(\.sortOrder) == [1234])
        let top = try context.fetch(FetchRequest(entityName: "News").sorted(by: "sortOrder", ascending: false).limited(to: 3), as: News.self)
        #expect(top.map(\.sortOrder) == [1999, 1998, 1997])
        let range = try context.fetch(FetchRequest(entityName: "News", predicate: "sortOrder BETWEEN {10, 12} OR sortOrder == 5"), as: News.self)
        #expect(range.map(\.sortOrder) == [5, 10, 11, 12])
        let prefix = try context.fetch(FetchRequest(entityName: "News", predicate: "objectId BEGINSWITH 'id199'").sorted(by: "sortOrder"), as: News.self)
        #expect(prefix.map(\.sortOrder) == [199] + Array(1990...1999))
        #expect(try context.count(for: FetchRequest(entityName: "News", predicate: "sortOrder IN {1, 2, 3000}")) == 2)
    }
}

/// An entity with every kind of index: single, unique, compound.
final class Item: ManagedObject {
    @Attribute(.indexed) var num: Int = 0
    @Attribute(.indexed) var name: String?
    @Attribute var score: Double?
    @Attribute var group: Int16 = 0
    @Attribute(.unique) var code: String = ""
    override class var indexes: [IndexDescription] { [.index("group", "num")] }
}

@Suite struct PlannerEquivalenceTests {
    static let names: [String?] = [nil, "a", "A", "b", "ab", "ba", "é", "e\u{301}x", "Zeta", "zeta", "a*b", ""]

    static func randomValue(for key: String, _ g: inout SplitMix64) -> String {
        switch key {
        case "num": return ["-6", "-1", "0", "1", "3", "5", "2.5", "3.0", "nil"].randomElement(using: &g)!
        case "name": return ["nil", "'a'", "'A'", "'b'", "'ab'", "'é'", "'zeta'", "''", "'Z'"].randomElement(using: &g)!
        case "score": return ["nil", "0", "0.5", "-1", "10"].randomElement(using: &g)!
        case "group": return ["0", "1", "2", "3", "4"].randomElement(using: &g)!
        default: return ["'c1'", "'c10'", "'c99'", "'x'"].randomElement(using: &g)!
        }
    }

    static func randomComparison(_ g: inout SplitMix64) -> String {
        let key = ["num", "name", "score", "group", "code"].randomElement(using: &g)!
        let value = randomValue(for: key, &g)
        switch Int.random(in: 0..<10, using: &g) {
        case 0...4:
            let op = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &g)!
            return "\(key) \(op) \(value)"
        case 5:
            let a = randomValue(for: key, &g), b = randomValue(for: key, &g)
            return a == "nil" || b == "nil" ? "\(key) == nil" : "\(key) BETWEEN {\(a), \(b)}"
        case 6:
            return "\(key) IN {\((0..<Int.random(in: 0...3, using: &g)).map { _ in randomValue(for: key, &g) }.joined(separator: ", "))}"
        default:
            guard key == "name" || key == "code" else { return "\(key) == \(value)" }
            let op = ["BEGINSWITH", "BEGINSWITH[c]", "CONTAINS[cd]", "ENDSWITH", "LIKE", "LIKE[c]"].randomElement(using: &g)!
            let pattern = ["'a'", "'A'", "'c1'", "'*b'", "'e'", "'é'", "''"].randomElement(using: &g)!
            return "\(key) \(op) \(pattern)"
        }
    }

    static func randomPredicate(_ g: inout SplitMix64, depth: Int = 2) -> String {
        switch depth > 0 ? Int.random(in: 0..<6, using: &g) : 0 {
        case 0, 1, 2: return randomComparison(&g)
        case 3: return "(\(randomPredicate(&g, depth: depth - 1)) AND \(randomPredicate(&g, depth: depth - 1)))"
        case 4: return "(\(randomPredicate(&g, depth: depth - 1)) OR \(randomPredicate(&g, depth: depth - 1)))"
        default: return "NOT (\(randomPredicate(&g, depth: depth - 1)))"
        }
    }

    /// The expected results, computed the slow, obvious way.
    static func bruteForce(_ request: FetchRequest<ManagedObject>, objects: [Item]) throws -> [Item] {
        guard let entity = objects.first?.entity else { return [] }
        let compiled = try request.predicate.map { try $0.compiled(for: entity) }
        var matches = try objects.filter { object in
            guard let compiled else { return true }
            return try compiled.evaluate(on: object)
        }
        func key(_ object: Item, _ sort: FetchSortDescriptor) -> AttributeValue? {
            try! object.value(forKey: sort.key)
        }
        func order(_ a: Item, _ b: Item) -> Bool {
            for sort in request.sortDescriptors {
                var result = 0
                let (x, y) = (key(a, sort), key(b, sort))
                switch (sort.comparison, x, y) {
                case (.caseInsensitiveCompare, .string(let s)?, .string(let t)?):
                    result = AttributeValue.compareStrings(StringMatching.fold(s, .caseInsensitive), StringMatching.fold(t, .caseInsensitive))
                case (.localizedStandardCompare, .string(let s)?, .string(let t)?):
                    result = s.localizedStandardCompare(t).rawValue
                case (.localizedCompare, .string(let s)?, .string(let t)?):
                    result = s.localizedCompare(t).rawValue
                default:
                    result = AttributeValue.compare(x, y)
                }
                if result != 0 { return sort.ascending ? result < 0 : result > 0 }
            }
            // Saved objects by primary key, then unsaved ones in insertion order.
            let (ta, tb) = (a.objectID.isTemporaryID ? 1 : 0, b.objectID.isTemporaryID ? 1 : 0)
            if ta != tb { return ta < tb }
            return a.objectID.number < b.objectID.number
        }
        matches.sort(by: order)
        let start = min(request.fetchOffset, matches.count)
        let end = request.fetchLimit > 0 ? min(start + request.fetchLimit, matches.count) : matches.count
        return Array(matches[start..<end])
    }

    @Test func plannedResultsEqualBruteForceFilterThenSortOnThousandsOfRandomCases() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Item.self))
        var g = SplitMix64(seed: 2026)
        func randomize(_ item: Item) {
            item.num = Int.random(in: -5...5, using: &g)
            item.name = Self.names.randomElement(using: &g)!
            item.score = Bool.random(using: &g) ? nil : Double(Int.random(in: -2...10, using: &g)) / 2
            item.group = Int16.random(in: 0...3, using: &g)
        }
        let setup = container.newContext()
        for index in 0..<400 {
            let item = Item(context: setup)
            item.code = "c\(index)"
            randomize(item)
        }
        try setup.save()

        // On PostgreSQL each fetch sends its records over a socket, and the
        // suite there runs in CI beside LMDB's: a sixth of the cases.
        let perRound = TestEngine.underTest == .postgres ? 100 : 600
        var cases = 0
        var plans: [String: Int] = [:]
        for round in 0..<6 {
            let context = container.newContext()
            var live = try context.fetch(FetchRequest(entityName: "Item"), as: Item.self)
            #expect(live.count == 400)
            if round > 0 {
                // Unsaved changes: updates, deletions, insertions.
                for item in live.shuffled(using: &g).prefix(40) { randomize(item) }
                for item in live.shuffled(using: &g).prefix(15) {
                    context.delete(item)
                    live.removeAll { $0 === item }
                }
                for index in 0..<(round * 7) {
                    let item = Item(context: context)
                    item.code = "new\(round)-\(index)"
                    randomize(item)
                    live.append(item)
                }
            }
            for _ in 0..<perRound {
                var request = FetchRequest(entityName: "Item", predicate: Bool.random(using: &g) ? nil : try FetchPredicate(format: Self.randomPredicate(&g)))
                let keys = ["num", "name", "score", "group", "code"]
                for _ in 0..<Int.random(in: 0...2, using: &g) {
                    let key = keys.randomElement(using: &g)!
                    let comparison: FetchSortDescriptor.Comparison = key == "name"
                        ? FetchSortDescriptor.Comparison.allCases.randomElement(using: &g)! : .compare
                    request.sortDescriptors.append(FetchSortDescriptor(key: key, ascending: .random(using: &g), comparison: comparison))
                }
                if Bool.random(using: &g) { request.fetchLimit = Int.random(in: 1...30, using: &g) }
                if Int.random(in: 0..<3, using: &g) == 0 { request.fetchOffset = Int.random(in: 0...20, using: &g) }
                let expected = try Self.bruteForce(request, objects: live)
                let actual = try context.fetch(request, as: Item.self)
                let plan = try context.explain(request)
                #expect(actual.map(\.code) == expected.map(\.code), "\(request) — \(plan)")
                #expect(try context.count(for: request) == expected.count, "count \(request)")
                cases += 1
                plans[String(plan.description.prefix(while: { $0 != " " })) + (plan.indexName.map { " " + $0 } ?? "") + (plan.sortsInMemory ? " sorted" : ""), default: 0] += 1
            }
        }
        #expect(cases == 6 * perRound)
        // The cases must exercise every kind of plan, or they prove little.
        for kind in ["SCAN", "SCAN sorted", "SEARCH code", "SEARCH name", "SEARCH num", "SEARCH group_num", "WALK num", "WALK name"] {
            #expect(plans[kind, default: 0] > perRound / 60, "plan \(kind) was used \(plans[kind, default: 0]) times")
        }
    }
}
