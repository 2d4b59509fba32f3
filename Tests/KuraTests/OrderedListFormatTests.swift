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
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "List", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                .toMany("items", destination: "Item", inverse: "list", isOrdered: true),
                .toMany("tags", destination: "Item", inverse: "taggedIn"),
                .toMany("picks", destination: "Item", isOrdered: true),
            ]),
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                .toOne("list", destination: "List"),
                .toMany("taggedIn", destination: "List", inverse: "tags"),
            ]),
        ])
    }

    /// What the fixture holds: each list's ordered relationships, as item numbers.
    static let fixtureOrders: [String: [[Int]]] = [
        "items": [[7, 0] + (2..<300).map { $0 * 7 % 300 }, [304, 303, 305, 302, 301, 300], []],
        "picks": [(0..<20).reversed().map { $0 * 3 }, [1, 2], []],
    ]

    static func orders(_ context: ManagedObjectContext, _ key: String) throws -> [[Int]] {
        let lists = try context.fetch(FetchRequest(entityName: "List").sorted(by: "name"))
        return try lists.map { list in
            try list.objects(forKey: key).map { Int(try $0.value(forKey: "name", as: String.self).dropFirst(5))! }
        }
    }

    static func storedFormat(_ path: String) throws -> UInt32 {
        let environment = try Environment(path: path)
        defer { environment.close() }
        let meta = try #require(try environment.database(named: "kura.meta"))
        let bytes = try #require(try environment.read { txn in try meta.value(forKey: Array("format".utf8), in: txn) })
        return bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
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
}
