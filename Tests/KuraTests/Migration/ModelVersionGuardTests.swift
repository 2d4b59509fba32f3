import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

private typealias V = ModelVersions

/// An older build of an app must never migrate a newer build's store back
/// (its data would go), and an inferred migration never removes what holds
/// data unless the app says it may.
@Suite struct ModelVersionGuardTests {
    /// News without `author` (version 1), and with it (version 2).
    static func news(withAuthor: Bool, version: String?) throws -> ManagedObjectModel {
        var attributes = [V.attribute("title", .string, default: .string(""))]
        if withAuthor { attributes.append(V.attribute("author", .string, optional: true)) }
        return try ManagedObjectModel(versionIdentifier: version, entities: [EntityDescription(name: "News", attributes: attributes)])
    }

    static func authors(_ container: PersistentContainer) throws -> [AttributeValue?] {
        try container.newContext().fetch(FetchRequest(entityName: "News").sorted(by: "title")).map { try $0.value(forKey: "author") }
    }

    @Test(arguments: [false, true])
    func anOlderBuildIsRefusedAndTheNewerStoreKeepsItsData(withVersionIdentifiers: Bool) throws {
        let store = try TestStore()
        let v1 = try Self.news(withAuthor: false, version: withVersionIdentifiers ? "1" : nil)
        let v2 = try Self.news(withAuthor: true, version: withVersionIdentifiers ? "2" : nil)
        do {
            let context = try store.open(v1).newContext()
            for number in 0..<3 { try context.insertNewObject(forEntityName: "News").setValue(.string("news \(number)"), forKey: "title") }
            try context.save()
            context.store.close()
        }
        do {
            let container = try store.open(v2)
            let context = container.newContext()
            for news in try context.fetch(FetchRequest(entityName: "News")) { try news.setValue(.string("bob"), forKey: "author") }
            try context.save()
            container.close()
        }
        #expect {
            try store.open(Self.news(withAuthor: false, version: withVersionIdentifiers ? "1" : nil))
        } throws: { error in
            guard let error = error as? KuraError, error.code == .modelOlderThanStore, let versions = error.mismatch else { return false }
            let (given, stored) = (versions.expected, versions.found)
            // Both versions named: by identifier, and by fingerprint.
            return stored.contains(v2.fingerprint) && given.contains(v1.fingerprint)
                && (!withVersionIdentifiers || (stored.contains("version 2") && given.contains("version 1")))
        }
        let reopened = try store.open(Self.news(withAuthor: true, version: withVersionIdentifiers ? "2" : nil))
        #expect(try Self.authors(reopened) == [.string("bob"), .string("bob"), .string("bob")])
        #expect(try reopened.store.modelHistory().map(\.fingerprint) == [v1.fingerprint, v2.fingerprint])
    }

    @Test func anEarlierVersionIdentifierIsRefusedEvenWhenTheStoreNeverHadIt() throws {
        let store = try TestStore()
        try V.fillV1(try store.open(V.v1(version: "1.10")), count: 2)
        let older = try V.articles(Array(V.v1().entities[0].attributes.prefix(3)), version: "1.9")
        #expect(throws: KuraError.self) { try store.open(older) }
        // The same schema under an older identifier opens (it loses
        // nothing) but leaves the newer document in the store.
        let sameSchema = try V.v1(version: "1.2")
        let container = try store.open(sameSchema)
        #expect(try container.store.modelHistory().last?.version == "1.10")
        container.close()
        #expect(try PersistentContainer(store: store.description()).model.versionIdentifier == "1.10")
    }

    @Test func versionIdentifiersCompareAsVersionNumbers() {
        let ordered = ["1", "1.2", "1.9", "1.10", "2", "2a", "2b", "10", "2026-01", "2026-11", "2026-12"]
        for (position, earlier) in ordered.enumerated() {
            for later in ordered[(position + 1)...] {
                #expect(ModelVersionOrder.compare(earlier, later) < 0, "\(earlier) < \(later)")
                #expect(ModelVersionOrder.compare(later, earlier) > 0, "\(later) > \(earlier)")
            }
            #expect(ModelVersionOrder.compare(earlier, earlier) == 0)
        }
        #expect(ModelVersionOrder.compare("v02", "v2") == 0)
    }

    @Test func anInferredMigrationDoesNotRemoveAnAttributeThatHoldsData() throws {
        // A store a newer build made, never seen by this older build: its
        // history can't tell, but `author` holds data.
        let store = try TestStore()
        do {
            let context = try store.open(Self.news(withAuthor: true, version: nil)).newContext()
            try context.insertNewObject(forEntityName: "News").setValue(.string("ann"), forKey: "author")
            try context.insertNewObject(forEntityName: "News").setValue(nil, forKey: "author")
            try context.save()
            context.store.close()
        }
        #expect {
            try store.open(Self.news(withAuthor: false, version: nil))
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed, let failures = Optional(error.migrationFailures),
                  case .wouldRemoveData(let entity, let property, let count) = failures.first?.reason else { return false }
            return entity == "News" && property == "author" && count == 1
        }
        let container = try store.open(Self.news(withAuthor: true, version: nil))
        #expect(Set(try Self.authors(container)) == [.string("ann"), nil])
        #expect(try container.store.modelHistory().count == 1, "nothing was migrated")
    }

    @Test func anAttributeThatHoldsNoDataIsRemovedWithoutBeingAsked() throws {
        let store = try TestStore()
        do {
            let context = try store.open(Self.news(withAuthor: true, version: nil)).newContext()
            try context.insertNewObject(forEntityName: "News").setValue(.string("a"), forKey: "title")
            try context.save()
            context.store.close()
        }
        let container = try store.open(Self.news(withAuthor: false, version: nil))
        #expect(container.store.lastMigration != nil)
    }

    @Test(arguments: ["versionIdentifier", "plan"])
    func anAppSaysARemovalIsMeant(by way: String) throws {
        let store = try TestStore()
        try V.fillV1(try store.open(V.v1(version: way == "plan" ? "1" : nil)), count: 4)
        let withoutSummary = try V.articles(Array(V.v1().entities[0].attributes.prefix(3)), version: "2")
        let options = way == "plan"
            ? MigrationOptions(plan: MigrationPlan([.lightweight(from: try V.v1(version: "1"), to: withoutSummary)]))
            : MigrationOptions.automatic
        let container = try store.open(withoutSummary, migration: options)
        #expect(container.store.lastMigration?.differences.contains { $0.change == .attributeRemoved } == true)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Article")) == 4)
    }

    @Test func anEntityOrARelationshipThatHoldsDataIsNotRemovedEither() throws {
        let store = try TestStore()
        let tag = RelationshipDescription(name: "tags", destinationEntityName: "Tag", inverseName: "articles", isToMany: true)
        let articles = RelationshipDescription(name: "articles", destinationEntityName: "Article", inverseName: "tags", isToMany: true)
        let full = try ManagedObjectModel(entities: [
            EntityDescription(name: "Article", attributes: [V.attribute("title", .string, default: .string(""))], relationships: [tag]),
            EntityDescription(name: "Tag", attributes: [V.attribute("name", .string, default: .string(""))], relationships: [articles]),
            EntityDescription(name: "Draft", attributes: [V.attribute("text", .string, default: .string(""))]),
        ])
        do {
            let context = try store.open(full).newContext()
            let article = try context.insertNewObject(forEntityName: "Article")
            try article.mutableSetValue(forKey: "tags").insert(try context.insertNewObject(forEntityName: "Tag"))
            _ = try context.insertNewObject(forEntityName: "Draft")
            try context.save()
            context.store.close()
        }
        let withoutBoth = try ManagedObjectModel(entities: [
            EntityDescription(name: "Article", attributes: [V.attribute("title", .string, default: .string(""))]),
            EntityDescription(name: "Tag", attributes: [V.attribute("name", .string, default: .string(""))]),
        ])
        #expect {
            try store.open(withoutBoth)
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed else { return false }
            let failures = error.migrationFailures
            let removed = Set(failures.compactMap { failure -> String? in
                guard case .wouldRemoveData(let entity, let property, _) = failure.reason else { return nil }
                return property.map { "\(entity).\($0)" } ?? entity
            })
            return removed == ["Draft", "Article.tags", "Tag.articles"]
        }
        #expect(try store.open(full).newContext().count(for: FetchRequest(entityName: "Draft")) == 1)
    }
}

/// The older build in a process of its own, beside a process on the newer model.
@Suite struct OlderBuildBesideNewerTests {
    @Test(arguments: [TestEngine.lmdb] + TestEngine.servers)
    func aProcessOnTheNewerModelKeepsWorkingAfterAnOlderOneIsRefused(engine: TestEngine) throws {
        let store = try TestStore(engine: engine)
        let newer = try store.open(MigrationWorkload.v1())
        try MigrationWorkload.fill(newer, count: 20)
        newer.close()
        #expect(try Helper.run(["open-migration-model", store.location, "2"]).output == "opened 2\n")
        let container = try store.open(MigrationWorkload.v2())
        let reader = container.newContext()
        let before = try reader.fetch(FetchRequest(entityName: "Article").sorted(by: "title"))

        let refused = try Helper.run(["open-migration-model", store.location, "1"])
        #expect(refused.termination == .exited(1))
        #expect(refused.output.contains("version 2") && refused.output.contains("version 1"), "\(refused.output)")

        // This process goes on: it reads what it had, saves, and reads again.
        let context = container.newContext()
        for article in try context.fetch(FetchRequest(entityName: "Article")) { try article.setValue(true, forKey: "flag") }
        try context.save()
        #expect(try before.allSatisfy { try $0.value(forKey: "title") != nil })
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Article", predicate: "flag == YES")) == 20)
        #expect(try container.store.modelHistory().map(\.version) == ["1", "2"])
    }
}
