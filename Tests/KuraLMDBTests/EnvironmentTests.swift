import Foundation
import KuraLMDB
import KuraTestSupport
import Testing

@Suite struct EnvironmentTests {
    @Test func aNewEnvironmentIsOneFileWithALockFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        let environment = try Environment(path: path)
        _ = try environment.createDatabase(named: "things")
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.fileExists(atPath: path + "-lock"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["store.lmdb", "store.lmdb-lock"])
    }

    @Test(arguments: [1, 126, 500])
    func theLockFileIsReservedAtTheSizeLMDBGivesIt(readers: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        let environment = try Environment(path: path, options: Environment.Options(maxReaders: readers))
        let size = try FileManager.default.attributesOfItem(atPath: path + "-lock")[.size] as? Int
        // LMDB adopts a larger lock file's size as more reader slots: the
        // reservation must be exactly what it would have made.
        #expect(try environment.info().maxReaders == readers)
        #expect(size == readers * 64 + 128, "the lock file LMDB makes on x86-64 and arm64 with 64-byte cache lines")
        var status = stat()
        #expect(stat(path + "-lock", &status) == 0)
        #expect(Int(status.st_blocks) * 512 >= size ?? 0, "its blocks are allocated, not a sparse file")
    }

    @Test func aFileOfRandomBytesIsNotAnLMDBFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("random.lmdb")
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<65536).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: EnvironmentError.cannotOpen(path: path, reason: .invalid)) {
            try Environment(path: path)
        }
        let error = EnvironmentError.cannotOpen(path: path, reason: .invalid)
        #expect(error.description.contains("not an LMDB file"))
        #expect(!FileManager.default.fileExists(atPath: path + "-lock"), "a failed open leaves no lock file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes), "the file is untouched")
    }

    @Test func anEmptyFileIsRefusedRatherThanInitialized() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("empty.lmdb")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: EnvironmentError.emptyFile(path: path)) {
            try Environment(path: path)
        }
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 0)
    }

    @Test func aPathInAMissingDirectoryNamesTheSystemError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("missing/store.lmdb")
        #expect(throws: EnvironmentError.cannotOpen(path: path, reason: .system(ENOENT))) {
            try Environment(path: path)
        }
        #expect(EnvironmentError.cannotOpen(path: path, reason: .system(ENOENT)).description
            == "cannot open '\(path)': No such file or directory")
    }

    @Test func aTruncatedFileIsRefusedBeforeAnyPageIsRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        do {
            let environment = try Environment(path: path)
            let database = try environment.createDatabase(named: "things")
            try environment.write { txn throws in
                for index in 0..<2000 {
                    try database.put([UInt8](repeating: 7, count: 100), forKey: Array("key\(index)".utf8), in: txn)
                }
            }
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(truncate(path, off_t(size / 2)) == 0)
        #expect(throws: EnvironmentError.self) { try Environment(path: path) }
        do {
            _ = try Environment(path: path)
        } catch let EnvironmentError.truncated(_, expected, actual) {
            #expect(expected == size)
            #expect(actual == size / 2)
        }
    }

    @Test func openingTheSameFileTwiceInOneProcessIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        let first = try Environment(path: path)
        #expect(throws: EnvironmentError.alreadyOpen(path: path)) { try Environment(path: path) }
        #expect(throws: EnvironmentError.self) { try Environment(path: directory.path + "/./store.lmdb") }
        first.close()
        let again = try Environment(path: path)
        _ = try again.info()
    }

    @Test func aReadOnlyEnvironmentReadsButRefusesWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        do {
            let environment = try Environment(path: path)
            let database = try environment.createDatabase(named: "things")
            try environment.write { txn in try database.put([1], forKey: [1], in: txn) }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let readOnly = try Environment(path: path, options: .init(flags: [.readOnly]))
        let database = try #require(try readOnly.database(named: "things"))
        #expect(try readOnly.read { txn in try database.value(forKey: [1], in: txn) } == [1])
        #expect(throws: EnvironmentError.readOnly(path: path)) {
            try readOnly.write { txn in try database.put([2], forKey: [2], in: txn) }
        }
        #expect(try readOnly.database(named: "absent") == nil)
        readOnly.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aClosedEnvironmentThrowsInsteadOfCrashing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        let environment = try Environment(path: path)
        let database = try environment.createDatabase(named: "things")
        environment.close()
        #expect(throws: EnvironmentError.closed(path: path)) {
            try environment.read { txn in try database.value(forKey: [1], in: txn) }
        }
        #expect(throws: EnvironmentError.closed(path: path)) {
            try environment.write { txn in try database.put([1], forKey: [1], in: txn) }
        }
        environment.close()
    }

    @Test func errorsCarryLMDBsOwnDescriptionAndMatchByCase() throws {
        #expect(LMDBError(code: -30798) == .notFound)
        #expect(LMDBError.mapFull.description.contains("MDB_MAP_FULL"))
        #expect(LMDBError.system(ENOSPC).isOutOfSpace)
        #expect(LMDBError(code: LMDBError.badDatabase.code) == .badDatabase)
        do {
            throw LMDBError.keyExists
        } catch LMDBError.keyExists {
            // matched by case, as documented
        } catch {
            Issue.record("did not match: \(error)")
        }
    }
}
