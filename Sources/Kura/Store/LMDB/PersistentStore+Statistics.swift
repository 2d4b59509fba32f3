import Foundation
import KuraLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of a store's file and LMDB databases, for `kura stats`.
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
    }

    /// A reader slot in use: a process holding a snapshot, or ready to.
    public struct Reader: Sendable, Hashable {
        /// The process.
        public var processIdentifier: Int
        /// The thread, as LMDB shows it (hexadecimal).
        public var thread: String
        /// The snapshot's transaction ID, or `nil` between reads (the slot is kept for the thread).
        public var transactionID: Int?
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

    /// What a compaction would give back: the file's size less the compacted size.
    public var reclaimableBytes: Int { max(0, fileSize - compactedBytes) }
}

extension PersistentStore {
    /// Map size and use, file size, last transaction, readers, and the
    /// B-tree shape of every database of the store.
    public func statistics() throws -> StoreStatistics {
        let environment = try lmdbEnvironment(for: "page statistics")
        return try storageErrors(path) {
            let info = try environment.info()
            let main = try environment.statistics()
            var known: [String: (kind: String, entity: String?, name: String?)] = [StoreLayout.metaDatabase: ("meta", nil, nil)]
            known[StoreLayout.historyDatabase] = ("history", nil, nil)
            for entity in model.entities {
                known[StoreLayout.recordsDatabase(entity)] = ("records", entity.name, nil)
                for (position, index) in entity.indexes.enumerated() {
                    known[StoreLayout.indexDatabase(entity, position)] = ("index", entity.name, index.name)
                }
                for relationship in entity.relationships {
                    let parts = [("references", StoreLayout.referenceDatabase), ("members", StoreLayout.joinDatabase),
                                 ("members, reverse", StoreLayout.reverseJoinDatabase), ("order", StoreLayout.orderDatabase)]
                    for (what, name) in parts {
                        known[name(entity.name, relationship.name)] = ("relationship", entity.name, "\(relationship.name) (\(what))")
                    }
                }
            }
            let order = ["meta": 0, "records": 1, "index": 2, "relationship": 3, "history": 4, "other": 5]
            let entityOrder = Dictionary(model.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            let databases = try environment.namedDatabaseStatistics().map { name, stat in
                let (kind, entity, detail) = known[name] ?? ("other", nil, name)
                return StoreStatistics.DatabaseInfo(
                    kind: kind, entity: entity, index: detail, depth: stat.depth, branchPages: stat.branchPages,
                    leafPages: stat.leafPages, overflowPages: stat.overflowPages, entries: stat.entries)
            }.sorted { lhs, rhs in
                let left = (entityOrder[lhs.entity ?? ""] ?? -1, order[lhs.kind] ?? 9, lhs.index ?? "")
                let right = (entityOrder[rhs.entity ?? ""] ?? -1, order[rhs.kind] ?? 9, rhs.index ?? "")
                return left < right
            }
            let readers = try environment.readerTable().dropFirst().compactMap { line -> StoreStatistics.Reader? in
                let fields = line.split(separator: " ")
                guard fields.count >= 3, let process = Int(fields[0]) else { return nil }
                return StoreStatistics.Reader(processIdentifier: process, thread: String(fields[1]), transactionID: Int(fields[2]))
            }
            let pages = 2 + main.totalPages + databases.reduce(0) { $0 + $1.totalPages }
            return StoreStatistics(
                path: path, fileSize: try environment.fileSize(), mapSize: info.mapSize,
                usedBytes: (info.lastPageNumber + 1) * main.pageSize, pageSize: main.pageSize,
                lastTransactionID: info.lastTransactionID, maxReaders: info.maxReaders, readersUsed: info.readersUsed,
                readers: readers, databases: databases, compactedBytes: pages * main.pageSize)
        }
    }

    /// Writes a consistent copy of the store to a new file at `path`, in a
    /// read transaction of its own, while other readers and writers carry
    /// on (LMDB's `mdb_env_copy2`). With `compacting`, free pages are left
    /// out and the rest renumbered, so the copy is as small as the data
    /// (``StoreStatistics/compactedBytes``).
    ///
    /// - Throws: ``KuraError/storage(path:failure:)``, for instance when `path` exists.
    public func backup(to path: String, compacting: Bool = false) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw KuraError.storage(path: path, failure: .system(errno: EEXIST, message: "the file exists; a backup never overwrites one"))
        }
        let environment = try lmdbEnvironment(for: "a copy of the store file")
        try storageErrors(path) { try environment.copy(to: path, compacting: compacting) }
    }

    /// Clears the reader slots of processes that died holding a read
    /// transaction, and returns how many. A writer does this by itself too.
    @discardableResult
    public func clearStaleReaders() throws -> Int {
        let environment = try lmdbEnvironment(for: "clearing stale readers")
        return try storageErrors(path) { try environment.clearStaleReaders() }
    }
}
