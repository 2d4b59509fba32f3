import Foundation
import Kura

/// The work of the crash-safety test: numbered batches of inserts, updates
/// and deletes, each saved in one save together with a marker holding the
/// batch's number. Items belong to groups (a to-one with a to-many inverse)
/// and link to each other (a many-to-many), so a batch also changes
/// references, relationship entries and, through deletions, nullified
/// inverses. The batches are a pure function of the seed, the batch number
/// and the state before it, so the test can replay them and know exactly
/// what the store must hold after any batch.
public enum CrashWorkload {
    /// How many groups there are.
    public static let groupCount = 4

    /// The model: `Item` (unique `key`, indexed `value`, `batch`, its
    /// `group`, its `links` to other items and their inverse `linkedBy`),
    /// `Group` (unique `number`, its `items`) and a single `Marker` with the
    /// number of the last saved batch.
    public static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "key", type: .string),
                AttributeDescription(name: "value", type: .int64),
                AttributeDescription(name: "batch", type: .int64),
                AttributeDescription(name: "padding", type: .string),
            ], relationships: [
                .toOne("group", destination: "Group", inverse: "items"),
                .toMany("links", destination: "Item", inverse: "linkedBy"),
                .toMany("linkedBy", destination: "Item"),
            ], indexes: [.unique("key"), .index("value")]),
            EntityDescription(name: "Group", attributes: [AttributeDescription(name: "number", type: .int64)],
                              relationships: [.toMany("items", destination: "Item")], indexes: [.unique("number")]),
            EntityDescription(name: "Marker", attributes: [AttributeDescription(name: "batch", type: .int64)]),
        ])
    }

    /// What the store holds of one item.
    public struct ItemState: Equatable, CustomStringConvertible {
        public var value: Int
        public var group: Int?
        public var links: Set<String>

        public var description: String { "\(value) g\(group.map(String.init) ?? "-") \(links.sorted())" }
    }

    /// One batch's changes.
    public struct Batch: Equatable {
        public struct Insert: Equatable {
            public var key: String
            public var value: Int
            public var group: Int?
            public var links: [String]
        }

        public var inserts: [Insert] = []
        public var updates: [(key: String, value: Int, group: Int?)] = []
        public var deletes: [String] = []
        /// Every fourth batch starts with a batch request, committed in a
        /// transaction of its own before the batch's save: a batch update
        /// setting `value` of the items whose value is in a range, or a
        /// batch delete of them.
        public var request: Request?

        public enum Request: Equatable {
            case update(ClosedRange<Int>, to: Int)
            case delete(ClosedRange<Int>)
        }

        public static func == (lhs: Batch, rhs: Batch) -> Bool {
            lhs.inserts == rhs.inserts && lhs.updates.map(\.key) == rhs.updates.map(\.key)
                && lhs.updates.map(\.value) == rhs.updates.map(\.value) && lhs.updates.map(\.group) == rhs.updates.map(\.group)
                && lhs.deletes == rhs.deletes && lhs.request == rhs.request
        }
    }

    /// The changes of batch `number`, given the items before it.
    public static func batch(_ number: Int, seed: UInt64, items: [String: ItemState]) -> Batch {
        var generator = SplitMix64(seed: seed &+ UInt64(number) &* 0x9E37_79B9)
        var batch = Batch()
        var items = items
        if number % 4 == 3 {
            let low = Int.random(in: -1000...900, using: &generator)
            let range = low...(low + Int.random(in: 20...150, using: &generator))
            batch.request = Bool.random(using: &generator) ? .delete(range) : .update(range, to: Int.random(in: -1000...1000, using: &generator))
            applyRequest(batch.request!, to: &items)
        }
        let keys = items.keys.sorted()
        func group() -> Int? {
            let choice = Int.random(in: 0...groupCount, using: &generator)
            return choice == groupCount ? nil : choice
        }
        var touched = Set<String>()
        if !keys.isEmpty {
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
                guard touched.insert(key).inserted else { continue }
                batch.updates.append((key, Int.random(in: -1000...1000, using: &generator), group()))
            }
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
                guard touched.insert(key).inserted else { continue }
                batch.deletes.append(key)
            }
        }
        let linkable = keys.filter { !batch.deletes.contains($0) }
        for index in 0..<Int.random(in: 1...6, using: &generator) {
            let links = linkable.isEmpty ? [] : (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                linkable[Int.random(in: 0..<linkable.count, using: &generator)]
            }
            batch.inserts.append(Batch.Insert(
                key: "b\(number)-\(index)", value: Int.random(in: -1000...1000, using: &generator), group: group(),
                links: Array(Set(links)).sorted()))
        }
        return batch
    }

    /// The items after `request`, the batch request a batch starts with.
    public static func applyRequest(_ request: Batch.Request, to items: inout [String: ItemState]) {
        switch request {
        case .update(let range, let value):
            for key in items.keys where range.contains(items[key]!.value) { items[key]!.value = value }
        case .delete(let range):
            let deleted = Set(items.keys.filter { range.contains(items[$0]!.value) })
            for key in deleted { items[key] = nil }
            for other in items.keys { items[other]!.links.subtract(deleted) }  // nullified
        }
    }

    /// The items after batch `batch` with the next batch's request applied,
    /// or `nil` when that batch starts with none: what the store holds when
    /// a writer died between that request (which commits on its own) and
    /// its batch's save.
    public static func withNextRequest(after batch: Int, seed: UInt64, items: [String: ItemState]) -> [String: ItemState]? {
        guard let request = self.batch(batch + 1, seed: seed, items: items).request else { return nil }
        var requested = items
        applyRequest(request, to: &requested)
        return requested
    }

    /// The items after `batch`.
    public static func apply(_ batch: Batch, to items: inout [String: ItemState]) {
        if let request = batch.request { applyRequest(request, to: &items) }
        for (key, value, group) in batch.updates {
            items[key]?.value = value
            items[key]?.group = group
        }
        for key in batch.deletes {
            items[key] = nil
            for other in items.keys { items[other]?.links.remove(key) }  // nullified
        }
        for insert in batch.inserts {
            items[insert.key] = ItemState(value: insert.value, group: insert.group, links: Set(insert.links))
        }
    }

    /// Replays the batches after `replayed` up to and including `batch`
    /// onto `items` (the state after batch `replayed`), and moves
    /// `replayed` to `batch`.
    public static func replay(through batch: Int, seed: UInt64, replayed: inout Int, items: inout [String: ItemState]) {
        while replayed < batch {
            replayed += 1
            apply(self.batch(replayed, seed: seed, items: items), to: &items)
        }
    }

    /// The items and the marker's batch number as stored (-1: no batch yet).
    public static func read(_ context: ManagedObjectContext) throws -> (items: [String: ItemState], batch: Int) {
        var items: [String: ItemState] = [:]
        for item in try context.fetch(FetchRequest(entityName: "Item")) {
            let group = try item.object(forKey: "group")?.value(forKey: "number", as: Int.self)
            let links = try Set(item.objects(forKey: "links").map { try $0.value(forKey: "key", as: String.self) })
            items[try item.value(forKey: "key", as: String.self)] = ItemState(
                value: try item.value(forKey: "value", as: Int.self), group: group, links: links)
        }
        let marker = try context.fetch(FetchRequest(entityName: "Marker")).first
        return (items, try marker?.value(forKey: "batch", as: Int.self) ?? -1)
    }

    /// The group numbered `number`, made in the first save that needs it.
    private static func group(_ number: Int?, in context: ManagedObjectContext) throws -> ManagedObject? {
        guard let number else { return nil }
        if let existing = try context.fetch(FetchRequest(entityName: "Group", predicate: try FetchPredicate(format: "number == %@", number))).first {
            return existing
        }
        let group = try context.insertNewObject(forEntityName: "Group")
        try group.setValue(number, forKey: "number")
        return group
    }

    /// Makes batch `number` in `context` (whose registered objects are the
    /// stored items, by key) and saves it.
    public static func save(
        _ batch: Batch, number: Int, in context: ManagedObjectContext, objects: inout [String: ManagedObject]
    ) throws {
        if let request = batch.request {
            switch request {
            case .update(let range, let value):
                try context.execute(BatchUpdateRequest(
                    FetchRequest(entityName: "Item", predicate: try FetchPredicate(format: "value BETWEEN %@", [range.lowerBound, range.upperBound])),
                    propertiesToUpdate: ["value": .int(Int64(value)), "batch": .int(Int64(number))]))
            case .delete(let range):
                try context.execute(BatchDeleteRequest(FetchRequest(
                    entityName: "Item", predicate: try FetchPredicate(format: "value BETWEEN %@", [range.lowerBound, range.upperBound]))))
                // The context merged the request: the deleted objects left it.
                for (key, object) in objects where object.managedObjectContext == nil { objects[key] = nil }
            }
        }
        for (key, value, group) in batch.updates {
            guard let item = objects[key] else { continue }
            try item.setValue(value, forKey: "value")
            try item.setValue(number, forKey: "batch")
            try item.setObject(try Self.group(group, in: context), forKey: "group")
        }
        for key in batch.deletes {
            guard let item = objects.removeValue(forKey: key) else { continue }
            context.delete(item)
        }
        for insert in batch.inserts {
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue(insert.key, forKey: "key")
            try item.setValue(insert.value, forKey: "value")
            try item.setValue(number, forKey: "batch")
            try item.setValue(String(repeating: "x", count: 100 + Int(insert.value.magnitude % 900)), forKey: "padding")
            try item.setObject(try Self.group(insert.group, in: context), forKey: "group")
            let links = try item.mutableSetValue(forKey: "links")
            for key in insert.links { if let linked = objects[key] { try links.insert(linked) } }
            objects[insert.key] = item
        }
        let marker = try context.fetch(FetchRequest(entityName: "Marker")).first
            ?? (try context.insertNewObject(forEntityName: "Marker"))
        try marker.setValue(number, forKey: "batch")
        try context.save()
    }
}
