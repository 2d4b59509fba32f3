import Foundation
import KuraLMDB
import KuraTestSupport
import Testing

@Suite struct TransactionTests {
    struct Failure: Error {}

    @Test func aThrowInsideWriteLeavesNothingBehind() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn in try database.put([0], forKey: [0], in: txn) }
        #expect(throws: Failure.self) {
            try environment.write { txn throws in
                try database.put([1], forKey: [1], in: txn)
                try database.put([9], forKey: [0], in: txn)
                _ = try database.delete([0], in: txn)
                throw Failure()
            }
        }
        try environment.read { txn throws in
            #expect(try database.value(forKey: [0], in: txn) == [0])
            #expect(try database.value(forKey: [1], in: txn) == nil)
            #expect(try database.count(in: txn) == 1)
        }
    }

    @Test func aReaderKeepsItsSnapshotWhileAWriterCommits() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn in try database.put(Array("old".utf8), forKey: [1], in: txn) }

        try environment.read { txn throws in
            #expect(try database.value(forKey: [1], in: txn) == Array("old".utf8))
            // Another thread commits while this snapshot is open; it must not wait for us.
            let committed = DispatchSemaphore(value: 0)
            let failure = LockedBox<Error?>(nil)
            Thread.detachNewThread {
                do {
                    try environment.write { txn throws in
                        try database.put(Array("new".utf8), forKey: [1], in: txn)
                        try database.put([2], forKey: [2], in: txn)
                    }
                } catch {
                    failure.value = error
                }
                committed.signal()
            }
            #expect(committed.wait(timeout: .now() + 10) == .success, "the writer was blocked by a reader")
            #expect(failure.value == nil)
            #expect(try database.value(forKey: [1], in: txn) == Array("old".utf8))
            #expect(try database.value(forKey: [2], in: txn) == nil)
        }
        try environment.read { txn throws in
            #expect(try database.value(forKey: [1], in: txn) == Array("new".utf8))
            #expect(try database.value(forKey: [2], in: txn) == [2])
        }
    }

    @Test func aWriteTransactionReadsItsOwnUncommittedChanges() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        let seen = try environment.write { txn throws in
            try database.put([5], forKey: [5], in: txn)
            return try database.value(forKey: [5], in: txn)
        }
        #expect(seen == [5])
    }

    @Test func readTransactionsAreReusedWithoutLeakingReaderSlots() throws {
        let directory = try TemporaryDirectory()
        var options = Environment.Options()
        options.maxReaders = 4
        let environment = try Environment(path: directory.file("store.lmdb"), options: options)
        let database = try environment.createDatabase(named: "things")
        for index in 0..<1000 {
            try environment.write { txn in try database.put([UInt8(index % 256)], forKey: [UInt8(index % 256)], in: txn) }
            let value = try environment.read { txn in try database.value(forKey: [UInt8(index % 256)], in: txn) }
            #expect(value == [UInt8(index % 256)])
        }
        #expect(try environment.info().readersUsed <= 4)
    }

    @Test func writesInAReadTransactionAreRefusedByLMDB() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        #expect(throws: LMDBError.system(EACCES)) {
            try environment.read { txn in try database.put([1], forKey: [1], in: txn) }
        }
    }
}

/// A value shared with another thread, guarded by a lock.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
