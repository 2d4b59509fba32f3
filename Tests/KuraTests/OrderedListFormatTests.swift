import Foundation
import Kura
import KuraLMDB
import KuraTestSupport
import Testing

/// A store written before ordered to-manys kept an order key per member
/// (format 3, `format3-ordered.kura`): read as it is when opened read-only,
/// upgraded when opened read-write, and refused by the versions that can't
/// read the new entries.
@Suite struct OrderedListFormatTests {
    /// The fixture's model (see Fixtures/README.md).
    static func model() throws -> ManagedObjectModel { try OrderedListWorkload.model() }

    /// What the fixture holds: each list's ordered relationships, as item numbers.
    static let fixtureOrders: [String: [[Int]]] = [
        "items": [[7, 0] + (2..<300).map { $0 * 7 % 300 }, [304, 303, 305, 302, 301, 300], []],
        "picks": [(0..<20).reversed().map { $0 * 3 }, [1, 2], []],
    ]

    static func orders(_ context: ManagedObjectContext, _ key: String) throws -> [[Int]] {
        try OrderedListWorkload.orders(context, key)
    }

    static func storedFormat(_ path: String) throws -> UInt32 {
        let environment = try Environment(path: path)
        defer { environment.close() }
        let meta = try #require(try environment.database(named: "kura.meta"))
        let bytes = try #require(try environment.read { txn in try meta.value(forKey: Array("format".utf8), in: txn) })
        return bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
    }

    /// Rewrites a closed store's ordered to-manys as format 4 and older kept
    /// them (one list per owner: its key → all its members' keys) and
    /// marks it format 3: a store as an older Kura left it.
    static func makeListStore(_ path: String, orderSpaces: [String]) throws {
        let environment = try Environment(path: path)
        defer { environment.close() }
        for name in orderSpaces {
            let space = try #require(try environment.database(named: name))
            try environment.write { txn in
                var lists: [(owner: [UInt8], members: [UInt8])] = []
                try space.forEach(in: txn) { entry in
                    guard entry.key[8] == 0 else { return true }  // the sequence entries, in order
                    let owner = Array(entry.key.prefix(8))
                    if lists.last?.owner != owner { lists.append((owner, [])) }
                    lists[lists.count - 1].members += Array(entry.value)
                    return true
                }
                try space.removeAll(in: txn)
                for list in lists { try space.put(list.members, forKey: list.owner, in: txn) }
            }
        }
        let meta = try #require(try environment.database(named: "kura.meta"))
        try environment.write { txn in try meta.put([3, 0, 0, 0], forKey: Array("format".utf8), in: txn) }
    }

    @Test func aStoreMadeIntoListsReadsAsTheFixtureDoesAndUpgradesBack() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("lists.kura")
        do {
            let container = try PersistentContainer(path: path, model: Self.model())
            try OrderedListWorkload.fill(container, lists: 3, length: 50)
            container.close()
        }
        try Self.makeListStore(path, orderSpaces: ["kura.order.List.items", "kura.order.List.picks"])
        let expected = (0..<3).map { OrderedListWorkload.items(of: $0, length: 50) }
        var options = StoreOptions()
        options.isReadOnly = true
        for options in [options, StoreOptions()] {
            let container = try PersistentContainer(path: path, options: options)
            let context = container.newContext()
            #expect(try Self.orders(context, "items") == expected)
            #expect(try Self.orders(context, "picks") == expected.map { $0.reversed() })
            #expect(try container.store.check().isConsistent)
            container.close()
            #expect(try Self.storedFormat(path) == (options.isReadOnly ? 3 : 5))
        }
    }

    @Test func aFormatThreeStoreOpensReadOnlyAsItIsWithItsOrders() throws {
        let directory = try TemporaryDirectory()
        let path = try Fixtures.copy("format3-ordered.kura", into: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try PersistentContainer(path: path, options: options)
        let context = container.newContext()
        #expect(try Self.orders(context, "items") == Self.fixtureOrders["items"])
        #expect(try Self.orders(context, "picks") == Self.fixtureOrders["picks"])
        #expect(try container.store.check().isConsistent)
        container.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "a read-only open changes nothing")
        #expect(try Self.storedFormat(path) == 3)
    }

    @Test func aFormatThreeStoreOpenedReadWriteGetsOrderKeysAndKeepsEveryOrder() throws {
        let directory = try TemporaryDirectory()
        let path = try Fixtures.copy("format3-ordered.kura", into: directory)
        do {
            let container = try PersistentContainer(path: path, model: Self.model())
            #expect(try container.store.modelHistory().map(\.change) == ["created", "upgraded from format 3"])
            #expect(try container.store.check().isConsistent)
            let context = container.newContext()
            #expect(try Self.orders(context, "items") == Self.fixtureOrders["items"])
            #expect(try Self.orders(context, "picks") == Self.fixtureOrders["picks"])
            // Written as any list now: an append, an insert at the front, a move, a removal.
            let lists = try context.fetch(FetchRequest(entityName: "List").sorted(by: "name"))
            let items = try lists[0].objects(forKey: "items")
            let extra = try context.insertNewObject(forEntityName: "Item")
            try extra.setValue("item 310", forKey: "name")
            try extra.setObject(lists[2], forKey: "list")
            try lists[1].mutableSetValue(forKey: "picks").insert(items[5], at: 0)
            try lists[0].mutableSetValue(forKey: "items").insert(items[0], at: 299)
            try lists[0].mutableSetValue(forKey: "picks").remove(try lists[0].objects(forKey: "picks")[0])
            try context.save()
            container.close()
        }
        #expect(try Self.storedFormat(path) == 5)
        let container = try PersistentContainer(path: path, model: Self.model())
        defer { container.close() }
        #expect(try container.store.check().isConsistent)
        let items = Self.fixtureOrders["items"]!
        let picks = Self.fixtureOrders["picks"]!
        let context = container.newContext()
        #expect(try Self.orders(context, "items") == [Array(items[0].dropFirst()) + [items[0][0]], items[1], [310]])
        #expect(try Self.orders(context, "picks") == [Array(picks[0].dropFirst()), [items[0][5]] + picks[1], []])
    }

    @Test func onlyAStoreWithAnOrderedToManyIsWrittenInTheNewFormat() throws {
        let directory = try TemporaryDirectory()
        let ordered = directory.file("ordered.kura")
        try PersistentContainer(path: ordered, model: Self.model()).close()
        #expect(try Self.storedFormat(ordered) == 5)
        let flat = directory.file("flat.kura")
        try PersistentContainer(path: flat, model: ManagedObjectModel(entities: [
            EntityDescription(name: "List", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                .toMany("items", destination: "Item", inverse: "list"),
            ]),
            EntityDescription(name: "Item", attributes: [], relationships: [.toOne("list", destination: "List")]),
        ])).close()
        #expect(try Self.storedFormat(flat) == 3, "versions that know only lists still open it")
    }
}
