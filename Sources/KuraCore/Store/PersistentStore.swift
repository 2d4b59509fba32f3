import Foundation
import Synchronization

/// A Kura store: a model and the objects of its entities, with their
/// indexes, in one engine's storage (an LMDB file, a PostgreSQL database,
/// memory).
///
/// You rarely use the store directly: ``PersistentContainer`` opens one and
/// its contexts read and save through it. The store is `Sendable`; every
/// context of a container shares it.
///
/// The store keeps its own model, so it can be opened without the app's Swift
/// code (`PersistentStore(path:model:)` of the `Kura` module with a `nil` model,
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
    /// ``StoreOptions/eventReporter``, kept apart: asked on every fetch.
    let eventReporter: StoreEventReporter?

    /// What the migration that ran when the store opened did, or `nil`
    /// when none ran.
    public let lastMigration: MigrationReport?

    /// The engine holding the store's spaces.
    let engine: any StorageEngine
    /// Whether the engine's transactions adopt ``RequestingStorageTransaction``,
    /// found once at open (see ``StoreTransaction``).
    let transactionsRequest: Bool
    let meta: StorageSpace
    /// The format its spaces are read in (see ``StoreLayout/formatVersion``).
    let format: UInt32
    private let spaces: [IdentityKey: EntitySpaces]
    /// For the stores a migration's custom stages use: the migration's write
    /// transaction, which their reads and saves join (see
    /// ``MigrationStage/custom(from:to:willMigrate:didMigrate:)``).
    var ambient: (StoreTransaction)? { ambientTransaction?.transaction }
    private let ambientTransaction: AmbientTransaction?
    /// `ambient != nil`, read without copying the existential out.
    let hasAmbient: Bool
    /// The store's schema generation when it opened: one more each
    /// migration, so a process with an older model can't save into a
    /// migrated store.
    let generation: UInt64
    /// The contexts that merge other contexts' saves by themselves.
    let mergeSubscribers = Mutex<[WeakInbox]>([])
    /// The fetch requests observed in this process (``ManagedObjectContext/results(for:sectionNameKey:)``).
    let observers = StoreObservers()

    /// Opens the store an engine holds, making it a Kura store when the
    /// engine holds nothing yet (unless it is read-only).
    ///
    /// This is how stores on other engines open (a product of their own
    /// gives ``StoreDescription`` a way to make theirs); the engine is the
    /// store's from then on, and ``close()`` closes it.
    ///
    /// - Parameters:
    ///   - engine: The engine, open.
    ///   - model: The model the app expects, or `nil` to use the store's own.
    ///   - options: Of these, ``StoreOptions/tracksHistory`` applies here;
    ///     the engine was opened with its own.
    ///   - migration: Whether and how a store of an older model is migrated.
    /// - Throws: ``KuraError/notAKuraStore(path:)``,
    ///   ``KuraError/unsupportedFormatVersion(path:found:supported:)``,
    ///   ``KuraError/modelMismatch(path:differences:)``,
    ///   ``KuraError/corruptStore(path:reason:)``, or
    ///   ``KuraError/storage(path:failure:)`` when the engine can't open the store.
    public convenience init(
        engine: any StorageEngine, model: ManagedObjectModel?, options: StoreOptions = StoreOptions(),
        migration: MigrationOptions = .automatic
    ) throws {
        let path = engine.location
        do {
            try model?.checkVersionIdentifier()
        } catch {
            engine.close()
            throw error
        }
        guard let (storedModel, format) = try Self.readStoredModel(engine) else {
            guard let model, !engine.isReadOnly else {
                engine.close()
                throw KuraError.notAKuraStore(path: path)
            }
            try model.bindLayouts(model.entities.map(\.layout))
            try engine.prepare(toOpen: model, alongside: nil)
            try Self.initialize(engine, with: model)
            try self.init(opening: engine, model: model, options: options, format: StoreLayout.formatVersion(for: model))
            return
        }
        try engine.prepare(toOpen: storedModel, alongside: model)

        // The store as it is, on its own model; an older format is upgraded
        // now when the store is writable, else read as it is.
        let target = max(format, StoreLayout.formatVersion(for: storedModel))
        let upgrading = format < target && !engine.isReadOnly
        var current = try PersistentStore(
            opening: engine, model: storedModel, options: options, format: upgrading ? target : format)
        if upgrading { try current.upgradeFormat(from: format) }
        if let model {
            current = try current.opening(model, migration: migration)
        }
        try self.init(opening: engine, model: current.model, options: options,
                      format: current.format, lastMigration: current.lastMigration)
    }

    /// A store on an open engine, with `model` (whose layouts are set).
    init(opening engine: any StorageEngine, model: ManagedObjectModel, options: StoreOptions,
         format: UInt32, lastMigration: MigrationReport? = nil, ambient: (StoreTransaction)? = nil) throws {
        self.path = engine.location
        self.options = options
        self.eventReporter = options.eventReporter
        self.engine = engine
        self.model = model
        self.lastMigration = lastMigration
        self.format = format
        ambientTransaction = ambient.map(AmbientTransaction.init)
        hasAmbient = ambient != nil
        let path = engine.location
        if let ambient {
            (meta, spaces) = try Self.openSpaces(model: model, path: path, format: format) { name in try ambient.createSpace(named: name) }
        } else {
            (meta, spaces) = try Self.openSpaces(model: model, path: path, format: format) { name in try engine.space(named: name) }
        }
        let meta = meta
        (generation, transactionsRequest) = try ambient.map { (try Self.generation(meta, in: $0), $0.isRequesting) }
            ?? engine.storeRead { (try Self.generation(meta, in: $0), $0.isRequesting) }
        model.freeze()
    }

    /// The schema generation `meta` records: 0 until the first migration.
    static func generation(_ meta: StorageSpace, in txn: StoreTransaction) throws -> UInt64 {
        try meta.value(forKey: StoreLayout.generationKey, in: txn).flatMap { StoreLayout.littleEndian($0, as: UInt64.self) } ?? 0
    }

    /// Closes the store. Contexts using it throw ``KuraError/storeClosed(path:)``
    /// from then on.
    public func close() {
        engine.close()
    }

    /// True when opened read-only.
    public var isReadOnly: Bool { engine.isReadOnly }

    /// The spaces of `entity`, or `nil` when it is not of the store's model.
    func spacesIfOwned(_ entity: EntityDescription) -> EntitySpaces? {
        spaces[IdentityKey(entity)]
    }

    /// The spaces of `entity`, an entity of this store's model.
    func spaces(for entity: EntityDescription) -> EntitySpaces {
        guard let spaces = spaces[IdentityKey(entity)] else {
            preconditionFailure("entity \(entity.name) is not part of the store's model")
        }
        return spaces
    }

    // MARK: Opening

    /// The model and format the store holds, or `nil` for an engine with
    /// nothing in it yet. The structure holding the meta space is checked
    /// first (on LMDB, its pages are read from the file, not the map), so a
    /// damaged store is a clear error here rather than a crash.
    static func readStoredModel(_ engine: any StorageEngine) throws -> (ManagedObjectModel, UInt32)? {
        let path = engine.location
        let stored: (format: [UInt8]?, model: [UInt8]?)? = try engine.storeReadChecked(spaces: [StoreLayout.metaSpaceName]) { txn in
            guard let meta = try txn.openSpace(named: StoreLayout.metaSpaceName) else {
                if try txn.isEmpty() { return nil }
                throw KuraError.notAKuraStore(path: path)
            }
            return (try meta.value(forKey: StoreLayout.formatKey, in: txn), try meta.value(forKey: StoreLayout.modelKey, in: txn))
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

    /// Writes the format, the model and every entity's spaces, in one transaction.
    private static func initialize(_ engine: any StorageEngine, with model: ManagedObjectModel) throws {
        let modelBytes = try model.encoded()
        try engine.storeWrite { txn in
            let meta = try txn.createSpace(named: StoreLayout.metaSpaceName)
            try meta.put(StoreLayout.littleEndianBytes(StoreLayout.formatVersion(for: model)), forKey: StoreLayout.formatKey, in: txn)
            try meta.put(modelBytes, forKey: StoreLayout.modelKey, in: txn)
            try meta.put(Array(model.fingerprint.utf8), forKey: StoreLayout.fingerprintKey, in: txn)
            try meta.put(try ModelHistoryEntry.encode([ModelHistoryEntry(
                version: model.versionIdentifier, fingerprint: model.fingerprint, date: Date(), change: "created")]),
                forKey: StoreLayout.historyKey, in: txn)
            for entity in model.entities {
                _ = try txn.createSpace(named: StoreLayout.recordsSpaceName(entity))
                for position in entity.indexes.indices {
                    _ = try txn.createSpace(named: StoreLayout.indexSpaceName(entity, position))
                }
                for link in entity.links {
                    for space in link.spaceNames { _ = try txn.createSpace(named: space.name) }
                }
            }
        }
    }

    /// The spaces of `model`'s entities, read as a store of `format` keeps them.
    private static func openSpaces(
        model: ManagedObjectModel, path: String, format: UInt32, space: (String) throws -> StorageSpace?
    ) throws -> (StorageSpace, [IdentityKey: EntitySpaces]) {
        func open(_ name: String) throws -> StorageSpace {
            guard let opened = try space(name) else {
                throw KuraError.corruptStore(path: path, reason: "the space \(name) is missing")
            }
            return opened
        }
        let meta = try open(StoreLayout.metaSpaceName)
        var spaces: [IdentityKey: EntitySpaces] = [:]
        for entity in model.entities {
            let records = try open(StoreLayout.recordsSpaceName(entity))
            let indexes = try entity.indexes.indices.map { position in
                let numbers = entity.indexAttributeNumbers[position]
                return IndexSpace(description: entity.indexes[position], attributeNumbers: numbers,
                           space: try open(StoreLayout.indexSpaceName(entity, position)),
                           hasLegacyDecimalKeys: format < 2 && numbers.contains { entity.attributes[$0].type == .decimal })
            }
            let relationships = try entity.links.map { link in
                link.storageType.init(link: link, spaces: try link.spaceNames.map { try open($0.name) }, format: format)
            }
            spaces[IdentityKey(entity)] = EntitySpaces(
                entity: entity, records: records, indexes: indexes, relationships: relationships)
        }
        return (meta, spaces)
    }
}

/// The migration's write transaction, held by the stores its custom stages
/// use. A transaction isn't `Sendable` (it is used by the thread it was lent
/// to, only inside its closure); these stores live only inside that closure,
/// on that thread, which is what makes holding it here sound.
private struct AmbientTransaction: @unchecked Sendable {
    let transaction: StoreTransaction
}
