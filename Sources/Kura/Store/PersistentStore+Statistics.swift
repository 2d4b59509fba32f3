import KuraLMDB

/// The state of a store's file and LMDB databases, for `kura stats`.
public struct StoreStatistics: Sendable {
    /// One LMDB database of the store.
    public struct DatabaseInfo: Sendable {
        /// `meta`, `records`, or `index`.
        public var kind: String
        /// The entity, for records and indexes.
        public var entity: String?
        /// The index, for indexes.
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
    /// The live readers, one line each, as LMDB lists them.
    public var readers: [String]
    /// Every database of the store: meta, records and indexes.
    public var databases: [DatabaseInfo]
}

extension PersistentStore {
    /// Map size and use, file size, last transaction, readers, and the
    /// B-tree shape of every database of the store.
    public func statistics() throws -> StoreStatistics {
        try storageErrors(path) {
            let info = try environment.info()
            let main = try environment.statistics()
            var listed: [(Database, String, String?, String?)] = [(meta, "meta", nil, nil)]
            for entity in model.entities {
                let tables = tables(for: entity)
                listed.append((tables.records, "records", entity.name, nil))
                for index in tables.indexes {
                    listed.append((index.database, "index", entity.name, index.description.name))
                }
            }
            let databases: [StoreStatistics.DatabaseInfo] = try environment.read { txn in
                var databases: [StoreStatistics.DatabaseInfo] = []
                for (database, kind, entity, index) in listed {
                    let stat = try database.statistics(in: txn)
                    databases.append(.init(
                        kind: kind, entity: entity, index: index, depth: stat.depth, branchPages: stat.branchPages,
                        leafPages: stat.leafPages, overflowPages: stat.overflowPages, entries: stat.entries))
                }
                return databases
            }
            let readers = try environment.readerTable()
            return StoreStatistics(
                path: path, fileSize: try environment.fileSize(), mapSize: info.mapSize,
                usedBytes: (info.lastPageNumber + 1) * main.pageSize, pageSize: main.pageSize,
                lastTransactionID: info.lastTransactionID, maxReaders: info.maxReaders, readersUsed: info.readersUsed,
                readers: readers.count > 1 ? Array(readers.dropFirst()) : [], databases: databases)
        }
    }

    /// Clears the reader slots of processes that died holding a read
    /// transaction, and returns how many. A writer does this by itself too.
    @discardableResult
    public func clearStaleReaders() throws -> Int {
        try storageErrors(path) { try environment.clearStaleReaders() }
    }
}
