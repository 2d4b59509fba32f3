import Foundation
import KuraLMDB
import KuraTestSupport
import Testing

@Suite struct MapGrowthTests {
    /// A new environment with a 64 KiB map that may grow to 4 GiB, and its
    /// database `shared` (what `lmdb-grow` writes to); the directory holds the file.
    static func sharedStore() throws -> (TemporaryDirectory, String, Environment, Database) {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        let environment = try Environment(path: path, options: Environment.Options(mapSize: 64 << 10, maxMapSize: 4 << 30))
        return (directory, path, environment, try environment.createDatabase(named: "shared"))
    }

    /// The value stored under `index`: its index in the first 8 bytes, then a
    /// byte derived from the index, so a value read from the wrong place shows.
    static func value(_ index: Int, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: index &* 7 &+ 1), count: size)
        withUnsafeBytes(of: UInt64(index).bigEndian) { header in
            for (offset, byte) in header.enumerated() where offset < size { bytes[offset] = byte }
        }
        return bytes
    }

    static func key(_ prefix: String, _ index: Int) -> [UInt8] {
        Array(prefix.utf8) + withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
    }

    @Test func theMapGrowsFrom64KiBToHoldMoreThan200MBAndEveryValueReadsBack() throws {
        let directory = try TemporaryDirectory()
        let options = Environment.Options(mapSize: 64 << 10, maxMapSize: 2 << 30)
        let environment = try Environment(path: directory.file("store.lmdb"), options: options)
        let database = try environment.createDatabase(named: "big")
        let valueSize = 64 << 10
        let count = 3300  // 3300 × 64 KiB ≈ 216 MB
        #expect(try environment.info().mapSize == 64 << 10)
        var index = 0
        while index < count {
            let batch = index..<min(index + 150, count)
            try environment.write { txn throws in
                for item in batch {
                    try database.put(Self.value(item, size: valueSize), forKey: Self.key("v", item), in: txn)
                }
            }
            index = batch.upperBound
        }
        let info = try environment.info()
        #expect(info.mapSize > 200_000_000)
        #expect(info.mapSize <= 2 << 30)
        #expect(try environment.fileSize() > 200_000_000)
        try environment.read { txn throws in
            #expect(try database.count(in: txn) == count)
            for item in 0..<count {
                let expected = Self.value(item, size: valueSize)
                let matches = try database.withValue(forKey: Self.key("v", item), in: txn) { bytes in
                    expected.withUnsafeBytes { bytes.count == $0.count && memcmp(bytes.baseAddress!, $0.baseAddress!, $0.count) == 0 }
                }
                #expect(matches == true, "value \(item)")
            }
        }
    }

    @Test func aWriteThroughACursorThatFillsTheMapGrowsItAndIsRetried() throws {
        let directory = try TemporaryDirectory()
        let options = Environment.Options(mapSize: 64 << 10, maxMapSize: 64 << 20)
        let environment = try Environment(path: directory.file("store.lmdb"), options: options)
        let database = try environment.createDatabase(named: "things")
        let keys = (0..<8).map { Self.key("k", $0) }
        try environment.write { txn throws in for key in keys { try database.put([0], forKey: key, in: txn) } }
        // Eight values of 1 MiB replaced through a cursor: far past the 64 KiB map.
        try environment.write { txn throws in
            try database.withCursor(in: txn) { cursor throws in
                for (index, key) in keys.enumerated() {
                    _ = try cursor.seek(exactly: key)
                    try Self.value(index, size: 1 << 20).withUnsafeBytes { value in
                        try key.withUnsafeBytes { try cursor.replaceCurrent(value, key: $0) }
                    }
                }
            }
        }
        #expect(try environment.info().mapSize >= 8 << 20)
        try environment.read { txn throws in
            for (index, key) in keys.enumerated() {
                #expect(try database.value(forKey: key, in: txn) == Self.value(index, size: 1 << 20))
            }
        }
    }

    @Test func aWritePastTheMaximumThrowsMapFullWritesNothingAndSmallerWritesStillWork() throws {
        let directory = try TemporaryDirectory()
        let options = Environment.Options(mapSize: 64 << 10, maxMapSize: 1 << 20)
        let environment = try Environment(path: directory.file("store.lmdb"), options: options)
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn in try database.put([1], forKey: [1], in: txn) }
        var attempts = 0
        #expect(throws: LMDBError.mapFull) {
            try environment.write { txn throws in
                attempts += 1
                for index in 0..<64 {
                    try database.put([UInt8](repeating: 1, count: 32 << 10), forKey: Self.key("big", index), in: txn)
                }
            }
        }
        #expect(attempts > 1, "the write should have been retried after growing")
        #expect(try environment.info().mapSize == 1 << 20)
        try environment.read { txn throws in
            #expect(try database.count(in: txn) == 1)
        }
        try environment.write { txn in try database.put([2], forKey: [2], in: txn) }
        #expect(try environment.read { txn in try database.count(in: txn) } == 2)
    }

    @Test func aWriteThatWrapsTheMapFullErrorIsStillRetriedAfterGrowing() throws {
        struct Wrapped: Error {}
        let directory = try TemporaryDirectory()
        let options = Environment.Options(mapSize: 64 << 10, maxMapSize: 64 << 20)
        let environment = try Environment(path: directory.file("store.lmdb"), options: options)
        let database = try environment.createDatabase(named: "things")
        try environment.write { txn throws in
            for index in 0..<200 {
                do {
                    try database.put([UInt8](repeating: 3, count: 4096), forKey: Self.key("w", index), in: txn)
                } catch {
                    throw Wrapped()
                }
            }
        }
        #expect(try environment.read { txn in try database.count(in: txn) } == 200)
    }

    @Test func growingTheMapInsideAnotherTransactionOfTheSameThreadIsAnErrorNotADeadlock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.lmdb")
        let options = Environment.Options(mapSize: 64 << 10, maxMapSize: 64 << 20)
        let environment = try Environment(path: path, options: options)
        let database = try environment.createDatabase(named: "things")
        #expect(throws: EnvironmentError.cannotGrowWithOpenTransaction(path: path)) {
            try environment.read { _ throws in
                try environment.write { txn throws in
                    for index in 0..<200 {
                        try database.put([UInt8](repeating: 3, count: 4096), forKey: Self.key("n", index), in: txn)
                    }
                }
            }
        }
        #expect(try environment.read { txn in try database.count(in: txn) } == 0)
    }

    @Test func anotherProcessGrowsTheMapWhileThisOneKeepsReadingAndWriting() throws {
        let (directory, path, environment, database) = try MapGrowthTests.sharedStore()
        _ = directory
        let childCount = 300
        let childSize = 256 << 10  // the child writes ~75 MB

        let child = try Helper.start(["lmdb-grow", path, "\(childCount)", "\(childSize)"])
        var written = 0
        var childValuesSeen = 0
        while child.isRunning || written < 50 {
            try environment.write { txn throws in
                try database.put(Array("parent \(written)".utf8), forKey: Self.key("p", written), in: txn)
            }
            written += 1
            childValuesSeen = try environment.read { txn throws in
                var seen = 0
                try database.forEach(in: txn, range: .prefix(Array("g".utf8))) { entry in
                    let index = Int(entry.key.dropFirst().reduce(0) { $0 << 8 | UInt32($1) })
                    #expect(entry.value.count == childSize)
                    #expect(entry.value.last == UInt8(truncatingIfNeeded: index &* 7 &+ 1))
                    seen += 1
                    return true
                }
                return seen
            }
        }
        let report = String(decoding: child.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        let termination = try child.wait()
        #expect(termination == .exited(0), "child: \(report)")
        #expect(report.hasPrefix("wrote \(childCount)"))
        #expect(childValuesSeen > 0)

        try environment.read { txn throws in
            #expect(try database.count(in: txn) == childCount + written)
            for index in 0..<written {
                #expect(try database.value(forKey: Self.key("p", index), in: txn) == Array("parent \(index)".utf8))
            }
            for index in 0..<childCount {
                let value = try #require(try database.value(forKey: Self.key("g", index), in: txn))
                #expect(value == Self.value(index, size: childSize), "child value \(index)")
            }
        }
        #expect(try environment.info().mapSize >= childCount * childSize)
    }
}

@Suite struct MapGrowthReaderTests {
    @Test func aProcessThatOnlyReadsAdoptsTheMapAnotherProcessGrew() throws {
        let (directory, path, environment, database) = try MapGrowthTests.sharedStore()
        _ = directory
        let childCount = 200
        let childSize = 256 << 10  // ~50 MB: the child's map doubles about ten times

        let child = try Helper.start(["lmdb-grow", path, "\(childCount)", "\(childSize)"])
        var reads = 0
        var seen = 0
        // Only reads here: every snapshot past this process's map must be adopted by a read.
        while child.isRunning || seen < childCount {
            seen = try environment.read { txn in try database.count(in: txn) }
            reads += 1
        }
        #expect(try child.wait() == .exited(0))
        #expect(seen == childCount)
        #expect(try environment.info().mapSize >= childCount * childSize)
        try environment.read { txn throws in
            for index in stride(from: 0, to: childCount, by: 17) {
                let value = try #require(try database.value(forKey: MapGrowthTests.key("g", index), in: txn))
                #expect(value == MapGrowthTests.value(index, size: childSize))
            }
        }
        #expect(reads > 1)
    }

    @Test func aNestedReadAfterAnotherProcessGrewTheMapReadsTheEnclosingSnapshot() throws {
        let (directory, path, environment, database) = try MapGrowthTests.sharedStore()
        _ = directory
        try environment.read { outer throws in
            #expect(try database.count(in: outer) == 0)
            // Another process grows the map far past this one's while this
            // thread holds a snapshot, so the map can't be adopted now.
            let child = try Helper.start(["lmdb-grow", path, "40", "\(256 << 10)"])
            #expect(try child.wait() == .exited(0))
            let nested = try environment.read { txn in try database.count(in: txn) }
            #expect(nested == 0, "the nested read sees the enclosing read's snapshot")
        }
        #expect(try environment.read { txn in try database.count(in: txn) } == 40)
        #expect(try environment.info().mapSize >= 40 * (256 << 10))
    }

    /// Investigating the outside suite's unconfirmed report (a reader got
    /// objectNotFound for an object the history it had just read inserted):
    /// a nested read whose map must grow fell back on the enclosing read's
    /// snapshot even when a read of the process had seen a newer one. Reads
    /// now never go back in time: such a read is an error instead.
    @Test func aNestedReadNeverFallsBackOnASnapshotOlderThanOneAlreadySeen() throws {
        let (directory, path, environment, database) = try MapGrowthTests.sharedStore()
        _ = directory
        try environment.read { outer throws in
            #expect(try database.count(in: outer) == 0)
            // Another process writes (the map still fits): a nested read sees it.
            #expect(try Helper.start(["lmdb-grow", path, "1", "16"]).wait() == .exited(0))
            #expect(try environment.read { txn in try database.count(in: txn) } == 1)
            // Then it grows the map: the nested read can't begin, and the
            // enclosing snapshot is older than the one just seen.
            #expect(try Helper.start(["lmdb-grow", path, "40", "\(256 << 10)"]).wait() == .exited(0))
            #expect(throws: EnvironmentError.cannotGrowWithOpenTransaction(path: path)) {
                try environment.read { txn in try database.count(in: txn) }
            }
        }
        #expect(try environment.read { txn in try database.count(in: txn) } == 40)
    }
}
