import Foundation
import KuraLMDB
import KuraTestSupport
import Testing

@Suite struct DatabaseTests {
    @Test func getOfAMissingKeyIsNilNotAnError() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.read { txn throws in
            #expect(try database.value(forKey: [42], in: txn) == nil)
            #expect(try database.withValue(forKey: [42], in: txn) { _ in 1 } == nil)
            #expect(try database.contains([42], in: txn) == false)
        }
    }

    @Test func borrowedValuesAreReadWithoutCopying() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        let value = (0..<1000).map { UInt8($0 % 251) }
        try environment.write { txn in try database.put(value, forKey: [1], in: txn) }
        let sum = try environment.read { txn throws in
            try database.withValue(forKey: [1], in: txn) { bytes in bytes.reduce(0) { $0 + Int($1) } }
        }
        #expect(sum == value.reduce(0) { $0 + Int($1) })
    }

    @Test func noOverwriteRefusesAnExistingKeyAndKeepsTheOldValue() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn in try database.put([1], forKey: [1], in: txn, flags: .noOverwrite) }
        #expect(throws: LMDBError.keyExists) {
            try environment.write { txn in try database.put([2], forKey: [1], in: txn, flags: .noOverwrite) }
        }
        #expect(try environment.read { txn in try database.value(forKey: [1], in: txn) } == [1])
    }

    @Test func appendAcceptsAscendingKeysAndRefusesOthers() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn throws in
            for key in 1...100 as ClosedRange<UInt8> {
                try database.put([key], forKey: [key], in: txn, flags: .append)
            }
        }
        #expect(throws: LMDBError.keyExists) {
            try environment.write { txn in try database.put([0], forKey: [50], in: txn, flags: .append) }
        }
        #expect(try environment.read { txn in try database.count(in: txn) } == 100)
    }

    @Test func deleteReportsWhetherTheKeyWasThere() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn throws in
            try database.put([1], forKey: [1], in: txn)
            #expect(try database.delete([1], in: txn))
            #expect(try database.delete([1], in: txn) == false)
        }
    }

    @Test func anEmptyKeyOrAKeyPastTheLimitIsABadValueSize() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        #expect(environment.maxKeySize == 511)
        #expect(throws: LMDBError.badValueSize) {
            try environment.write { txn in try database.put([1], forKey: [], in: txn) }
        }
        #expect(throws: LMDBError.badValueSize) {
            try environment.write { txn in try database.put([1], forKey: [UInt8](repeating: 1, count: 512), in: txn) }
        }
    }

    @Test func namedDatabasesAreSeparateAndSurviveReopening() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        do {
            let environment = try Environment(path: path)
            try environment.write { txn throws in
                let first = try txn.createDatabase(named: "first")
                let second = try txn.createDatabase(named: "second")
                try first.put([1], forKey: [0], in: txn)
                try second.put([2], forKey: [0], in: txn)
            }
        }
        let environment = try Environment(path: path)
        let first = try #require(try environment.database(named: "first"))
        let second = try #require(try environment.database(named: "second"))
        try environment.read { txn throws in
            #expect(try first.value(forKey: [0], in: txn) == [1])
            #expect(try second.value(forKey: [0], in: txn) == [2])
        }
        #expect(try environment.statistics().entries == 2)
    }

    @Test func tooManyNamedDatabasesIsAClearError() throws {
        let directory = try TemporaryDirectory()
        var options = Environment.Options()
        options.maxDatabases = 2
        let environment = try Environment(path: directory.file("store.lmdb"), options: options)
        _ = try environment.createDatabase(named: "a")
        _ = try environment.createDatabase(named: "b")
        #expect(throws: LMDBError.databasesFull) { try environment.createDatabase(named: "c") }
    }

    @Test func removeAllEmptiesTheDatabaseAndDropDeletesIt() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn throws in
            for key in 0..<10 as Range<UInt8> { try database.put([key], forKey: [key], in: txn) }
        }
        try environment.write { txn in try database.removeAll(in: txn) }
        #expect(try environment.read { txn in try database.count(in: txn) } == 0)
        try environment.write { txn in try database.drop(in: txn) }
        #expect(try environment.database(named: "things") == nil)
    }
}
