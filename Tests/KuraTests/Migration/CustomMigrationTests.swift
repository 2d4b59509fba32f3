import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

private typealias V = ModelVersions

/// Custom stages and multi-version plans (SwiftData's `SchemaMigrationPlan`).
@Suite struct CustomMigrationTests {
    /// People with one `name`, and `age` as text.
    static func people1() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: "1", entities: [
            EntityDescription(name: "Person", attributes: [
                V.attribute("name", .string, default: .string("")),
                V.attribute("age", .string, optional: true),
            ]),
            EntityDescription(name: "Note", attributes: [V.attribute("text", .string), V.attribute("owner", .string)]),
        ])
    }

    /// `name` split in two, `age` an Int, notes moved into `Person.notes`.
    static func people2() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: "2", entities: [
            EntityDescription(name: "Person", attributes: [
                V.attribute("firstName", .string, default: .string("")),
                V.attribute("lastName", .string, default: .string("")),
                V.attribute("age", .int64, optional: true),
                V.attribute("notes", .string, default: .string("")),
            ], indexes: [.index("lastName")]),
        ])
    }

    /// Adds a unique `email`.
    static func people3() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: "3", entities: [
            EntityDescription(name: "Person", attributes: [
                V.attribute("firstName", .string, default: .string("")),
                V.attribute("lastName", .string, default: .string("")),
                V.attribute("age", .int64, optional: true),
                V.attribute("notes", .string, default: .string("")),
                V.attribute("email", .string, optional: true),
            ], indexes: [.index("lastName"), .unique("email")]),
        ])
    }

    static func fillPeople(_ container: PersistentContainer) throws {
        let context = container.newContext()
        for (name, age) in [("Ada Lovelace", "36"), ("Alan Turing", "41"), ("Grace Hopper", "eighty-five"), ("Linus", nil)] {
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValue(.string(name), forKey: "name")
            try person.setValue(age.map(AttributeValue.string), forKey: "age")
        }
        for (text, owner) in [("analytical engine", "Ada Lovelace"), ("enigma", "Alan Turing"), ("cobol", "Grace Hopper"), ("bug", "Grace Hopper")] {
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue(.string(text), forKey: "text")
            try note.setValue(.string(owner), forKey: "owner")
        }
        try context.save()
    }

    /// 1 → 2: split names, parse ages, fold notes into people.
    static let split = MigrationStage.custom(from: try! people1(), to: try! people2(), didMigrate: { migration in
        let context = migration.context
        let notes = try migration.oldObjects(of: "Note")
        for person in try context.fetch(FetchRequest(entityName: "Person")) {
            guard case .string(let name)? = try migration.oldValue(forKey: "name", of: person) else { continue }
            let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
            try person.setValue(.string(parts[0]), forKey: "firstName")
            try person.setValue(.string(parts.count > 1 ? parts[1] : ""), forKey: "lastName")
            if case .string(let age)? = try migration.oldValue(forKey: "age", of: person) {
                try person.setValue(Int64(age).map(AttributeValue.int), forKey: "age")
            }
            let mine = notes.filter { $0["owner"] == .string(name) }.compactMap { note -> String? in
                guard case .string(let text)? = note["text"] else { return nil }
                return text
            }
            try person.setValue(.string(mine.joined(separator: "; ")), forKey: "notes")
        }
    })

    @Test func aCustomStageSplitsAttributesParsesTextAndMovesDataBetweenEntities() throws {
        let store = try TestStore(engine: .lmdb)
        try Self.fillPeople(try store.open(Self.people1()))
        let container = try V.openChecked(store, Self.people2(), migration: MigrationOptions(plan: MigrationPlan([Self.split])))
        let rows = try V.rows(container, ["firstName", "lastName", "age", "notes"], entity: "Person", sortedBy: "firstName")
        #expect(rows.map { $0["firstName"]! } == [.string("Ada"), .string("Alan"), .string("Grace"), .string("Linus")])
        #expect(rows.map { $0["lastName"]! } == [.string("Lovelace"), .string("Turing"), .string("Hopper"), .string("")])
        #expect(rows.map { $0["age"]! } == [.int(36), .int(41), nil, nil])
        #expect(rows.map { $0["notes"]! } == [.string("analytical engine"), .string("enigma"), .string("cobol; bug"), .string("")])
        // The index over the new attribute was built from the stage's values.
        let request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "lastName == 'Hopper'"))
        #expect(try container.newContext().count(for: request) == 1)
        #expect(try container.store.modelHistory().map(\.version) == ["1", "2"])
        container.close()
        #expect(try !V.databaseNames(store.path).contains("kura.records.Note"))
    }

    @Test func aStoreSeveralVersionsBehindRunsEveryStageInOrder() throws {
        let store = try TestStore()
        try Self.fillPeople(try store.open(Self.people1()))
        // 2 → 3 makes up unique emails from the names.
        let emails = MigrationStage.custom(from: try Self.people2(), to: try Self.people3(), didMigrate: { migration in
            for person in try migration.context.fetch(FetchRequest(entityName: "Person")) {
                let first = try person.value(forKey: "firstName", as: String.self).lowercased()
                try person.setValue(.string("\(first)@example.com"), forKey: "email")
            }
        })
        let plan = MigrationPlan([Self.split, emails])
        let container = try V.openChecked(store, Self.people3(), migration: MigrationOptions(plan: plan))
        let report = try #require(container.store.lastMigration)
        #expect(report.versions == ["1", "2", "3"])
        let rows = try V.rows(container, ["lastName", "email"], entity: "Person", sortedBy: "firstName")
        #expect(rows.map { $0["email"]! } == [.string("ada@example.com"), .string("alan@example.com"), .string("grace@example.com"), .string("linus@example.com")])
        #expect(rows.map { $0["lastName"]! }.first == .string("Lovelace"))
        #expect(try container.store.modelHistory().map(\.version) == ["1", "3"])
        container.close()

        // A store already at version 2 runs the second stage only.
        let second = try TestStore()
        try Self.fillPeople(try second.open(Self.people1()))
        try second.open(Self.people2(), migration: MigrationOptions(plan: MigrationPlan([Self.split]))).close()
        let migrated = try second.open(Self.people3(), migration: MigrationOptions(plan: plan))
        #expect(migrated.store.lastMigration?.versions == ["2", "3"])
    }

    @Test func willMigrateSeesTheOldModelAndCanRemoveDuplicatesBeforeAUniqueConstraint() throws {
        let store = try TestStore()
        do {
            let container = try store.open(V.v1(version: "1"))
            try V.fillV1(container, count: 4)
            try V.fillV1(container, count: 2)   // "article 0" and "article 1" twice
        }
        let unique = try V.articles(V.v1().entities[0].attributes, indexes: [.unique("title")], version: "2")
        let dedupe = MigrationStage.custom(from: try V.v1(version: "1"), to: unique, willMigrate: { migration in
            var seen = Set<AttributeValue?>()
            let request = FetchRequest(entityName: "Article", sortDescriptors: [FetchSortDescriptor(key: "title")])
            for article in try migration.context.fetch(request) where !seen.insert(try article.value(forKey: "title")).inserted {
                migration.context.delete(article)
            }
        })
        let container = try V.openChecked(store, unique, migration: MigrationOptions(plan: MigrationPlan([dedupe])))
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Article")) == 4)
    }

    @Test func aStageThatThrowsLeavesTheStoreAsItWas() throws {
        struct Refused: Error {}
        let store = try TestStore()
        try Self.fillPeople(try store.open(Self.people1()))
        let failing = MigrationStage.custom(from: try Self.people1(), to: try Self.people2(), didMigrate: { migration in
            for person in try migration.context.fetch(FetchRequest(entityName: "Person")) {
                try person.setValue(.string("changed"), forKey: "firstName")
            }
            try migration.context.save()
            throw Refused()
        })
        #expect {
            try store.open(Self.people2(), migration: MigrationOptions(plan: MigrationPlan([failing])))
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed, let failures = Optional(error.migrationFailures),
                  let reason = failures.first?.reason, reason.kind == .stageFailed, let (stage, message) = reason.stageFailure
            else { return false }
            return stage == 0 && message.contains("Refused")
        }
        let container = try V.openChecked(store, Self.people1())
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Note")) == 4)
        #expect(try V.rows(container, ["name"], entity: "Person", sortedBy: "name").first?["name"]! == .string("Ada Lovelace"))
        #expect(try container.store.modelHistory().map(\.change) == ["created"])
    }

    @Test func anIncompatibleTypeChangeWithoutACustomStageIsRefusedWithTheDifference() throws {
        let store = try TestStore()
        try Self.fillPeople(try store.open(Self.people1()))
        #expect {
            try store.open(Self.people2())
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed else { return false }
            let failures = error.migrationFailures
            return failures.map(\.reason) == [.needsCustomStage(ModelDifference(
                entity: "Person", property: "age", change: .attributeTypeChanged(from: .string, to: .int64), cost: .needsCustomStage))]
        }
    }
}
