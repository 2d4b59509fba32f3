import Foundation
import Kura
import KuraLMDB

/// The model changes the migration rows measure, each on a fresh copy of a
/// store the engine built with the dataset.
public enum MigrationKind: CaseIterable, Sendable {
    /// News gains an optional `subtitle`.
    case addOptionalAttribute
    /// News gains an index on `title`.
    case addTitleIndex
    /// A custom stage rewrites every title.
    case rewriteTitles

    public var name: String {
        switch self {
        case .addOptionalAttribute: "migrate: add an optional attribute"
        case .addTitleIndex: "migrate: add an index on title"
        case .rewriteTitles: "migrate: custom stage rewrites every title"
        }
    }
}

/// An engine whose stores can be migrated: `prepare` does the untimed
/// setup and returns the migration to time.
public protocol MigratingEngine {
    static var name: String { get }
    static func prepare(_ kind: MigrationKind, directory: String) throws -> () throws -> Checksum
}

extension KuraEngine: MigratingEngine {
    /// Opens the store with a changed model: Kura migrates it on open.
    public static func prepare(_ kind: MigrationKind, directory: String) throws -> () throws -> Checksum {
        let path = directory + "/news.kura"
        let reader = try PersistentContainer(path: path)
        let stored = reader.model
        reader.close()
        let news = try stored.requireEntity(named: "News")
        var attributes = news.attributes
        var indexes = news.indexes
        switch kind {
        case .addOptionalAttribute: attributes.append(AttributeDescription(name: "subtitle", type: .string, isOptional: true))
        case .addTitleIndex: indexes.append(.index("title"))
        case .rewriteTitles: break
        }
        let target = try ManagedObjectModel(entities: [EntityDescription(name: "News", attributes: attributes, indexes: indexes)])
        var migration = MigrationOptions.automatic
        if kind == .rewriteTitles {
            let source = try ManagedObjectModel(entities: [EntityDescription(name: "News", attributes: attributes, indexes: indexes)])
            migration.plan = MigrationPlan([.custom(from: source, to: target, didMigrate: { migration in
                for object in try migration.context.fetch(FetchRequest(entityName: "News")) {
                    try object.setValue(.string(try object.value(forKey: "title", as: String.self) + " ·"), forKey: "title")
                }
            })])
        }
        return {
            var options = StoreOptions()
            options.initialSize = 1 << 30
            let container = try PersistentContainer(path: path, model: target, options: options, migration: migration)
            defer { container.close() }
            guard container.store.lastMigration != nil else { throw MigrationNotRun() }
            return Checksum(count: try container.newContext().count(for: FetchRequest(entityName: "News")))
        }
    }

    struct MigrationNotRun: Error {}
}

extension LMDBEngine: MigratingEngine {
    /// What the same change costs by hand: every record rewritten (a
    /// positional format has no room for a new field), an index built from
    /// every record, every title rewritten.
    public static func prepare(_ kind: MigrationKind, directory: String) throws -> () throws -> Checksum {
        {
            let environment = try Environment(path: directory + "/news.lmdb", options: .init(mapSize: 1 << 32))
            defer { environment.close() }
            return try environment.write { txn in
                let records = try txn.createDatabase(named: "records")
                var count = 0
                if kind == .addTitleIndex {
                    // Keys in title order then key, as an index of a non-unique attribute.
                    let index = try txn.createDatabase(named: "title")
                    var entries: [[UInt8]] = []
                    try records.forEach(in: txn) { entry in
                        entries.append(Array(RawNewsCodec.decode(entry.value).title.utf8) + Array(entry.key))
                        return true
                    }
                    for key in entries { try index.put([], forKey: key, in: txn) }
                    return Checksum(count: entries.count)
                }
                // In batches, so the database isn't written while a cursor walks it.
                var after: [UInt8]?
                var bytes: [UInt8] = []
                while true {
                    var batch: [([UInt8], [UInt8])] = []
                    try records.forEach(in: txn, range: KeyRange(lower: after.map { .init($0, isInclusive: false) }, upper: nil)) { entry in
                        if kind == .rewriteTitles {
                            var value = RawNewsCodec.decode(entry.value)
                            value.title += " ·"
                            RawNewsCodec.encode(value, into: &bytes)
                            batch.append((Array(entry.key), bytes))
                        } else {
                            batch.append((Array(entry.key), Array(entry.value) + [0]))
                        }
                        return batch.count < 4096
                    }
                    for (key, value) in batch { try records.put(value, forKey: key, in: txn) }
                    count += batch.count
                    guard batch.count == 4096 else { break }
                    after = batch.last?.0
                }
                return Checksum(count: count)
            }
        }
    }
}
