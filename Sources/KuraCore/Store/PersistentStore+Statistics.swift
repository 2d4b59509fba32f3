import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of a store and its spaces, for `kura stats`: what
/// ``PersistentStore/statistics()`` returns.
///
/// In the seam's terms: every engine that reports statistics says how much
/// the store holds and takes, and what each space holds (``spaces``). An
/// engine of pages in a memory-mapped file (LMDB) adds its own figures:
/// ``pages`` (page size, map size, reader slots, what a compaction gives
/// back) and each space's B-tree (``Space/tree``).
public struct StoreStatistics: Sendable {
    /// One space of the store.
    public struct Space: Sendable {
        /// `meta`, `records`, `index`, `relationship`, `history`, or `other`.
        public var kind: String
        /// The entity, for records, indexes and relationships.
        public var entity: String?
        /// The index or relationship (with what the space holds of it:
        /// `author (references)`), or the space's name for `other`.
        public var part: String?
        /// Key/value pairs.
        public var entries: Int
        /// The bytes the space takes: its pages on a paged engine, its keys
        /// and values otherwise.
        public var bytes: Int
        /// The B-tree holding the space, on an engine of pages.
        public var tree: Tree?

        public init(kind: String, entity: String?, part: String?, entries: Int, bytes: Int, tree: Tree? = nil) {
            self.kind = kind
            self.entity = entity
            self.part = part
            self.entries = entries
            self.bytes = bytes
            self.tree = tree
        }
    }

    /// The shape of a space's B-tree, on an engine of pages.
    public struct Tree: Sendable, Hashable {
        /// The tree's depth.
        public var depth: Int
        /// Pages of the tree's inner nodes.
        public var branchPages: Int
        /// Pages of the tree's leaves.
        public var leafPages: Int
        /// Pages holding values too large for a leaf.
        public var overflowPages: Int
        /// Branch, leaf and overflow pages.
        public var totalPages: Int { branchPages + leafPages + overflowPages }

        public init(depth: Int, branchPages: Int, leafPages: Int, overflowPages: Int) {
            self.depth = depth
            self.branchPages = branchPages
            self.leafPages = leafPages
            self.overflowPages = overflowPages
        }
    }

    /// What an engine of pages in a memory-mapped file (LMDB) adds.
    public struct Pages: Sendable {
        /// The size of a page, in bytes.
        public var pageSize: Int
        /// The memory map's size: how large the file may grow before the map does.
        public var mapSize: Int
        /// Reader slots in the lock file.
        public var maxReaders: Int
        /// Reader slots ever used (the high-water mark).
        public var readersUsed: Int
        /// The reader slots in use.
        public var readers: [Reader]
        /// The size a compacted backup (`kura backup --compact`) would have.
        public var compactedBytes: Int

        public init(pageSize: Int, mapSize: Int, maxReaders: Int, readersUsed: Int, readers: [Reader], compactedBytes: Int) {
            self.pageSize = pageSize
            self.mapSize = mapSize
            self.maxReaders = maxReaders
            self.readersUsed = readersUsed
            self.readers = readers
            self.compactedBytes = compactedBytes
        }
    }

    /// A reader slot in use: a process holding a snapshot, or ready to.
    public struct Reader: Sendable, Hashable {
        /// The process.
        public var processIdentifier: Int
        /// The thread, as the engine shows it (hexadecimal).
        public var thread: String
        /// The snapshot's transaction ID, or `nil` between reads (the slot is kept for the thread).
        public var transactionID: Int?

        public init(processIdentifier: Int, thread: String, transactionID: Int?) {
            self.processIdentifier = processIdentifier
            self.thread = thread
            self.transactionID = transactionID
        }
    }

    /// Where the store is: its file, or its engine's location.
    public var path: String
    /// What the store takes on disk (0 for a store in memory).
    public var fileSize: Int
    /// The bytes in use: pages on a paged engine, keys and values otherwise.
    public var usedBytes: Int
    /// The last committed write's ID, where the engine numbers them.
    public var lastTransactionID: Int?
    /// Every space of the store: meta, records, indexes, relationships, history.
    public var spaces: [Space]
    /// The figures of an engine of pages (LMDB); `nil` on others.
    public var pages: Pages?

    public init(path: String, fileSize: Int, usedBytes: Int, lastTransactionID: Int?, spaces: [Space], pages: Pages? = nil) {
        self.path = path
        self.fileSize = fileSize
        self.usedBytes = usedBytes
        self.lastTransactionID = lastTransactionID
        self.spaces = spaces
        self.pages = pages
    }

    /// What a compaction would give back: the file's size less the
    /// compacted size (0 on an engine without pages).
    public var reclaimableBytes: Int { pages.map { max(0, fileSize - $0.compactedBytes) } ?? 0 }
}

extension PersistentStore {
    /// Size and use, the last transaction, and what every space of the
    /// store holds, each named for what it holds; on LMDB also the map,
    /// the reader slots and each space's B-tree.
    ///
    /// - Throws: ``StorageFailure/notSupported(_:)`` on an engine that
    ///   doesn't report them (see ``StatisticsReportingEngine``).
    public func statistics() throws -> StoreStatistics {
        var statistics = try capability((any StatisticsReportingEngine).self, for: "statistics").storeStatistics()
        statistics.spaces = classified(statistics.spaces)
        return statistics
    }

    /// `spaces` (named as the engine names them) with their kind, entity and
    /// part, in the model's order: meta, then each entity's records,
    /// indexes and relationships, then history.
    private func classified(_ spaces: [StoreStatistics.Space]) -> [StoreStatistics.Space] {
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
        return spaces.map { space in
            var space = space
            let name = space.part ?? ""
            (space.kind, space.entity, space.part) = known[name] ?? ("other", nil, name)
            return space
        }.sorted { lhs, rhs in
            let left = (entityOrder[lhs.entity ?? ""] ?? -1, order[lhs.kind] ?? 9, lhs.part ?? "")
            let right = (entityOrder[rhs.entity ?? ""] ?? -1, order[rhs.kind] ?? 9, rhs.part ?? "")
            return left < right
        }
    }

    /// Writes a consistent copy of the store to a new file at `path`, in a
    /// read transaction of its own, while other readers and writers carry
    /// on (LMDB's `mdb_env_copy2`). With `compacting`, free pages are left
    /// out and the rest renumbered, so the copy is as small as the data
    /// (``StoreStatistics/Pages/compactedBytes``).
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
