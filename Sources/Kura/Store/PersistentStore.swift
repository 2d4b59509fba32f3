import Foundation
import KuraLMDB
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A Kura store: one LMDB file holding a model and the objects of its
/// entities, with their indexes.
///
/// You rarely use the store directly: ``PersistentContainer`` opens one and
/// its contexts read and save through it. The store is `Sendable`; every
/// context of a container shares it.
///
/// The store keeps its own model, so it can be opened without the app's Swift
/// code (``PersistentStore/init(path:model:options:)`` with a `nil` model,
/// which is how `kura inspect` works). Opened with a model, the store checks
/// that the model's schema is the one it holds, and throws
/// ``KuraError/modelMismatch(path:differences:)`` listing what differs if not.
public final class PersistentStore: Sendable {
    /// The store file.
    public let path: String
    /// The model in use: the one given, or the store's own.
    public let model: ManagedObjectModel
    /// The options the store was opened with.
    public let options: StoreOptions

    /// What the migration that ran when the store opened did, or `nil`
    /// when none ran.
    public let lastMigration: MigrationReport?

    let environment: Environment
    let meta: Database
    private let tables: [IdentityKey: EntityTables]
    /// For the stores a migration's custom stages use: the migration's write
    /// transaction, which their reads and saves join (see
    /// ``MigrationStage/custom(from:to:willMigrate:didMigrate:)``).
    let ambient: UnsafeTransactionHandle?
    /// The store's schema generation when it opened: one more each
    /// migration, so a process with an older model can't save into a
    /// migrated store.
    let generation: UInt64
    /// The contexts that merge other contexts' saves by themselves.
    let mergeSubscribers = Mutex<[WeakInbox]>([])
    /// The fetch requests observed in this process (``ManagedObjectContext/results(for:sectionNameKey:)``).
    let observers = StoreObservers()

    /// Opens the store in the file at `path`, creating it when it doesn't
    /// exist (unless read-only).
    ///
    /// - Parameters:
    ///   - path: The store file; its directory must exist. LMDB keeps a lock
    ///     file next to it, at `path-lock`.
    ///   - model: The model the app expects, or `nil` to use the store's own
    ///     (a new store needs a model).
    ///   - options: Sizes, durability, read-only.
    /// - Throws: ``KuraError/notAKuraStore(path:)``,
    ///   ``KuraError/unsupportedFormatVersion(path:found:supported:)``,
    ///   ``KuraError/modelMismatch(path:differences:)``,
    ///   ``KuraError/corruptStore(path:reason:)``, or
    ///   ``KuraError/storage(path:failure:)`` when LMDB can't open the file.
    public convenience init(
        path: String, model: ManagedObjectModel?, options: StoreOptions = StoreOptions(),
        migration: MigrationOptions = .automatic
    ) throws {
        var environmentOptions = Environment.Options(
            mapSize: options.initialSize, maxMapSize: options.maximumSize,
            maxDatabases: Self.databaseCount(for: model), maxReaders: options.maxReaders)
        if options.isReadOnly { environmentOptions.flags.insert(.readOnly) }
        switch options.durability {
        case .full: break
        case .noMetaSync: environmentOptions.flags.insert(.noMetaSync)
        case .noSync: environmentOptions.flags.insert(.noSync)
        }

        var environment: Environment
        do {
            environment = try Self.openEnvironment(path: path, options: environmentOptions)
        } catch KuraError.storage(_, .permissionDenied) where options.isReadOnly && options.allowsReadingWithoutLock
            && Self.cannotHaveALockFile(path) {
            environmentOptions.flags.insert(.noLock)
            environment = try Self.openEnvironment(path: path, options: environmentOptions)
        }
        // Reader slots of processes that died holding a snapshot would keep
        // old pages from being reused: clear them now.
        _ = try? environment.clearStaleReaders()
        var stored = try Self.readStoredModel(environment, path: path)
        if let (storedModel, _) = stored {
            // Room for the store's databases and the model's, which a
            // migration has open at once.
            let needed = Self.databaseCount(for: storedModel) + (model.map { Self.databaseCount(for: $0) } ?? 0)
            if needed > environmentOptions.maxDatabases {
                environment.close()
                environmentOptions.maxDatabases = needed
                environment = try Self.openEnvironment(path: path, options: environmentOptions)
                stored = try Self.readStoredModel(environment, path: path)
            }
        }

        guard let (storedModel, format) = stored else {
            guard let model, !options.isReadOnly else {
                throw KuraError.notAKuraStore(path: path)
            }
            try model.bindLayouts(model.entities.map(\.layout))
            try Self.initialize(environment, with: model, path: path)
            try self.init(opening: environment, model: model, path: path, options: options, format: StoreLayout.formatVersion)
            return
        }

        // The store as it is, on its own model; an older format is upgraded
        // now when the store is writable, else read as it is.
        let upgrading = format < StoreLayout.formatVersion && !options.isReadOnly
        var current = try PersistentStore(
            opening: environment, model: storedModel, path: path, options: options,
            format: upgrading ? StoreLayout.formatVersion : format)
        if upgrading { try current.upgradeFormat() }
        if let model {
            current = try current.opening(model, migration: migration)
        }
        try self.init(opening: environment, model: current.model, path: path, options: options,
                      format: upgrading ? StoreLayout.formatVersion : format, lastMigration: current.lastMigration)
    }

    /// A store on an open environment, with `model` (whose layouts are set).
    init(opening environment: Environment, model: ManagedObjectModel, path: String, options: StoreOptions,
         format: UInt32, lastMigration: MigrationReport? = nil, ambient: UnsafeTransactionHandle? = nil) throws {
        self.path = path
        self.options = options
        self.environment = environment
        self.model = model
        self.lastMigration = lastMigration
        self.ambient = ambient
        if let ambient {
            (meta, tables) = try ambient.withTransaction { txn in
                try Self.openTables(model: model, path: path, format: format) { name in try txn.createDatabase(named: name) }
            }
        } else {
            (meta, tables) = try Self.openTables(model: model, path: path, format: format) { name in
                try storageErrors(path) { try environment.database(named: name) }
            }
        }
        let meta = meta
        generation = try storageErrors(path) {
            try ambient?.withTransaction { try Self.generation(meta, in: $0) } ?? environment.read { try Self.generation(meta, in: $0) }
        }
        model.freeze()
    }

    /// The schema generation `meta` records: 0 until the first migration.
    static func generation(_ meta: Database, in txn: borrowing Transaction) throws -> UInt64 {
        try meta.value(forKey: StoreLayout.generationKey, in: txn).flatMap { StoreLayout.littleEndian($0, as: UInt64.self) } ?? 0
    }

    /// Closes the store. Contexts using it throw ``KuraError/storeClosed(path:)``
    /// from then on.
    public func close() {
        environment.close()
    }

    /// True when opened read-only.
    public var isReadOnly: Bool { options.isReadOnly }

    /// True when the store opened without LMDB's lock file (see
    /// ``StoreOptions/allowsReadingWithoutLock``).
    public var isReadingWithoutLock: Bool { environment.options.flags.contains(.noLock) }

    /// True when no lock file is beside the store and this user can't make one.
    private static func cannotHaveALockFile(_ path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        return access(path + "-lock", F_OK) != 0 && access(directory.isEmpty ? "." : directory, W_OK) != 0
    }

    /// The tables of `entity`, an entity of this store's model.
    func tables(for entity: EntityDescription) -> EntityTables {
        guard let tables = tables[IdentityKey(entity)] else {
            preconditionFailure("entity \(entity.name) is not part of the store's model")
        }
        return tables
    }

    // MARK: Opening

    /// Room for the meta database, every entity's records and every index,
    /// with some to spare; at least 128.
    private static func databaseCount(for model: ManagedObjectModel?) -> Int {
        guard let model else { return 128 }
        let needed = 1 + model.entities.reduce(0) { $0 + 1 + $1.indexes.count + 3 * $1.links.count }
        return max(128, needed + 16)
    }

    private static func openEnvironment(path: String, options: Environment.Options) throws -> Environment {
        do {
            return try Environment(path: path, options: options)
        } catch let error as EnvironmentError {
            switch error {
            case .cannotOpen(_, .invalid), .cannotOpen(_, .versionMismatch), .emptyFile:
                throw KuraError.notAKuraStore(path: path)
            case .truncated:
                throw KuraError.corruptStore(path: path, reason: error.description)
            default:
                throw KuraError.storage(error, path: path)
            }
        }
    }

    /// The model and format the store holds, or `nil` for an LMDB file with
    /// nothing in it yet. The pages of the main and meta databases are
    /// checked first (read from the file, not the map), so a damaged store is
    /// a clear error here rather than a crash.
    private static func readStoredModel(_ environment: Environment, path: String) throws -> (ManagedObjectModel, UInt32)? {
        let stored: (format: [UInt8]?, model: [UInt8]?)? = try storageErrors(path) {
            try environment.readCheckingStructure(databases: [StoreLayout.metaDatabase], problemLimit: 3) { txn, report in
                guard report.isIntact(database: nil) && report.problemCount == 0 else {
                    throw KuraError.corruptStore(path: path, reason: report.problems.joined(separator: "; "))
                }
                guard let meta = try txn.openDatabase(named: StoreLayout.metaDatabase) else {
                    if report.databases.first?.entries == 0 { return nil }
                    throw KuraError.notAKuraStore(path: path)
                }
                return (try meta.value(forKey: StoreLayout.formatKey, in: txn), try meta.value(forKey: StoreLayout.modelKey, in: txn))
            }
        }
        guard let stored else { return nil }
        guard let format = stored.format, let version = StoreLayout.littleEndian(format, as: UInt32.self) else {
            throw KuraError.notAKuraStore(path: path)
        }
        guard (StoreLayout.oldestReadableFormat...StoreLayout.formatVersion).contains(version) else {
            throw KuraError.unsupportedFormatVersion(path: path, found: Int(version), supported: Int(StoreLayout.formatVersion))
        }
        guard let modelBytes = stored.model else {
            throw KuraError.corruptStore(path: path, reason: "the store has no model")
        }
        do {
            return (try ManagedObjectModel.decode(modelBytes), version)
        } catch {
            throw KuraError.corruptStore(path: path, reason: "\(error)")
        }
    }

    /// Writes the format, the model and every entity's databases, in one transaction.
    private static func initialize(_ environment: Environment, with model: ManagedObjectModel, path: String) throws {
        let modelBytes = try model.encoded()
        try storageErrors(path) {
            try environment.write { txn in
                let meta = try txn.createDatabase(named: StoreLayout.metaDatabase)
                try meta.put(StoreLayout.littleEndianBytes(StoreLayout.formatVersion), forKey: StoreLayout.formatKey, in: txn)
                try meta.put(modelBytes, forKey: StoreLayout.modelKey, in: txn)
                try meta.put(Array(model.fingerprint.utf8), forKey: StoreLayout.fingerprintKey, in: txn)
                try meta.put(try ModelHistoryEntry.encode([ModelHistoryEntry(
                    version: model.versionIdentifier, fingerprint: model.fingerprint, date: Date(), change: "created")]),
                    forKey: StoreLayout.historyKey, in: txn)
                for entity in model.entities {
                    _ = try txn.createDatabase(named: StoreLayout.recordsDatabase(entity))
                    for position in entity.indexes.indices {
                        _ = try txn.createDatabase(named: StoreLayout.indexDatabase(entity, position))
                    }
                    for link in entity.links {
                        let names = RelationshipTable.databaseNames(of: link)
                        for name in [names.references, names.join, names.reverseJoin, names.order].compactMap({ $0 }) {
                            _ = try txn.createDatabase(named: name)
                        }
                    }
                }
            }
        }
    }

    /// The databases of `model`'s entities, read as a store of `format` keeps them.
    private static func openTables(
        model: ManagedObjectModel, path: String, format: UInt32, database: (String) throws -> Database?
    ) throws -> (Database, [IdentityKey: EntityTables]) {
        func open(_ name: String) throws -> Database {
            guard let database = try database(name) else {
                throw KuraError.corruptStore(path: path, reason: "the database \(name) is missing")
            }
            return database
        }
        let meta = try open(StoreLayout.metaDatabase)
        var tables: [IdentityKey: EntityTables] = [:]
        for entity in model.entities {
            let records = try open(StoreLayout.recordsDatabase(entity))
            let indexes = try entity.indexes.indices.map { position in
                let numbers = entity.indexAttributeNumbers[position]
                return IndexTable(description: entity.indexes[position], attributeNumbers: numbers,
                           database: try open(StoreLayout.indexDatabase(entity, position)),
                           hasLegacyDecimalKeys: format < 2 && numbers.contains { entity.attributes[$0].type == .decimal })
            }
            let relationships = try entity.links.map { link in
                let names = RelationshipTable.databaseNames(of: link)
                return RelationshipTable(
                    link: link, references: try names.references.map(open), join: try names.join.map(open),
                    reverseJoin: try names.reverseJoin.map(open), order: try names.order.map(open))
            }
            tables[IdentityKey(entity)] = EntityTables(
                entity: entity, records: records, indexes: indexes, relationships: relationships)
        }
        return (meta, tables)
    }
}

/// Runs `body`, turning LMDB's errors into ``KuraError``s that name the store.
func storageErrors<Result>(_ path: String, _ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch {
        throw KuraError.storage(error, path: path)
    }
}
