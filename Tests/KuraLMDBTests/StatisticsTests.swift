import Foundation
import KuraLMDB
import KuraTestSupport
import Testing

@Suite struct StatisticsTests {
    @Test func statisticsDescribeTheTreeAndCountEntries() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn throws in
            for index in 0..<5000 {
                try database.put([UInt8](repeating: 1, count: 100), forKey: Array("key \(index)".utf8), in: txn)
            }
            try database.put([UInt8](repeating: 2, count: 20_000), forKey: Array("large".utf8), in: txn)
        }
        let statistics = try environment.read { txn in try database.statistics(in: txn) }
        #expect(statistics.entries == 5001)
        #expect(statistics.depth >= 2)
        #expect(statistics.branchPages >= 1)
        #expect(statistics.leafPages > 10)
        #expect(statistics.overflowPages >= 4)
        #expect(statistics.pageSize == 4096)
        let info = try environment.info()
        #expect(info.lastTransactionID == 2)
        #expect(info.lastPageNumber > statistics.totalPages)
        #expect(info.maxReaders == 126)
    }

    @Test func aCompactingCopyHoldsTheSameDataInLessSpace() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn throws in
            for index in 0..<3000 { try database.put([UInt8](repeating: 1, count: 200), forKey: Array("k\(index)".utf8), in: txn) }
        }
        try environment.write { txn throws in
            for index in 0..<2900 { try database.delete(Array("k\(index)".utf8), in: txn) }
        }
        let copyPath = directory.file("copy.lmdb")
        try environment.copy(to: copyPath)
        let copy = try Environment(path: copyPath)
        let copied = try #require(try copy.database(named: "things"))
        #expect(try copy.read { txn in try copied.count(in: txn) } == 100)
        #expect(try copy.fileSize() < environment.fileSize())
        #expect(throws: LMDBError.system(EEXIST)) { try environment.copy(to: copyPath) }
    }

    @Test func staleReadersOfAKilledProcessAreCleared() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        let environment = try Environment(path: path)
        _ = try environment.createDatabase(named: "shared")
        #expect(try environment.clearStaleReaders() == 0)
        let child = try Helper.start(["lmdb-hold-reader", path])
        // Wait until the child has its reader slot, then kill it.
        var holding = false
        for _ in 0..<500 where !holding {
            holding = try environment.readerTable().contains { $0.contains("\(child.processIdentifier)") }
            if !holding { usleep(10_000) }
        }
        #expect(holding, "the child never took a reader slot")
        child.kill(SIGKILL)
        try child.wait()
        #expect(try environment.clearStaleReaders() == 1)
        #expect(try environment.readerTable().contains { $0.contains("\(child.processIdentifier)") } == false)
    }
}
