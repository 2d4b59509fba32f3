#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CLMDB

/// What ``Environment/readCheckingStructure(databases:problemLimit:_:)`` found in the
/// pages of one snapshot.
public struct StructureReport: Sendable, Hashable {
    /// One database's tree as walked.
    public struct Database: Sendable, Hashable {
        /// The database's name; `nil` for the main (unnamed) database.
        public var name: String?
        /// True when every page of its tree is sound, so LMDB can read it safely.
        public var isIntact: Bool
        public var branchPages: Int
        public var leafPages: Int
        public var overflowPages: Int
        /// The entries (key–value pairs) found.
        public var entries: Int
    }

    /// The snapshot that was checked.
    public var transactionID: Int
    /// The size of a page, in bytes.
    public var pageSize: Int
    /// Every page of the snapshot, the two meta pages included.
    public var totalPages: Int
    /// Pages of the trees (the free list's own included).
    public var usedPages: Int
    /// Pages on the free list, ready for reuse.
    public var freePages: Int
    /// The main database first, then each named one.
    public var databases: [Database]
    /// What is wrong, one line each, at most the limit asked for.
    public var problems: [String] = []
    /// How many problems there are in all.
    public var problemCount = 0

    /// True when no problem was found.
    public var isIntact: Bool { problemCount == 0 }

    /// True when the tree of `name` (and the main database, through which
    /// LMDB finds it) is sound: reading it can't meet damaged pages.
    public func isIntact(database name: String?) -> Bool {
        guard let main = databases.first, main.name == nil, main.isIntact else { return false }
        guard let name else { return true }
        return databases.contains { $0.name == name && $0.isIntact }
    }
}

extension Environment {
    /// Reads a snapshot's pages from the file, checking their structure
    /// before anything walks them through the memory map, then runs `body`
    /// in the same read transaction with what was found.
    ///
    /// LMDB trusts its pages: a damaged page number, node offset or value size
    /// can make it read outside the map (a crash) or past the end of the file
    /// (`SIGBUS`). This check reads every page with `pread` instead, so damage
    /// becomes a line of ``StructureReport/problems``. Read only the databases
    /// the report calls intact (``StructureReport/isIntact(database:)``).
    ///
    /// ```swift
    /// try environment.readCheckingStructure { txn, report in
    ///     for problem in report.problems { print(problem) }
    ///     if report.isIntact(database: "names") { /* safe to read "names" */ }
    /// }
    /// ```
    ///
    /// - Complexity: O(pages): every page of the snapshot is read once.
    ///
    /// - Parameters:
    ///   - databases: Walk only these named databases (and the main one,
    ///     which names them); `nil` for every database, the free list, and a
    ///     check that every page is either used or free.
    ///   - problemLimit: How many problems to describe (all are counted).
    ///   - body: Runs in the checked snapshot, given its report.
    public func readCheckingStructure<Result>(
        databases: Set<String>? = nil, problemLimit: Int = 100,
        _ body: (borrowing Transaction, StructureReport) throws -> Result
    ) throws -> Result {
        let descriptor = try fileDescriptor()
        // The meta page naming this snapshot's trees is overwritten two
        // commits later: read it right after the snapshot begins, and begin
        // again in the rare case a writer got there first.
        for _ in 0..<100 {
            let outcome: Result? = try read { txn in
                guard let meta = try Self.metaPage(of: txn.id, descriptor: descriptor) else { return nil }
                var status = stat()
                guard fstat(descriptor, &status) == 0 else { throw LMDBError.system(errno) }
                var verifier = StructureVerifier(
                    descriptor: descriptor, fileSize: Int(status.st_size), meta: meta, problemLimit: problemLimit, only: databases)
                verifier.run()
                return try body(txn, verifier.report)
            }
            if let outcome { return outcome }
        }
        throw LMDBError.badTransaction
    }

    private func fileDescriptor() throws -> Int32 {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        var descriptor: Int32 = -1
        try LMDBError.check(mdb_env_get_fd(handle, &descriptor))
        return descriptor
    }

    /// The meta page whose transaction is `transactionID`, or `nil` when both
    /// meta pages moved on. A meta page that can't be read is no match.
    private static func metaPage(of transactionID: Int, descriptor: Int32) throws -> MetaPage? {
        var header = [UInt8](repeating: 0, count: 512)
        let got = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 512, 0) }
        guard got == 512 else { throw LMDBError.invalid }
        var pageSize = 0
        if let first = try? header.withUnsafeBytes({ try MetaPage($0, number: 0) }) { pageSize = first.pageSize }
        if pageSize < 512 || pageSize > 65536 || pageSize & (pageSize - 1) != 0 { pageSize = 4096 }
        for number in 0..<2 {
            var page = [UInt8](repeating: 0, count: 512)
            let read = page.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 512, off_t(number * pageSize)) }
            guard read == 512, let meta = try? page.withUnsafeBytes({ try MetaPage($0, number: UInt64(number)) }) else { continue }
            if meta.transactionID == UInt64(transactionID) && meta.pageSize == pageSize { return meta }
        }
        return nil
    }
}
