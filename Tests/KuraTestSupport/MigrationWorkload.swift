import Foundation
import Kura

/// The store a migration crash test migrates: `Article`s whose `rating`
/// becomes a Double (every record rewritten) and whose `title` gets an index
/// (built from every record) in version 2.
public enum MigrationWorkload {
    public static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: "1", entities: [
            EntityDescription(name: "Article", attributes: [
                AttributeDescription(name: "title", type: .string, defaultValue: .string("")),
                AttributeDescription(name: "views", type: .int16, defaultValue: .int(0)),
                AttributeDescription(name: "rating", type: .float, defaultValue: .float(0)),
                AttributeDescription(name: "summary", type: .string, isOptional: true),
            ]),
        ])
    }

    public static func v2() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: "2", entities: [
            EntityDescription(name: "Article", attributes: [
                AttributeDescription(name: "title", type: .string, defaultValue: .string("")),
                AttributeDescription(name: "views", type: .int64, defaultValue: .int(0)),
                AttributeDescription(name: "rating", type: .double, defaultValue: .double(0)),
                AttributeDescription(name: "summary", type: .string, isOptional: true),
                AttributeDescription(name: "flag", type: .bool, isOptional: true),
            ], indexes: [.index("title")]),
        ])
    }

    /// Article `number`'s values in version 1.
    public static func title(_ number: Int) -> String { "article \(number)" }
    public static func rating(_ number: Int) -> Float { Float(number % 1000) / 8 }

    /// Writes `count` articles with the version-1 model, in one save.
    public static func fill(_ container: PersistentContainer, count: Int) throws {
        let context = container.newContext()
        for number in 0..<count {
            let article = try context.insertNewObject(forEntityName: "Article")
            try article.setValue(.string(title(number)), forKey: "title")
            try article.setValue(.int(Int64(number % 30_000)), forKey: "views")
            try article.setValue(.float(rating(number)), forKey: "rating")
            try article.setValue(number % 3 == 0 ? nil : .string("summary of \(number)"), forKey: "summary")
        }
        try context.save()
    }
}
