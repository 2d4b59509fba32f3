import Foundation
import Kura
import KuraTestSupport
import Testing

/// Stores written by older versions of Kura, and values whose index keys
/// once collided.
@Suite struct StoreFormatTests {
    static let amounts: [Decimal?] = [0, nil, .nan, Decimal(string: "12.5")!, Decimal(string: "-3.25")!,
                                      Decimal(string: "1e20")!, Decimal(string: "-0.001")!]

    static func decimalModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Price", attributes: [
                AttributeDescription(name: "amount", type: .decimal, isOptional: true),
            ], indexes: [.unique("amount")])
        ])
    }

    @Test func aDecimalNaNAndZeroAreTwoValuesInAUniqueIndexAndInSearches() throws {
        let store = try TestStore()
        let container = try store.open(Self.decimalModel())
        let context = container.newContext()
        for amount in [Decimal.nan, 0, 1, -1] {
            try context.insertNewObject(forEntityName: "Price").setValue(.decimal(amount), forKey: "amount")
        }
        try context.save()
        // A second NaN is a second copy of the same value.
        try context.insertNewObject(forEntityName: "Price").setValue(.decimal(.nan), forKey: "amount")
        #expect(throws: KuraError.self) { try context.save() }
        context.rollback()

        let reader = container.newContext()
        let zero = try reader.fetch(FetchRequest(entityName: "Price", predicate: try FetchPredicate(format: "amount == 0")))
        #expect(try zero.map { try $0.value(forKey: "amount") } == [.decimal(0)])
        #expect(try reader.explain(FetchRequest(entityName: "Price", predicate: "amount == 0")).description.contains("UNIQUE INDEX"))
        let nan = try reader.fetch(FetchRequest(entityName: "Price", predicate: try FetchPredicate(format: "amount == %@", Decimal.nan)))
        #expect(nan.count == 1)
        // NaN sorts after every number, walking the index or sorting in memory.
        for allowsIndexes in [true, false] {
            var sorted = FetchRequest(entityName: "Price").sorted(by: "amount")
            sorted.allowsIndexes = allowsIndexes
            let values = try reader.fetch(sorted).map { try $0.value(forKey: "amount") }
            #expect(values.map { "\($0.map { "\($0)" } ?? "nil")" } == ["-1", "0", "1", "NaN"])
        }
        #expect(try container.store.check().isConsistent)
    }

    @Test func aFormatOneStoreOpensReadOnlyAsItIsWithItsDecimalIndexSetAside() throws {
        let directory = try TemporaryDirectory()
        let path = try Fixtures.copy("format1.kura", into: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try PersistentContainer(path: path, options: options)
        let context = container.newContext()
        try Self.expectFixtureContents(context)
        let plan = try context.explain(FetchRequest(entityName: "FixtureSample", predicate: "amount == 0"))
        #expect(plan.description.hasPrefix("SCAN"), "the old decimal index is not used: \(plan)")
        #expect(try container.store.check().isConsistent)
        container.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "a read-only open changes nothing")
    }

    @Test func aFormatOneStoreOpenedReadWriteIsUpgradedAndKeepsEveryValue() throws {
        let directory = try TemporaryDirectory()
        let path = try Fixtures.copy("format1.kura", into: directory)
        do {
            let container = try PersistentContainer(path: path)
            try Self.expectFixtureContents(container.newContext())
            let plan = try container.newContext().explain(FetchRequest(entityName: "FixtureSample", predicate: "amount == 0"))
            #expect(plan.description.contains("USING INDEX amount"), "\(plan)")
            #expect(try container.store.check().isConsistent)
            // Still writable as any store.
            let context = container.newContext()
            let sample = try context.insertNewObject(forEntityName: "FixtureSample")
            try sample.setValue("new", forKey: "name")
            try sample.setValue(.decimal(.nan), forKey: "amount")
            try context.save()
            container.close()
        }
        // Read-only after the upgrade: the index is used, the format is the current one.
        var options = StoreOptions()
        options.isReadOnly = true
        let container = try PersistentContainer(path: path, options: options)
        let context = container.newContext()
        let nan = try FetchRequest(entityName: "FixtureSample", predicate: FetchPredicate(format: "amount == %@", Decimal.nan))
        #expect(try context.count(for: nan) == 7)
        #expect(try context.explain(nan).description.contains("USING INDEX amount"))
        #expect(try container.store.check().isConsistent)
    }

    /// What `Fixtures/README.md` says `format1.kura` holds.
    static func expectFixtureContents(_ context: ManagedObjectContext) throws {
        let samples = try context.fetch(FetchRequest(entityName: "FixtureSample").sorted(by: "large"))
        #expect(samples.count == 39)
        let indexes = (0..<40).filter { $0 != 3 }
        for (sample, i) in zip(samples, indexes) {
            #expect(try sample.value(forKey: "flag") == .bool(i % 2 == 0))
            #expect(try sample.value(forKey: "small") == .int(Int64(i - 20)))
            #expect(try sample.value(forKey: "medium") == .int(Int64(i * 1000 - 7)))
            #expect(try sample.value(forKey: "large") == .int(Int64(i) * 1_000_000_007 - 5))
            #expect(try sample.value(forKey: "ratio") == .double(Double(i) / 7 - 2))
            #expect(try sample.value(forKey: "weight") == .float(Float(i) * 0.5))
            #expect(try sample.value(forKey: "amount") == Self.amounts[i % 7].map(AttributeValue.decimal))
            let suffix = ["é", "ß", "日本", "a\u{0}b", ""][i % 5]
            #expect(try sample.value(forKey: "name") == .string(i == 1 ? "renamed" : "sample \(i) \(suffix)"))
            let created: AttributeValue? = i % 3 == 0 ? nil : .date(Date(timeIntervalSinceReferenceDate: Double(i) * 86400.123456))
            #expect(try sample.value(forKey: "created") == created)
            let token = i % 4 == 0 ? nil : UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", i))
            #expect(try sample.value(forKey: "token") == token.map(AttributeValue.uuid))
            let blob: Data? = i % 5 == 0 ? nil : Data((0..<(i % 7)).map { UInt8($0 * 37 % 256) })
            #expect(try sample.value(forKey: "blob") == blob.map(AttributeValue.data))
            let link = i % 6 == 0 ? nil : URL(string: "https://example.com/\(i)?q=\(i)")
            #expect(try sample.value(forKey: "link") == link.map(AttributeValue.url))
        }
        let zero = try context.fetch(FetchRequest(entityName: "FixtureSample", predicate: "amount == 0"))
        #expect(zero.count == 6, "zeros, not NaNs")
        #expect(try context.count(for: FetchRequest(entityName: "News")) == 20)
        let news = try context.model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": "news-7"])
        #expect(try context.fetch(news).first?.value(forKey: "sortOrder") == .int(93))
    }
}
