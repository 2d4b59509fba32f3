import Foundation
import Kura
import KuraLMDB
import KuraTestSupport
import Testing

/// Models written as values, one version at a time, for migration tests.
enum ModelVersions {
    static func attribute(_ name: String, _ type: AttributeType, optional: Bool = false, default value: AttributeValue? = nil,
                          was: String? = nil) -> AttributeDescription {
        AttributeDescription(name: name, type: type, isOptional: optional, defaultValue: value, renamingIdentifier: was)
    }

    /// A one-entity model: `Article` with `attributes`.
    static func articles(
        _ attributes: [AttributeDescription], indexes: [IndexDescription] = [], version: String? = nil,
        name: String = "Article", was: String? = nil
    ) throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: version, entities: [
            EntityDescription(name: name, attributes: attributes, indexes: indexes, renamingIdentifier: was),
        ])
    }

    /// Version 1: `title` (String), `views` (Int16), `rating` (Float), `summary` (String?).
    static func v1(version: String? = nil) throws -> ManagedObjectModel {
        try articles([
            attribute("title", .string, default: .string("")),
            attribute("views", .int16, default: .int(0)),
            attribute("rating", .float, default: .float(0)),
            attribute("summary", .string, optional: true),
        ], version: version)
    }

    /// Saves `count` articles in the v1 shape: `title` "article i",
    /// `views` i, `rating` i / 4, `summary` nil for odd i.
    static func fillV1(_ container: PersistentContainer, count: Int) throws {
        let context = container.newContext()
        for number in 0..<count {
            let article = try context.insertNewObject(forEntityName: "Article")
            try article.setValue(.string("article \(number)"), forKey: "title")
            try article.setValue(.int(Int64(number)), forKey: "views")
            try article.setValue(.float(Float(number) / 4), forKey: "rating")
            try article.setValue(number % 2 == 0 ? .string("summary \(number)") : nil, forKey: "summary")
        }
        try context.save()
    }

    /// Every object of `entity`, sorted by `key`, as `[key: value]` rows of the given keys.
    static func rows(_ container: PersistentContainer, _ keys: [String], entity: String = "Article",
                     sortedBy key: String = "title") throws -> [[String: AttributeValue?]] {
        let request = FetchRequest(entityName: entity, sortDescriptors: [FetchSortDescriptor(key: key)])
        return try container.newContext().fetch(request).map { object in
            var row: [String: AttributeValue?] = [:]
            for key in keys { row[key] = try object.value(forKey: key) }
            return row
        }
    }

    /// Opens the store with `model`, expects its check to find nothing wrong,
    /// and returns the container.
    static func openChecked(_ store: TestStore, _ model: ManagedObjectModel,
                            migration: MigrationOptions = .automatic) throws -> PersistentContainer {
        let container = try store.open(model, migration: migration)
        let report = try container.store.check()
        #expect(report.problems.isEmpty, "\(report.problems)")
        return container
    }

    /// The names of the databases in the store file at `path` (closed).
    static func databaseNames(_ path: String) throws -> [String] {
        let environment = try Environment(path: path)
        defer { environment.close() }
        let main = try #require(try environment.database(named: nil))
        return try environment.read { txn in
            var names: [String] = []
            try main.forEach(in: txn) { entry in
                names.append(String(decoding: entry.key, as: UTF8.self))
                return true
            }
            return names
        }
    }
}
