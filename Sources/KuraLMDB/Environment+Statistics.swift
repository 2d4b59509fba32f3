import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of an environment as a whole (`mdb_env_info`).
public struct EnvironmentInfo: Sendable, Hashable {
    /// The size of this process's memory map, in bytes.
    public var mapSize: Int
    /// The number of the last page in use; pages in use are `lastPageNumber + 1`.
    public var lastPageNumber: Int
    /// The ID of the last committed transaction.
    public var lastTransactionID: Int
    /// How many reader slots the lock file has.
    public var maxReaders: Int
    /// How many reader slots have ever been used (LMDB's high-water mark).
    public var readersUsed: Int
}

/// The shape of one database's B-tree (`mdb_stat`).
public struct DatabaseStatistics: Sendable, Hashable {
    /// The size of a page, in bytes.
    public var pageSize: Int
    /// The depth of the B-tree.
    public var depth: Int
    /// Internal (non-leaf) pages.
    public var branchPages: Int
    /// Leaf pages.
    public var leafPages: Int
    /// Overflow pages, used by values too large for a leaf page.
    public var overflowPages: Int
    /// The number of entries.
    public var entries: Int

    init(_ stat: MDB_stat) {
        pageSize = Int(stat.ms_psize)
        depth = Int(stat.ms_depth)
        branchPages = stat.ms_branch_pages
        leafPages = stat.ms_leaf_pages
        overflowPages = stat.ms_overflow_pages
        entries = stat.ms_entries
    }

    /// Every page the database uses.
    public var totalPages: Int { branchPages + leafPages + overflowPages }
}

extension Environment {
    /// Map size, last page and transaction, and reader slots.
    public func info() throws -> EnvironmentInfo {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        var info = MDB_envinfo()
        try LMDBError.check(mdb_env_info(handle, &info))
        return EnvironmentInfo(
            mapSize: info.me_mapsize,
            lastPageNumber: info.me_last_pgno,
            lastTransactionID: info.me_last_txnid,
            maxReaders: Int(info.me_maxreaders),
            readersUsed: Int(info.me_numreaders))
    }

    /// The statistics of the main (unnamed) database, whose entries are the
    /// named databases.
    public func statistics() throws -> DatabaseStatistics {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        var stat = MDB_stat()
        try LMDBError.check(mdb_env_stat(handle, &stat))
        return DatabaseStatistics(stat)
    }

    /// The size of the store file on disk, in bytes.
    public func fileSize() throws -> Int {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        var descriptor: Int32 = -1
        try LMDBError.check(mdb_env_get_fd(handle, &descriptor))
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw LMDBError.system(errno) }
        return Int(status.st_size)
    }

    /// The largest key LMDB accepts in this environment, in bytes (511).
    public var maxKeySize: Int { Int(mdb_env_get_maxkeysize(handle)) }

    /// Clears the reader slots of processes that died without closing their
    /// transactions (`mdb_reader_check`), so their old snapshots no longer keep
    /// pages from being reused. Returns how many slots were cleared.
    @discardableResult
    public func clearStaleReaders() throws -> Int {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        var dead: Int32 = 0
        try LMDBError.check(mdb_reader_check(handle, &dead))
        return Int(dead)
    }

    /// The reader table as LMDB prints it (`mdb_reader_list`): a header line,
    /// then one line per active reader with its process, thread and snapshot.
    public func readerTable() throws -> [String] {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        final class Lines { var lines: [String] = [] }
        let collected = Lines()
        let code = withExtendedLifetime(collected) {
            mdb_reader_list(handle, { message, context in
                guard let message, let context else { return 0 }
                let lines = Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue()
                var line = String(cString: message)
                while line.last?.isNewline == true { line.removeLast() }
                lines.lines.append(line)
                return 0
            }, Unmanaged.passUnretained(collected).toOpaque())
        }
        guard code >= 0 else { throw LMDBError(code: code) }
        return collected.lines
    }
}

extension Database {
    /// The B-tree statistics of this database, as of the transaction's snapshot.
    /// - Complexity: O(1).
    public func statistics(in txn: borrowing Transaction) throws -> DatabaseStatistics {
        var stat = MDB_stat()
        try txn.check(mdb_stat(txn.pointer, handle, &stat))
        return DatabaseStatistics(stat)
    }
}

extension Environment {
    /// Every named database and its statistics, in one read transaction.
    public func namedDatabaseStatistics() throws -> [(name: String, statistics: DatabaseStatistics)] {
        try read { txn in
            guard let main = try txn.openDatabase(named: nil) else { return [] }
            var names: [String] = []
            try main.forEach(in: txn) { entry in
                names.append(String(decoding: entry.key, as: UTF8.self))
                return true
            }
            var result: [(name: String, statistics: DatabaseStatistics)] = []
            for name in names {
                // A key of the main database that isn't a database can't be opened: skip it.
                guard let database = try? txn.openDatabase(named: name) else { continue }
                result.append((name, try database.statistics(in: txn)))
            }
            return result
        }
    }

    /// The bytes a compacted copy (``copy(to:compacting:)``) would take:
    /// the two meta pages, the main database and every named database's
    /// pages, without the free ones.
    public func compactedSize() throws -> Int {
        let main = try statistics()
        let named = try namedDatabaseStatistics()
        return (2 + main.totalPages + named.reduce(0) { $0 + $1.statistics.totalPages }) * main.pageSize
    }
}
