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

/// Stores written by earlier releases, opened with a newer model.
@Suite struct StoreFormatMigrationTests {
    /// `entity` as stored, with `change` applied to its attributes and relationships.
    static func changed(
        _ entity: EntityDescription, name: String? = nil,
        attributes change: (inout [AttributeDescription]) -> Void = { _ in },
        relationships changeRelationships: (inout [RelationshipDescription]) -> Void = { _ in },
        indexes: [IndexDescription]? = nil
    ) throws -> EntityDescription {
        var attributes = entity.attributes
        change(&attributes)
        var relationships = entity.relationships
        changeRelationships(&relationships)
        return try EntityDescription(
            name: name ?? entity.name, attributes: attributes, relationships: relationships,
            indexes: indexes ?? entity.indexes, renamingIdentifier: name == nil ? nil : entity.name)
    }

    @Test func theFirstReleasesStoreMigratesToANewerModel() throws {
        let directory = try TemporaryDirectory()
        let path = try Fixtures.copy("format1.kura", into: directory)
        let stored = try PersistentContainer(path: path)
        let old = stored.model
        stored.close()
        let sample = try #require(old.entity(named: "FixtureSample"))
        // A newer version (the identifier says so) that removes `blob`.
        let newer = try ManagedObjectModel(versionIdentifier: "2", entities: [
            Self.changed(sample, attributes: { attributes in
                attributes.removeAll { $0.name == "blob" }
                let name = attributes.firstIndex { $0.name == "name" }!
                attributes[name].name = "label"
                attributes[name].renamingIdentifier = "name"
                let small = attributes.firstIndex { $0.name == "small" }!
                attributes[small].type = .int64
                let weight = attributes.firstIndex { $0.name == "weight" }!
                attributes[weight].type = .double
                attributes[weight].defaultValue = attributes[weight].defaultValue?.converted(to: .double)
                attributes.append(AttributeDescription(name: "added", type: .string, isOptional: true))
            }, indexes: sample.indexes.map { index in
                IndexDescription(index.attributes.map { $0 == "name" ? "label" : $0 }, isUnique: index.isUnique,
                                 name: index.name == "name" ? "label" : index.name)
            }),
            Self.changed(try #require(old.entity(named: "News"))),
        ])
        let container = try PersistentContainer(path: path, model: newer)
        #expect(try container.store.check().isConsistent)
        let context = container.newContext()
        let samples = try context.fetch(FetchRequest(entityName: "FixtureSample").sorted(by: "large"))
        #expect(samples.count == 39)
        #expect(try samples[1].value(forKey: "label") == .string("renamed"))
        #expect(try samples.map { try $0.value(forKey: "small") } == (0..<40).filter { $0 != 3 }.map { .int(Int64($0 - 20)) })
        #expect(try samples.map { try $0.value(forKey: "weight") } == (0..<40).filter { $0 != 3 }.map { .double(Double($0) * 0.5) })
        #expect(try samples.allSatisfy { try $0.value(forKey: "added") == nil })
        #expect(try context.count(for: FetchRequest(entityName: "FixtureSample", predicate: "label BEGINSWITH 'sample 2'")) == 11)
        let plan = try context.explain(FetchRequest(entityName: "FixtureSample", predicate: "label == 'renamed'"))
        #expect(plan.description.contains("USING UNIQUE INDEX label"), "\(plan)")
        #expect(try context.count(for: FetchRequest(entityName: "News")) == 20)
        #expect(try container.store.modelHistory().map(\.change) == ["upgraded from format 1", "migrated"])
    }

    @Test func theObjectGraphReleasesStoreOpensAndMigratesItsRelationships() throws {
        let directory = try TemporaryDirectory()
        do {
            let path = try Fixtures.copy("format2-graph.kura", into: directory)
            let container = try PersistentContainer(path: path, model: .blog())
            #expect(try container.store.check().isConsistent)
            let context = container.newContext()
            let posts = try context.fetch(FetchRequest(entityName: "Post").sorted(by: "score"), as: Post.self)
            #expect(posts.map(\.title) == (0..<12).map { "post \($0)" })
            #expect(posts.map { $0.author?.name } == (0..<12).map { $0 % 4 == 3 ? nil : "author \($0 % 3)" })
            #expect(posts.map { $0.comments.map(\.text) } == (0..<12).map { i in (0..<(i % 3)).reversed().map { "comment \($0) on \(i)" } })
            #expect(posts[0].tags.map(\.name).sorted() == ["coredata", "swift"])
            #expect(try container.store.modelHistory().map(\.change) == ["upgraded from format 2"])
        }
        // A newer model: Tag is now Label, Post.tags now labels, Post gains a subtitle.
        let path = directory.file("renamed.kura")
        try FileManager.default.copyItem(atPath: Fixtures.directory.appendingPathComponent("format2-graph.kura").path, toPath: path)
        let old = try PersistentContainer(path: path)
        let model = old.model
        old.close()
        let newer = try ManagedObjectModel(entities: [
            Self.changed(try #require(model.entity(named: "Author"))),
            Self.changed(try #require(model.entity(named: "Post")), attributes: {
                $0.append(AttributeDescription(name: "subtitle", type: .string, isOptional: true))
            }, relationships: { relationships in
                let tags = relationships.firstIndex { $0.name == "tags" }!
                relationships[tags].name = "labels"
                relationships[tags].renamingIdentifier = "tags"
                relationships[tags].destinationEntityName = "Label"
            }),
            Self.changed(try #require(model.entity(named: "Tag")), name: "Label", relationships: { relationships in
                relationships[0].inverseName = "labels"
            }),
            Self.changed(try #require(model.entity(named: "Comment"))),
        ])
        let container = try PersistentContainer(path: path, model: newer)
        #expect(container.store.lastMigration?.steps.isEmpty == true, "renames and an optional attribute touch no record")
        #expect(try container.store.check().isConsistent)
        let context = container.newContext()
        let first = try #require(try context.fetch(FetchRequest(entityName: "Post", predicate: "title == 'post 0'")).first)
        #expect(try first.objects(forKey: "labels").map { try $0.value(forKey: "name", as: String.self) }.sorted() == ["coredata", "swift"])
        #expect(try context.count(for: FetchRequest(entityName: "Post", predicate: "ANY labels.name == 'lmdb'")) == 4)
        let swift = try #require(try context.fetch(FetchRequest(entityName: "Label", predicate: "name == 'swift'")).first)
        #expect(try swift.objects(forKey: "posts").count == 4)
    }
}
