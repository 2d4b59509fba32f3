import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite(.timeLimit(.minutes(5))) struct ContainerTests {
    @Test func threeNewsSurviveReopeningAndDeletingThemAllLeavesNone() throws {
        let store = try TestStore()
        var saved: [(id: String, objectID: String, title: String, created: Date?, updated: Date?)] = []
        do {
            let container = try store.open(.news())
            let context = container.newContext()
            for index in 1...3 {
                let news = News(context: context)
                news.title = "News \(index)"
                news.body = "Body \(index)"
                news.sortOrder = index
            }
            try context.save()
            saved = try context.fetch(FetchRequest(entityName: "News"), as: News.self).map {
                ($0.objectId, $0.objectID.uriRepresentation, $0.title, $0.dateCreated, $0.dateUpdated)
            }
            container.close()
        }
        #expect(saved.count == 3)
        #expect(saved.map(\.objectID) == ["kura://News/1", "kura://News/2", "kura://News/3"])
        #expect(saved.allSatisfy { $0.created != nil && $0.updated != nil && UUID(uuidString: $0.id) != nil })

        do {
            let container = try store.open(.news())
            let context = container.newContext()
            let news = try context.fetch(FetchRequest(entityName: "News"), as: News.self)
            #expect(news.map(\.objectId) == saved.map(\.id))
            #expect(news.map(\.objectID.uriRepresentation) == saved.map(\.objectID))
            #expect(news.map(\.title) == ["News 1", "News 2", "News 3"])
            #expect(news.map(\.dateCreated) == saved.map(\.created))
            #expect(news.map(\.dateUpdated) == saved.map(\.updated))
            for object in news { context.delete(object) }
            try context.save()
            container.close()
        }

        let container = try store.open(.news())
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == 0)
    }

    @Test func aStoreOpenedWithAnotherModelSaysWhatDiffers() throws {
        let store = try TestStore(engine: .lmdb)
        try store.open(.news()).close()
        let changed = try ManagedObjectModel(entities: [
            EntityDescription(name: "News", attributes: [
                AttributeDescription(name: "objectId", type: .string, defaultValue: .string("")),
                AttributeDescription(name: "title", type: .string, isOptional: true),
                AttributeDescription(name: "sortOrder", type: .int32, defaultValue: .int(0)),
            ], indexes: [.unique("objectId")]),
        ])
        do {
            _ = try store.open(changed, migration: .disabled)
            Issue.record("opened a store with a different model while migration was off")
        } catch let error as KuraError where error.code == .modelMismatch {
            #expect(error.path == store.path)
            let described = error.modelDifferences.map(\.description)
            #expect(described.contains("News.sortOrder changes from Int64 to Int32 (needs a custom migration stage)"))
            #expect(described.contains("News.title becomes optional (model only)"))
            #expect(described.contains("News.body is removed (model only)"))
            #expect(described.contains("index News.sortOrder is removed (reads stored objects)"))
            #expect(error.modelDifferences.contains(ModelDifference(
                entity: "News", property: "sortOrder", change: .attributeTypeChanged(from: .int64, to: .int32), cost: .needsCustomStage)))
        }
        // Automatic migration can't narrow Int64 to Int32 either, and says so.
        #expect(throws: KuraError.migrationFailed(path: store.path, failures: [MigrationFailure(.needsCustomStage(ModelDifference(
            entity: "News", property: "sortOrder", change: .attributeTypeChanged(from: .int64, to: .int32), cost: .needsCustomStage)))])) {
            _ = try store.open(changed)
        }
        // The store is untouched and still opens with its own model.
        let container = try store.open(.news())
        #expect(container.model.entities.map(\.name) == ["News"])
    }

    @Test func aStoreOpensWithoutTheAppsClassesUsingItsOwnModel() throws {
        let store = try TestStore(engine: .lmdb)
        do {
            let container = try store.open(.news())
            let context = container.newContext()
            let news = News(context: context)
            news.title = "Stored"
            try context.save()
            container.close()
        }
        let container = try PersistentContainer(path: store.path, options: { var o = StoreOptions(); o.isReadOnly = true; return o }())
        let context = container.newContext()
        let objects = try context.fetch(FetchRequest(entityName: "News"))
        #expect(objects.count == 1)
        #expect(type(of: objects[0]) == ManagedObject.self)
        #expect(try objects[0].value(forKey: "title") == .string("Stored"))
        #expect(container.model.entity(named: "News")?.indexes.map(\.name) == ["objectId", "sortOrder"])
    }

    @Test func filesThatAreNotKuraStoresGiveClearErrors() throws {
        let directory = try TemporaryDirectory()
        let random = directory.file("random.kura")
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
        #expect(throws: KuraError.notAKuraStore(path: random)) { try PersistentContainer(path: random, model: .news()) }

        let empty = directory.file("empty.kura")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(throws: KuraError.notAKuraStore(path: empty)) { try PersistentContainer(path: empty) }

        let missing = directory.file("missing/store.kura")
        #expect(throws: KuraError.storage(path: missing, failure: .system(errno: ENOENT, message: "No such file or directory"))) {
            try PersistentContainer(path: missing, model: .news())
        }

        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        let absent = directory.file("absent.kura")
        #expect(throws: KuraError.self) { try PersistentContainer(path: absent, options: readOnly) }
        #expect(!FileManager.default.fileExists(atPath: absent))
    }

    @Test func aClosedStoreThrowsForEveryContextOperation() throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.title = "Unsaved"
        container.close()
        #expect(throws: KuraError.storeClosed(path: store.path)) { try context.save() }
        #expect(throws: KuraError.storeClosed(path: store.path)) { try context.fetch(FetchRequest(entityName: "News")) }
        #expect(context.insertedObjects.count == 1)
    }

    @Test func backgroundTasksGetTheirOwnContextAndShareTheStore() async throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let ids = try await withThrowingTaskGroup(of: [ObjectID].self) { group in
            for task in 0..<4 {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        var made: [News] = []
                        for index in 0..<25 {
                            let news = News(context: context)
                            news.title = "Task \(task) news \(index)"
                            made.append(news)
                        }
                        try context.save()
                        return made.map(\.objectID)
                    }
                }
            }
            var all: [ObjectID] = []
            for try await ids in group { all += ids }
            return all
        }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { !$0.isTemporaryID })
        let context = container.newContext()
        #expect(try context.count(for: FetchRequest(entityName: "News")) == 100)
        let some = try #require(ids.first)
        let again = try context.existingObject(with: some)
        #expect(again.objectID == some)
    }
}
