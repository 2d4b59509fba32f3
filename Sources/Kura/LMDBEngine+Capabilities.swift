import KuraLMDB
import KuraCore

// What only a file has: the LMDB engine's answers to the store's
// capability protocols (page checks, copies, statistics, reader slots).

extension LMDBEngine: StructureCheckingEngine {
    func performStructureCheckedRead(
        problemLimit: Int, _ body: (any StorageTransaction, StoreFileStructure) throws -> Void
    ) throws {
        try translatingErrors {
            try environment.readCheckingStructure(problemLimit: problemLimit) { txn, report in
                let structure = StoreFileStructure(
                    pageSize: report.pageSize, totalPages: report.totalPages, usedPages: report.usedPages,
                    freePages: report.freePages, problems: report.problems, problemCount: report.problemCount,
                    isSpaceTableIntact: report.isIntact(database: nil),
                    intactSpaces: Set(report.databases.compactMap { $0.isIntact ? $0.name : nil }))
                try body(LMDBTransaction(txn.unsafeHandle), structure)
            }
        }
    }
}

extension LMDBEngine: StoreCopyingEngine {
    func copyStore(to path: String, compacting: Bool) throws {
        // Errors name the copy, which is what failed to be written.
        try storageErrors(path) { try environment.copy(to: path, compacting: compacting) }
    }
}

extension LMDBEngine: StatisticsReportingEngine {
    func storeStatistics() throws -> StoreStatistics {
        try translatingErrors {
            let info = try environment.info()
            let main = try environment.statistics()
            let spaces = try environment.namedDatabaseStatistics().map { name, stat in
                let tree = StoreStatistics.Tree(depth: stat.depth, branchPages: stat.branchPages, leafPages: stat.leafPages,
                                                overflowPages: stat.overflowPages)
                return StoreStatistics.Space(kind: "other", entity: nil, part: name, entries: stat.entries,
                                             bytes: tree.totalPages * main.pageSize, tree: tree)
            }
            let readers = try environment.readerTable().dropFirst().compactMap { line -> StoreStatistics.Reader? in
                let fields = line.split(separator: " ")
                guard fields.count >= 3, let process = Int(fields[0]) else { return nil }
                return StoreStatistics.Reader(processIdentifier: process, thread: String(fields[1]), transactionID: Int(fields[2]))
            }
            let pages = 2 + main.totalPages + spaces.reduce(0) { $0 + ($1.tree?.totalPages ?? 0) }
            return StoreStatistics(
                path: path, fileSize: try environment.fileSize(), usedBytes: (info.lastPageNumber + 1) * main.pageSize,
                lastTransactionID: info.lastTransactionID, spaces: spaces,
                pages: StoreStatistics.Pages(pageSize: main.pageSize, mapSize: info.mapSize, maxReaders: info.maxReaders,
                                             readersUsed: info.readersUsed, readers: readers, compactedBytes: pages * main.pageSize))
        }
    }
}

extension LMDBEngine: ReaderSlotEngine {
    var isReadingWithoutLock: Bool { environment.options.flags.contains(.noLock) }

    func clearStaleReaders() throws -> Int {
        try translatingErrors { try environment.clearStaleReaders() }
    }
}
