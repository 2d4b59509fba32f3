import Foundation
import Kura

/// The work of the concurrency tests: counters incremented by many writers
/// at once (two counters in each save, so a reader can check it never sees
/// half a save), and entries inserted under unique keys.
public enum ConcurrencyWorkload {
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Counter", attributes: [
                AttributeDescription(name: "name", type: .string),
                AttributeDescription(name: "value", type: .int64, defaultValue: .int(0)),
            ], indexes: [.unique("name")]),
            EntityDescription(name: "Entry", attributes: [
                AttributeDescription(name: "key", type: .string),
                AttributeDescription(name: "worker", type: .int64),
            ], indexes: [.unique("key")]),
        ])
    }

    /// Creates counters `a` and `b` at 0 if they aren't there.
    public static func prepare(_ container: PersistentContainer) throws {
        let context = container.newContext()
        guard try context.count(for: FetchRequest(entityName: "Counter")) == 0 else { return }
        for name in ["a", "b"] {
            let counter = try context.insertNewObject(forEntityName: "Counter")
            try counter.setValue(name, forKey: "name")
        }
        try context.save()
    }

    /// Adds 1 to both counters in one save, `count` times. A save that
    /// conflicts with another writer's (the default merge policy, `.error`)
    /// refreshes the counters and tries again. Returns how many conflicts
    /// there were.
    public static func increment(_ container: PersistentContainer, count: Int) throws -> Int {
        let context = container.newContext()
        var conflicts = 0
        for _ in 0..<count {
            while true {
                let counters = try context.fetch(FetchRequest(entityName: "Counter").sorted(by: "name"))
                for counter in counters {
                    try counter.setValue(try counter.value(forKey: "value", as: Int.self) + 1, forKey: "value")
                }
                do {
                    try context.save()
                    break
                } catch let error as KuraError where error.code == .conflict {
                    conflicts += 1
                    for counter in counters { try context.refresh(counter, mergeChanges: false) }
                }
            }
        }
        return conflicts
    }

    /// Inserts `count` entries with keys `w<worker>-<n>`, ten per save.
    public static func insertEntries(_ container: PersistentContainer, worker: Int, count: Int) throws {
        let context = container.newContext()
        for index in 0..<count {
            let entry = try context.insertNewObject(forEntityName: "Entry")
            try entry.setValue("w\(worker)-\(index)", forKey: "key")
            try entry.setValue(worker, forKey: "worker")
            if index % 10 == 9 || index == count - 1 { try context.save() }
        }
    }

    /// The two counters' values, read in one snapshot.
    public static func counters(_ container: PersistentContainer) throws -> (a: Int, b: Int) {
        let values = try container.newContext().fetchDictionaries(FetchRequest(entityName: "Counter").sorted(by: "name"))
        func value(_ row: [String: PropertyValue]) -> Int {
            if case .attribute(.int(let number)?)? = row["value"] { return Int(number) }
            return -1
        }
        return (value(values[0]), value(values[1]))
    }
}
