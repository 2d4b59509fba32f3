import Foundation
import Kura

/// The work of the crash-safety test: numbered batches of inserts, updates
/// and deletes, each saved in one save together with a marker holding the
/// batch's number. The batches are a pure function of the seed, the batch
/// number and the objects before it, so the test can replay them and know
/// exactly what the store must hold after any batch.
public enum CrashWorkload {
    /// The model: `Item` (unique `key`, indexed `value`, `batch`) and a
    /// single `Marker` with the number of the last saved batch.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "key", type: .string),
                AttributeDescription(name: "value", type: .int64),
                AttributeDescription(name: "batch", type: .int64),
                AttributeDescription(name: "padding", type: .string),
            ], indexes: [.unique("key"), .index("value")]),
            EntityDescription(name: "Marker", attributes: [AttributeDescription(name: "batch", type: .int64)]),
        ])
    }

    /// One batch's changes.
    public struct Batch: Equatable {
        public var inserts: [(key: String, value: Int)] = []
        public var updates: [(key: String, value: Int)] = []
        public var deletes: [String] = []

        public static func == (lhs: Batch, rhs: Batch) -> Bool {
            lhs.inserts.map(\.key) == rhs.inserts.map(\.key) && lhs.inserts.map(\.value) == rhs.inserts.map(\.value)
                && lhs.updates.map(\.key) == rhs.updates.map(\.key) && lhs.updates.map(\.value) == rhs.updates.map(\.value)
                && lhs.deletes == rhs.deletes
        }
    }

    /// The changes of batch `number`, given the items (key → value) before it.
    public static func batch(_ number: Int, seed: UInt64, items: [String: Int]) -> Batch {
        var generator = SplitMix64(seed: seed &+ UInt64(number) &* 0x9E37_79B9)
        var batch = Batch()
        let keys = items.keys.sorted()
        for index in 0..<Int.random(in: 1...6, using: &generator) {
            batch.inserts.append(("b\(number)-\(index)", Int.random(in: -1000...1000, using: &generator)))
        }
        var touched = Set<String>()
        if !keys.isEmpty {
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
                guard touched.insert(key).inserted else { continue }
                batch.updates.append((key, Int.random(in: -1000...1000, using: &generator)))
            }
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
                guard touched.insert(key).inserted else { continue }
                batch.deletes.append(key)
            }
        }
        return batch
    }

    /// The items after `batch`.
    public static func apply(_ batch: Batch, to items: inout [String: Int]) {
        for (key, value) in batch.inserts { items[key] = value }
        for (key, value) in batch.updates { items[key] = value }
        for key in batch.deletes { items[key] = nil }
    }

    /// The items and the marker's batch number as stored (-1: no batch yet).
    public static func read(_ context: ManagedObjectContext) throws -> (items: [String: Int], batch: Int) {
        var items: [String: Int] = [:]
        for item in try context.fetch(FetchRequest(entityName: "Item")) {
            items[try item.value(forKey: "key", as: String.self)] = try item.value(forKey: "value", as: Int.self)
        }
        let marker = try context.fetch(FetchRequest(entityName: "Marker")).first
        return (items, try marker?.value(forKey: "batch", as: Int.self) ?? -1)
    }

    /// Makes batch `number` in `context` (whose registered objects are the
    /// stored items, by key) and saves it.
    public static func save(
        _ batch: Batch, number: Int, in context: ManagedObjectContext, objects: inout [String: ManagedObject]
    ) throws {
        for (key, value) in batch.inserts {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue(key, forKey: "key")
            try item.setValue(value, forKey: "value")
            try item.setValue(number, forKey: "batch")
            try item.setValue(String(repeating: "x", count: 100 + Int(value.magnitude % 900)), forKey: "padding")
            objects[key] = item
        }
        for (key, value) in batch.updates {
            guard let item = objects[key] else { continue }
            try item.setValue(value, forKey: "value")
            try item.setValue(number, forKey: "batch")
        }
        for key in batch.deletes {
            guard let item = objects.removeValue(forKey: key) else { continue }
            context.delete(item)
        }
        let marker = try context.fetch(FetchRequest(entityName: "Marker")).first
            ?? (try context.insertNewObject(forEntityName: "Marker"))
        try marker.setValue(number, forKey: "batch")
        try context.save()
    }
}
