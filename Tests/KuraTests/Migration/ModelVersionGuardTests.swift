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

    @Test func versionIdentifiersOrderAsSemanticVersions() throws {
        let ordered = ["0.9", "1-alpha", "1-alpha.1", "1-alpha.beta", "1-beta", "1-beta.2", "1-beta.11", "1-rc.1", "1",
                       "1.2", "1.9", "1.10", "2", "2.0.1", "10", "2026.1", "2026.11", "2026.12"]
        let versions = try ordered.map { try #require(ModelVersion($0), "\($0) is a version") }
        for (position, earlier) in versions.enumerated() {
            for later in versions[(position + 1)...] {
                #expect(earlier < later, "\(earlier) < \(later)")
                #expect(!(later < earlier) && earlier != later, "\(later) > \(earlier)")
            }
        }
        // The same version, spelled otherwise: neither is newer.
        for (a, b) in [("2", "2.0"), ("2", "2.0.0"), ("1.0", "1.0.0"), ("1.0+7", "1.0+8"), ("1-rc.1", "1.0.0-rc.1+x")] {
            let (x, y) = (try #require(ModelVersion(a)), try #require(ModelVersion(b)))
            #expect(x == y && !(x < y) && !(y < x), "\(a) = \(b)")
        }
    }

    /// Identifiers that aren't versions under the grammar: leading zeros,
    /// white space, non-ASCII digits, words, empty parts.
    static let notVersions = ["1.00", "02", "2\n", " 2", "2 ", "\u{FF12}", "\u{0662}", "v2", "", "1..2", "1.", ".1", "1.0-", "1.0-01",
                              "1.0+", "1.0-beta..1", "1.0-bêta", "1_0", "+1", "-1", "1.0-beta+"]

    @Test func identifiersThatArentVersionsAreNotVersions() {
        for text in Self.notVersions { #expect(ModelVersion(text) == nil, "\(String(reflecting: text))") }
    }

    /// A store at `version` whose `Article`s hold `extra`.
    static func storeWithExtra(_ store: TestStore, version: String?, count: Int = 50) throws {
        let container = try store.open(V.articles(
            [V.attribute("title", .string, default: .string("")), V.attribute("extra", .string, optional: true)], version: version))
        let context = container.newContext()
        for number in 0..<count {
            let article = try context.insertNewObject(forEntityName: "Article")
            try article.setValue(.string("article \(number)"), forKey: "title")
            try article.setValue(.string("extra \(number)"), forKey: "extra")
        }
        try context.save()
        container.close()
    }

    static func withoutExtra(version: String?) throws -> ManagedObjectModel {
        try V.articles([V.attribute("title", .string, default: .string(""))], version: version)
    }

    static func extras(_ store: TestStore, version: String?) throws -> Int {
        let container = try store.open(V.articles(
            [V.attribute("title", .string, default: .string("")), V.attribute("extra", .string, optional: true)], version: version))
        defer { container.close() }
        return try container.newContext().count(for: FetchRequest(entityName: "Article", predicate: "extra != nil"))
    }

    @Test(arguments: ["1.00", "02", "2\n", " 2", "\u{FF12}", "v2", "2026-011"])
    func anIdentifierThatIsntAVersionIsRefusedAtOpenAndNothingChanges(identifier: String) throws {
        let store = try TestStore()
        try Self.storeWithExtra(store, version: "2")
        #expect {
            try store.open(Self.withoutExtra(version: identifier))
        } throws: { error in
            guard let error = error as? KuraError, error.code == .invalidModel else { return false }
            return "\(error)".contains(String(reflecting: identifier)) && "\(error)".contains("not a version")
        }
        #expect(try Self.extras(store, version: "2") == 50)
        // Nor can a new store be made with it.
        let fresh = try TestStore()
        #expect(throws: KuraError.self) { try fresh.open(Self.withoutExtra(version: identifier)) }
    }

    @Test(arguments: [("1.0", "1.0.0"), ("2", "2.0"), ("1.0+build.1", "1.0+build.2"), ("3", "3")])
    func theSameVersionWithAnotherSchemaDoesNotRemoveData(stored: String, given: String) throws {
        let store = try TestStore()
        try Self.storeWithExtra(store, version: stored)
        #expect {
            try store.open(Self.withoutExtra(version: given))
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed,
                  let reason = error.migrationFailures.first?.reason, reason.kind == .wouldRemoveData else { return false }
            return reason.property == "extra" && reason.count == 50
        }
        #expect(try Self.extras(store, version: stored) == 50)
    }

    @Test func twoBuildsOfTheSameVersionTakingTurnsKeepEveryValue() throws {
        let store = try TestStore()
        try Self.storeWithExtra(store, version: "1.0", count: 30)
        for _ in 0..<4 {
            #expect(throws: KuraError.self) { try store.open(Self.withoutExtra(version: "1.0.0")) }
            #expect(try Self.extras(store, version: "1.0") == 30)
        }
    }

    @Test(arguments: [("1.0", "1.0-beta"), ("1.0", "1.0-rc.1"), ("1.0-beta.2", "1.0-beta.1"), ("3", "2.9.9")])
    func aPreReleaseOrAnEarlierVersionIsOlderAndRefused(stored: String, given: String) throws {
        let store = try TestStore()
        try Self.storeWithExtra(store, version: stored)
        #expect {
            try store.open(Self.withoutExtra(version: given))
        } throws: { error in
            (error as? KuraError)?.code == .modelOlderThanStore
        }
        #expect(try Self.extras(store, version: stored) == 50)
    }

    @Test func aReleaseAfterItsPreReleaseIsNewerAndMayRemoveData() throws {
        let store = try TestStore()
        try Self.storeWithExtra(store, version: "1.0-beta")
        let container = try store.open(Self.withoutExtra(version: "1.0"))
        #expect(container.store.lastMigration?.differences.contains { $0.change == .attributeRemoved } == true)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Article")) == 50)
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
                  let reason = failures.first?.reason, reason.kind == .wouldRemoveData else { return false }
            return reason.entity == "News" && reason.property == "author" && reason.count == 1
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
                guard failure.reason.kind == .wouldRemoveData, let entity = failure.reason.entity else { return nil }
                return failure.reason.property.map { "\(entity).\($0)" } ?? entity
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
