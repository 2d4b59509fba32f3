import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of a store's file and its spaces (LMDB's named databases),
/// for `kura stats`: what ``PersistentStore/statistics()`` returns.
public struct StoreStatistics: Sendable {
    /// One LMDB database of the store.
    public struct DatabaseInfo: Sendable {
        /// `meta`, `records`, `index`, `relationship`, `history`, or `other`.
        public var kind: String
        /// The entity, for records, indexes and relationships.
        public var entity: String?
        /// The index or relationship (with what the database holds of it:
        /// `author (references)`), or the database's name for `other`.
        public var index: String?
        /// The B-tree's depth.
        public var depth: Int
        /// Pages of the tree's inner nodes.
        public var branchPages: Int
        /// Pages of the tree's leaves.
        public var leafPages: Int
        /// Pages holding values too large for a leaf.
        public var overflowPages: Int
        /// Key/value pairs.
        public var entries: Int
        /// Branch, leaf and overflow pages.
        public var totalPages: Int { branchPages + leafPages + overflowPages }

        public init(kind: String, entity: String?, index: String?, depth: Int, branchPages: Int, leafPages: Int,
                    overflowPages: Int, entries: Int) {
            self.kind = kind
            self.entity = entity
            self.index = index
            self.depth = depth
            self.branchPages = branchPages
            self.leafPages = leafPages
            self.overflowPages = overflowPages
            self.entries = entries
        }
    }

    /// A reader slot in use: a process holding a snapshot, or ready to.
    public struct Reader: Sendable, Hashable {
        /// The process.
        public var processIdentifier: Int
        /// The thread, as LMDB shows it (hexadecimal).
        public var thread: String
        /// The snapshot's transaction ID, or `nil` between reads (the slot is kept for the thread).
        public var transactionID: Int?

        public init(processIdentifier: Int, thread: String, transactionID: Int?) {
            self.processIdentifier = processIdentifier
            self.thread = thread
            self.transactionID = transactionID
        }
    }

    /// The store file.
    public var path: String
    /// The store file's size on disk.
    public var fileSize: Int
    /// The memory map's size: how large the file may grow before the map does.
    public var mapSize: Int
    /// The bytes of the pages in use.
    public var usedBytes: Int
    /// LMDB's page size, in bytes.
    public var pageSize: Int
    /// The ID of the last committed write transaction.
    public var lastTransactionID: Int
    /// Reader slots in the lock file.
    public var maxReaders: Int
    /// Reader slots ever used (LMDB's high-water mark).
    public var readersUsed: Int
    /// The reader slots in use.
    public var readers: [Reader]
    /// Every database of the store: meta, records, indexes, relationships, history.
    public var databases: [DatabaseInfo]
    /// The size a compacted backup (`kura backup --compact`) would have.
    public var compactedBytes: Int

    public init(path: String, fileSize: Int, mapSize: Int, usedBytes: Int, pageSize: Int, lastTransactionID: Int,
                maxReaders: Int, readersUsed: Int, readers: [Reader], databases: [DatabaseInfo], compactedBytes: Int) {
        self.path = path
        self.fileSize = fileSize
        self.mapSize = mapSize
        self.usedBytes = usedBytes
        self.pageSize = pageSize
        self.lastTransactionID = lastTransactionID
        self.maxReaders = maxReaders
        self.readersUsed = readersUsed
        self.readers = readers
        self.databases = databases
        self.compactedBytes = compactedBytes
    }

    /// What a compaction would give back: the file's size less the compacted size.
    public var reclaimableBytes: Int { max(0, fileSize - compactedBytes) }
}

extension PersistentStore {
    /// Map size and use, file size, last transaction, readers, and the
    /// B-tree shape of every space of the store, each named for what it
    /// holds.
    ///
    /// - Throws: ``StorageFailure/notSupported(_:)`` on an engine that
    ///   doesn't report them (see ``StatisticsReportingEngine``).
    public func statistics() throws -> StoreStatistics {
        var statistics = try capability((any StatisticsReportingEngine).self, for: "page statistics").storeStatistics()
        statistics.databases = classified(statistics.databases)
        return statistics
    }

    /// `databases` (named by their spaces) with their kind, entity and
    /// part, in the model's order: meta, then each entity's records,
    /// indexes and relationships, then history.
    private func classified(_ databases: [StoreStatistics.DatabaseInfo]) -> [StoreStatistics.DatabaseInfo] {
        var known: [String: (kind: String, entity: String?, name: String?)] = [StoreLayout.metaSpaceName: ("meta", nil, nil)]
        known[StoreLayout.historySpaceName] = ("history", nil, nil)
        for entity in model.entities {
            known[StoreLayout.recordsSpaceName(entity)] = ("records", entity.name, nil)
            for (position, index) in entity.indexes.enumerated() {
                known[StoreLayout.indexSpaceName(entity, position)] = ("index", entity.name, index.name)
            }
            for link in entity.links {
                for space in link.spaceNames {
                    known[space.name] = ("relationship", entity.name, "\(link.name) (\(space.part))")
                }
            }
        }
        let order = ["meta": 0, "records": 1, "index": 2, "relationship": 3, "history": 4, "other": 5]
        let entityOrder = Dictionary(model.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        return databases.map { database in
            var database = database
            let name = database.index ?? ""
            (database.kind, database.entity, database.index) = known[name] ?? ("other", nil, name)
            return database
        }.sorted { lhs, rhs in
            let left = (entityOrder[lhs.entity ?? ""] ?? -1, order[lhs.kind] ?? 9, lhs.index ?? "")
            let right = (entityOrder[rhs.entity ?? ""] ?? -1, order[rhs.kind] ?? 9, rhs.index ?? "")
            return left < right
        }
    }

    /// Writes a consistent copy of the store to a new file at `path`, in a
    /// read transaction of its own, while other readers and writers carry
    /// on (LMDB's `mdb_env_copy2`). With `compacting`, free pages are left
    /// out and the rest renumbered, so the copy is as small as the data
    /// (``StoreStatistics/compactedBytes``).
    ///
    /// - Throws: ``KuraError/storage(path:failure:)``, for instance when
    ///   `path` exists, or ``StorageFailure/notSupported(_:)`` on an engine
    ///   that can't (see ``StoreCopyingEngine``).
    public func backup(to path: String, compacting: Bool = false) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw KuraError.storage(path: path, failure: .system(errno: EEXIST, message: "the file exists; a backup never overwrites one"))
        }
        try capability((any StoreCopyingEngine).self, for: "a copy of the store file").copyStore(to: path, compacting: compacting)
    }

    /// Clears the reader slots of processes that died holding a read
    /// transaction, and returns how many. A writer does this by itself too.
    ///
    /// - Throws: ``StorageFailure/notSupported(_:)`` on an engine without
    ///   reader slots (see ``ReaderSlotEngine``).
    @discardableResult
    public func clearStaleReaders() throws -> Int {
        try capability((any ReaderSlotEngine).self, for: "clearing stale readers").clearStaleReaders()
    }

    /// True when the store opened without LMDB's lock file (see
    /// LMDB's `allowsReadingWithoutLock`); false on engines without
    /// reader slots.
    public var isReadingWithoutLock: Bool { (engine as? any ReaderSlotEngine)?.isReadingWithoutLock ?? false }

    /// The engine as one with the ability `ability`.
    /// - Throws: ``StorageFailure/notSupported(_:)`` naming `what` when it hasn't.
    private func capability<Ability>(_ ability: Ability.Type, for what: String) throws -> Ability {
        guard let engine = engine as? Ability else {
            throw KuraError.storage(path: path, failure: .notSupported(what))
        }
        return engine
    }
}
