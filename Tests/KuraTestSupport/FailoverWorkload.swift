import Foundation
import Kura

/// The work of the failover test: writers that each save numbered groups
/// of rows, with no unique key (so a save stored twice shows as a group of
/// twice the size), and the groups a store holds.
public enum FailoverWorkload {
    /// Rows in each save.
    public static let groupSize = 5

    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Part", attributes: [
                AttributeDescription(name: "writer", type: .int64),
                AttributeDescription(name: "save", type: .int64),
                AttributeDescription(name: "part", type: .int64),
            ]),
        ])
    }

    /// Inserts save `number` of `writer` in `context` (not saved).
    public static func insertGroup(writer: Int, number: Int, in context: ManagedObjectContext) throws {
        for part in 0..<groupSize {
            let row = try context.insertNewObject(forEntityName: "Part")
            try row.setValue(writer, forKey: "writer")
            try row.setValue(number, forKey: "save")
            try row.setValue(part, forKey: "part")
        }
    }

    /// The rows of each stored save, by writer and number.
    public static func groups(_ container: PersistentContainer) throws -> [Group: Int] {
        var sizes: [Group: Int] = [:]
        for row in try container.newContext().fetch(FetchRequest(entityName: "Part")) {
            let group = Group(writer: try row.value(forKey: "writer", as: Int.self), save: try row.value(forKey: "save", as: Int.self))
            sizes[group, default: 0] += 1
        }
        return sizes
    }

    public struct Group: Hashable, Sendable, CustomStringConvertible {
        public let writer: Int
        public let save: Int
        public init(writer: Int, save: Int) {
            self.writer = writer
            self.save = save
        }
        public var description: String { "\(writer)/\(save)" }
    }
}
