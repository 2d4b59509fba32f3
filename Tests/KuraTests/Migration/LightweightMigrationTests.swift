import Foundation
import Kura
@testable import KuraCore
import KuraLMDB
import KuraTestSupport
import Synchronization
import Testing

private typealias V = ModelVersions

@Suite struct LightweightMigrationTests {
    @Test func reorderingPropertiesAndChangingDefaultsAndTemplatesNeedNoMigration() throws {
        let store = try TestStore(engine: .lmdb)
        try V.fillV1(try store.open(V.v1()), count: 3)
        let reordered = try V.articles([
            V.attribute("summary", .string, optional: true),
            V.attribute("rating", .float, default: .float(0)),
            V.attribute("title", .string, default: .string("untitled")),
            V.attribute("views", .int16, default: .int(0)),
        ])
        try reordered.setFetchRequestTemplate(
            FetchRequest(entityName: "Article", predicate: try FetchPredicate(format: "views >= $least")), forName: "popular")
        let container = try V.openChecked(store, reordered, migration: .disabled)
        #expect(container.store.lastMigration == nil)
        #expect(try V.rows(container, ["title", "views"]).map { $0["title"] } == [.string("article 0"), .string("article 1"), .string("article 2")])
        // The new default applies to new objects only.
        let context = container.newContext()
        let fresh = try context.insertNewObject(forEntityName: "Article")
        #expect(try fresh.value(forKey: "title") == .string("untitled"))
        try context.save()
        let popular = try reordered.fetchRequestFromTemplate(withName: "popular", substitutionVariables: ["least": 2])
        #expect(try context.count(for: popular) == 1)
        container.close()
        // The store keeps the app's document (templates included) and its history.
        let reopened = try PersistentContainer(path: store.path)
        #expect(reopened.model.fetchRequestTemplate(forName: "popular") != nil)
        #expect(reopened.model.entity(named: "Article")?.attributes.map(\.name) == ["summary", "rating", "title", "views"])
        #expect(try reopened.store.modelHistory().map(\.change) == ["created"])
    }

    @Test func addingAnOptionalOrDefaultedAttributeTouchesNoRecord() throws {
        let store = try TestStore()
        try V.fillV1(try store.open(V.v1()), count: 5)
        let v2 = try V.articles(V.v1().entities[0].attributes + [
            V.attribute("subtitle", .string, optional: true),
            V.attribute("priority", .int32, default: .int(3)),
        ])
        let container = try V.openChecked(store, v2)
        let report = try #require(container.store.lastMigration)
        #expect(report.steps.isEmpty, "a model-only change reads no object: \(report)")
        #expect(Set(report.differences.map(\.change)) == [.attributeAdded])
        for row in try V.rows(container, ["subtitle", "priority"]) {
            #expect(row["subtitle"]! == nil)
            #expect(row["priority"]! == .int(3))
        }
        // A later default applies to new objects only: old ones keep 3.
        container.close()
        let v3 = try V.articles(V.v1().entities[0].attributes + [
            V.attribute("subtitle", .string, optional: true),
            V.attribute("priority", .int32, default: .int(9)),
        ])
        let again = try V.openChecked(store, v3)
        #expect(again.store.lastMigration == nil)
        #expect(try V.rows(again, ["priority"]).allSatisfy { $0["priority"]! == .int(3) })
        let context = again.newContext()
        #expect(try context.insertNewObject(forEntityName: "Article").value(forKey: "priority") == .int(9))
    }

    @Test func aRemovedAttributeIsGoneAndANewOneOfTheSameNameStartsEmpty() throws {
        let store = try TestStore()
        try V.fillV1(try store.open(V.v1(version: "1")), count: 4)
        let withoutSummary = try V.articles(Array(V.v1().entities[0].attributes.prefix(3)), version: "2")
        let container = try V.openChecked(store, withoutSummary)
        #expect(throws: KuraError.unknownAttribute(entity: "Article", key: "summary")) {
            try container.newContext().fetch(FetchRequest(entityName: "Article")).first?.value(forKey: "summary")
        }
        // Saving an object writes its removed field as nil.
        let context = container.newContext()
        let first = try #require(try context.fetch(FetchRequest(entityName: "Article", predicate: try FetchPredicate(format: "title == 'article 0'"))).first)
        try first.setValue(.int(100), forKey: "views")
        try context.save()
        container.close()
        // Back, as a new attribute: it doesn't see the old values.
        let back = try V.articles(Array(V.v1().entities[0].attributes.prefix(3)) + [V.attribute("summary", .string, optional: true)],
                                  version: "3")
        let reopened = try V.openChecked(store, back)
        #expect(try V.rows(reopened, ["summary"]).allSatisfy { $0["summary"]! == nil })
        #expect(try V.rows(reopened, ["views"]).map { $0["views"]! } == [.int(100), .int(1), .int(2), .int(3)])
    }

    @Test func renamingAnAttributeOrAnEntityKeepsValuesAndIndexes() throws {
        let store = try TestStore()
        try V.fillV1(try store.open(try V.articles(V.v1().entities[0].attributes, indexes: [.index("title")])), count: 6)
        let renamed = try V.articles([
            V.attribute("headline", .string, default: .string(""), was: "title"),
            V.attribute("views", .int16, default: .int(0)),
            V.attribute("rating", .float, default: .float(0)),
            V.attribute("summary", .string, optional: true),
        ], indexes: [.index("headline")], name: "Story", was: "Article")
        let container = try V.openChecked(store, renamed)
        let report = try #require(container.store.lastMigration)
        #expect(report.steps.isEmpty, "\(report)")
        #expect(report.differences.contains(ModelDifference(entity: "Story", change: .entityRenamed(from: "Article"), cost: .modelOnly)))
        #expect(report.differences.contains(ModelDifference(entity: "Story", property: "headline", change: .attributeRenamed(from: "title"), cost: .modelOnly)))
        let request = FetchRequest(entityName: "Story", predicate: try FetchPredicate(format: "headline BEGINSWITH 'article 3'"))
        let context = container.newContext()
        #expect(try context.fetch(request).map { try $0.value(forKey: "views") } == [.int(3)])
        #expect(try context.explain(request).description.contains("headline"))
        #expect(try context.fetch(request).first?.objectID.description == "kura://Story/4")
        // New objects continue the same IDs.
        _ = try context.insertNewObject(forEntityName: "Story")
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Story")) == 7)
    }

    @Test func addingAndRemovingEntitiesAddsAndDropsTheirDatabases() throws {
        let store = try TestStore(engine: .lmdb)
        let v1 = try ManagedObjectModel(entities: [
            EntityDescription(name: "Article", attributes: V.v1().entities[0].attributes),
            EntityDescription(name: "Draft", attributes: [V.attribute("text", .string)], indexes: [.index("text")]),
        ])
        do {
            let container = try store.open(v1)
            try V.fillV1(container, count: 3)
            let context = container.newContext()
            for number in 0..<5 { try context.insertNewObject(forEntityName: "Draft").setValue(.string("d\(number)"), forKey: "text") }
            try context.save()
        }
        let v2 = try ManagedObjectModel(versionIdentifier: "2", entities: [
            EntityDescription(name: "Article", attributes: V.v1().entities[0].attributes),
            EntityDescription(name: "Tag", attributes: [V.attribute("name", .string)], indexes: [.unique("name")]),
        ])
        let container = try V.openChecked(store, v2)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Article")) == 3)
        container.close()
        #expect(try V.databaseNames(store.path) == [
            "kura.index.Tag.name", "kura.meta", "kura.records.Article", "kura.records.Tag",
        ])
        let tags = try store.open(v2).newContext()
        try tags.insertNewObject(forEntityName: "Tag").setValue(.string("swift"), forKey: "name")
        try tags.save()
        tags.store.close()
        // Draft again is a new, empty entity.
        let v3 = try ManagedObjectModel(versionIdentifier: "3", entities: v2.entities.map {
            try EntityDescription(name: $0.name, attributes: $0.attributes, indexes: $0.indexes)
        } + [EntityDescription(name: "Draft", attributes: [V.attribute("text", .string)])])
        let reopened = try V.openChecked(store, v3)
        #expect(try reopened.newContext().count(for: FetchRequest(entityName: "Draft")) == 0)
        #expect(try reopened.newContext().count(for: FetchRequest(entityName: "Tag")) == 1)
    }

    @Test func numbersWidenLosslesslyAndNarrowingNeedsACustomStage() throws {
        let store = try TestStore()
        try V.fillV1(try store.open(try V.articles(V.v1().entities[0].attributes, indexes: [.index("rating"), .index("views")])), count: 8)
        let wider = try V.articles([
            V.attribute("title", .string, default: .string("")),
            V.attribute("views", .int64, default: .int(0)),
            V.attribute("rating", .double, default: .double(0)),
            V.attribute("summary", .string, optional: true),
        ], indexes: [.index("rating"), .index("views")])
        let container = try V.openChecked(store, wider)
        let report = try #require(container.store.lastMigration)
        #expect(report.differences.contains(ModelDifference(
            entity: "Article", property: "views", change: .attributeTypeChanged(from: .int16, to: .int64), cost: .modelOnly)))
        #expect(report.steps.map(\.step) == ["rewrite Article", "index Article (rating)"], "only the Float → Double change rewrites")
        #expect(try V.rows(container, ["rating"]).map { $0["rating"]! } == (0..<8).map { .double(Double($0) / 4) })
        let context = container.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "Article", predicate: try FetchPredicate(format: "rating >= 1.25"))) == 3)
        context.reset()
        let article = try #require(try context.fetch(FetchRequest(entityName: "Article")).first)
        try article.setValue(.int(Int64(Int32.max) + 1), forKey: "views")
        try context.save()
        container.close()
        #expect(throws: KuraError.self) { try store.open(V.v1()) }
        #expect(try V.rows(try store.open(wider), ["views"]).first?["views"]! == .int(Int64(Int32.max) + 1))
    }

    @Test func aRequiredAttributeFillsNilsWithItsDefaultOrFailsNamingTheObjects() throws {
        let store = try TestStore()
        try V.fillV1(try store.open(V.v1()), count: 30)
        var attributes = try V.v1().entities[0].attributes
        attributes[3] = V.attribute("summary", .string)
        let required = try V.articles(attributes)
        #expect {
            try store.open(required)
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed, let failures = Optional(error.migrationFailures),
                  let reason = failures.first?.reason, reason.kind == .missingValues else { return false }
            return reason.entity == "Article" && reason.property == "summary" && reason.count == 15 && reason.objectIDs.count == 15
                && reason.objectIDs.first?.description == "kura://Article/2"
        }
        // Nothing changed: the old model still opens it, nils and all.
        #expect(try V.rows(try store.open(V.v1()), ["summary"]).filter { $0["summary"]! == nil }.count == 15)
        attributes[3] = V.attribute("summary", .string, default: .string("(none)"))
        let container = try V.openChecked(store, try V.articles(attributes))
        #expect(try V.rows(container, ["summary"]).filter { $0["summary"]! == .string("(none)") }.count == 15)
        #expect(container.store.lastMigration?.steps.first?.objects == 30)
        container.close()
        // And back to optional: model only. (The schema is the first one's
        // again: a version identifier says this is a newer version.)
        attributes[3] = V.attribute("summary", .string, optional: true)
        let optional = try V.openChecked(store, try V.articles(attributes, version: "3"))
        #expect(optional.store.lastMigration?.steps.isEmpty == true)
    }

    @Test func addingAUniqueConstraintFailsNamingTheDuplicatesAndLeavesTheStore() throws {
        let store = try TestStore(engine: .lmdb)
        do {
            let container = try store.open(V.v1())
            try V.fillV1(container, count: 6)
            let context = container.newContext()
            for title in ["article 2", "article 2", "article 4"] {
                try context.insertNewObject(forEntityName: "Article").setValue(.string(title), forKey: "title")
            }
            try context.save()
        }
        let unique = try V.articles(V.v1().entities[0].attributes, indexes: [.unique("title")])
        #expect {
            try store.open(unique)
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed else { return false }
            let failures = error.migrationFailures
            let conflicts = failures.compactMap { failure -> ([String], [String])? in
                guard failure.reason.kind == .uniqueConstraintViolated else { return nil }
                return (failure.reason.values, failure.reason.objectIDs.map(\.description))
            }
            return conflicts.count == 2
                && conflicts[0] == (["article 2"], ["kura://Article/3", "kura://Article/7", "kura://Article/8"])
                && conflicts[1] == (["article 4"], ["kura://Article/5", "kura://Article/9"])
        }
        // Unchanged: opens with the old model, without the index.
        do {
            let container = try store.open(V.v1())
            let context = container.newContext()
            for object in try context.fetch(FetchRequest(entityName: "Article")) where object.objectID.number > 6 {
                context.delete(object)
            }
            try context.save()
            container.close()
            #expect(try !V.databaseNames(store.path).contains { $0.hasPrefix("kura.index") })
        }
        let container = try V.openChecked(store, unique)
        #expect(container.store.lastMigration?.steps.map(\.step) == ["index Article (title)"])
        let context = container.newContext()
        try context.insertNewObject(forEntityName: "Article").setValue(.string("article 1"), forKey: "title")
        #expect(throws: KuraError.self) { try context.save() }
    }

    @Test func turningMigrationOffOrOpeningReadOnlyListsTheDifferences() throws {
        let store = try TestStore(engine: .lmdb)
        try V.fillV1(try store.open(V.v1()), count: 2)
        let v2 = try V.articles(V.v1().entities[0].attributes + [V.attribute("extra", .bool, optional: true)])
        let expected = [ModelDifference(entity: "Article", property: "extra", change: .attributeAdded, cost: .modelOnly)]
        #expect(throws: KuraError.modelMismatch(path: store.path, differences: expected)) {
            try store.open(v2, migration: .disabled)
        }
        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        #expect(throws: KuraError.modelMismatch(path: store.path, differences: expected)) {
            try store.open(v2, options: readOnly)
        }
        // What a migration would do, asked without doing it.
        #expect(try store.open(V.v1()).store.differences(from: v2) == expected)
    }

    @Test func progressIsReportedAndEveryDataStepHasItsThroughput() throws {
        let store = try TestStore()
        try V.fillV1(try store.open(V.v1()), count: 10_000)
        let indexed = try V.articles(V.v1().entities[0].attributes, indexes: [.index("views")])
        let seen = Mutex<[MigrationProgress]>([])
        let container = try store.open(indexed, migration: MigrationOptions(progress: { progress in
            seen.withLock { $0.append(progress) }
        }))
        let progress = seen.withLock { $0 }
        #expect(progress.contains { $0.step == "index Article" && $0.completed == 4096 && $0.total == 10_000 })
        #expect(progress.last?.completed == 10_000)
        let step = try #require(container.store.lastMigration?.steps.first)
        #expect(step.objects == 10_000 && step.seconds > 0 && step.throughput > 0)
        #expect(try container.store.modelHistory().map(\.change) == ["created", "migrated"])
    }
}
