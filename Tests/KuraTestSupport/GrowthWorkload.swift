import Foundation
import Kura

/// The work of the map-growth tests: writers in several processes save
/// batches of large objects into a store whose map starts at 64 KiB, while
/// readers in other processes read it. Every object of a save carries the
/// save's batch number, so a reader that counts objects per batch can tell
/// whether it ever saw part of a save.
public enum GrowthWorkload {
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Blob", attributes: [
                AttributeDescription(name: "batch", type: .int64),
                AttributeDescription(name: "payload", type: .string),
            ], indexes: [.index("batch")])
        ])
    }

    /// Options that start the map at 64 KiB, so it grows many times.
    public static func options(readOnly: Bool = false) -> StoreOptions {
        var options = StoreOptions()
        options.initialSize = 64 << 10
        options.isReadOnly = readOnly
        options.durability = .noMetaSync
        return options
    }

    /// Saves `saves` batches of `perSave` objects whose payloads are
    /// `payloadSize` bytes; batch numbers are `writer * 1_000_000 + n`.
    public static func write(
        _ container: PersistentContainer, writer: Int, saves: Int, perSave: Int, payloadSize: Int
    ) throws {
        let payload = String(repeating: "x", count: payloadSize)
        for save in 0..<saves {
            let context = container.newContext()
            for _ in 0..<perSave {
                let blob = try context.insertNewObject(forEntityName: "Blob")
                try blob.setValue(writer * 1_000_000 + save, forKey: "batch")
                try blob.setValue(payload, forKey: "payload")
            }
            try context.save()
        }
    }

    /// What one read saw: how many objects, and how many batches had a
    /// number of objects other than `perSave` (a torn read).
    public static func read(_ container: PersistentContainer, perSave: Int) throws -> (objects: Int, tornBatches: Int) {
        var request = FetchRequest(entityName: "Blob")
        request.propertiesToFetch = ["batch"]
        var perBatch: [Int64: Int] = [:]
        for row in try container.newContext().fetchDictionaries(request) {
            guard case .attribute(.int(let batch)?)? = row["batch"] else { continue }
            perBatch[batch, default: 0] += 1
        }
        let torn = perBatch.values.filter { $0 != perSave }.count
        return (perBatch.values.reduce(0, +), torn)
    }
}
