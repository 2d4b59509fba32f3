import Foundation
import KuraLMDB
import KuraTestSupport
import Testing

@Suite struct IterationTests {
    /// Random keys of 1 to 4 bytes drawn from a small alphabet, so prefixes and
    /// equal-prefix keys of different lengths are common.
    static func randomKeys(count: Int, seed: UInt64) -> [[UInt8]] {
        var generator = SplitMix64(seed: seed)
        var keys = Set<[UInt8]>()
        while keys.count < count {
            let length = Int.random(in: 1...4, using: &generator)
            keys.insert((0..<length).map { _ in [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF].randomElement(using: &generator)! })
        }
        return Array(keys)
    }

    static func memcmpOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.lexicographicallyPrecedes(b)
    }

    func store(_ keys: [[UInt8]], in directory: TemporaryDirectory) throws -> (Environment, Database) {
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "keys")
        try environment.write { txn throws in
            for key in keys { try database.put(key + [0xAA], forKey: key, in: txn) }
        }
        return (environment, database)
    }

    func collect(_ environment: Environment, _ database: Database, _ range: KeyRange, _ direction: IterationDirection) throws -> [[UInt8]] {
        try environment.read { txn throws in
            var keys: [[UInt8]] = []
            try database.forEach(in: txn, range: range, direction: direction) { entry in
                #expect(Array(entry.value) == Array(entry.key) + [0xAA])
                keys.append(Array(entry.key))
                return true
            }
            return keys
        }
    }

    @Test func keysComeBackInMemcmpOrderShorterFirst() throws {
        let directory = try TemporaryDirectory()
        let keys = Self.randomKeys(count: 500, seed: 1)
        let (environment, database) = try store(keys.shuffled(), in: directory)
        let forward = try collect(environment, database, .all, .forward)
        #expect(forward == keys.sorted(by: Self.memcmpOrder))
        #expect(try collect(environment, database, .all, .reverse) == forward.reversed())
        #expect(Self.memcmpOrder([0x01], [0x01, 0x00]))
    }

    @Test func rangeScansMatchABruteForceFilterInBothDirections() throws {
        let directory = try TemporaryDirectory()
        let keys = Self.randomKeys(count: 300, seed: 2)
        let sorted = keys.sorted(by: Self.memcmpOrder)
        let (environment, database) = try store(keys, in: directory)
        var generator = SplitMix64(seed: 3)
        let probes = Self.randomKeys(count: 60, seed: 4) + [[0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]
        for _ in 0..<400 {
            let lower = Bool.random(using: &generator) ? KeyRange.Bound(probes.randomElement(using: &generator)!, isInclusive: .random(using: &generator)) : nil
            let upper = Bool.random(using: &generator) ? KeyRange.Bound(probes.randomElement(using: &generator)!, isInclusive: .random(using: &generator)) : nil
            let range = KeyRange(lower: lower, upper: upper)
            let expected = sorted.filter { key in
                let aboveLower = lower.map { Self.memcmpOrder($0.key, key) || ($0.isInclusive && $0.key == key) } ?? true
                let belowUpper = upper.map { Self.memcmpOrder(key, $0.key) || ($0.isInclusive && $0.key == key) } ?? true
                return aboveLower && belowUpper
            }
            #expect(try collect(environment, database, range, .forward) == expected, "forward \(range)")
            #expect(try collect(environment, database, range, .reverse) == expected.reversed(), "reverse \(range)")
        }
    }

    @Test func prefixScansFindExactlyTheKeysWithThatPrefix() throws {
        let directory = try TemporaryDirectory()
        let keys = Self.randomKeys(count: 300, seed: 5)
        let sorted = keys.sorted(by: Self.memcmpOrder)
        let (environment, database) = try store(keys, in: directory)
        for prefix in [[0x00], [0x7F], [0xFF], [0xFF, 0xFF], [0x01, 0x80], [0xFF, 0xFF, 0xFF]] as [[UInt8]] {
            let expected = sorted.filter { $0.starts(with: prefix) }
            #expect(try collect(environment, database, .prefix(prefix), .forward) == expected, "prefix \(prefix)")
            #expect(try collect(environment, database, .prefix(prefix), .reverse) == expected.reversed(), "prefix \(prefix)")
        }
        #expect(KeyRange.successor(ofPrefix: [0x01, 0xFF]) == [0x02])
        #expect(KeyRange.successor(ofPrefix: [0xFF, 0xFF]) == nil)
    }

    @Test func iterationStopsWhenTheBodyReturnsFalse() throws {
        let directory = try TemporaryDirectory()
        let (environment, database) = try store(Self.randomKeys(count: 50, seed: 6), in: directory)
        let seen = try environment.read { txn throws in
            var count = 0
            try database.forEach(in: txn) { _ throws in
                count += 1
                return count < 7
            }
            return count
        }
        #expect(seen == 7)
    }

    @Test func aCursorMovesToFirstLastNextPreviousAndSeeks() throws {
        let directory = try TemporaryDirectory()
        let (environment, database) = try store([[1], [3], [5], [5, 0]], in: directory)
        try environment.read { txn throws in
            try database.withCursor(in: txn) { cursor throws in
                #expect(try cursor.first().map { Array($0.key) } == [1])
                #expect(try cursor.next().map { Array($0.key) } == [3])
                #expect(try cursor.current().map { Array($0.key) } == [3])
                #expect(try cursor.previous().map { Array($0.key) } == [1])
                #expect(try cursor.previous() == nil)
                #expect(try cursor.last().map { Array($0.key) } == [5, 0])
                #expect(try cursor.next() == nil)
                #expect(try cursor.seek(to: [4]).map { Array($0.key) } == [5])
                #expect(try cursor.seek(to: [5]).map { Array($0.key) } == [5])
                #expect(try cursor.seek(to: [6]) == nil)
                #expect(try cursor.seek(exactly: [4]) == nil)
                #expect(try cursor.seek(exactly: [3]).map { Array($0.value) } == [3, 0xAA])
            }
        }
        try environment.write { txn throws in
            try database.withCursor(in: txn) { cursor throws in
                _ = try cursor.seek(exactly: [3])
                try cursor.deleteCurrent()
            }
        }
        #expect(try collect(environment, database, .all, .forward) == [[1], [5], [5, 0]])
    }

    @Test func replacingTheCurrentValueKeepsEveryKeyInOrderWhateverTheNewSize() throws {
        let directory = try TemporaryDirectory()
        let environment = try Environment(path: directory.file("store.lmdb"))
        let database = try environment.createDatabase(named: "values")
        let keys = (0..<200).map { withUnsafeBytes(of: UInt32($0).bigEndian, Array.init) }
        try environment.write { txn throws in
            for (index, key) in keys.enumerated() { try database.put([UInt8](repeating: UInt8(index % 251), count: 40), forKey: key, in: txn) }
        }
        // Every third value grows to 600 bytes, every third shrinks to 3 (page splits and merges).
        try environment.write { txn throws in
            try database.withCursor(in: txn) { cursor throws in
                for (index, key) in keys.enumerated() where index % 3 != 0 {
                    #expect(try cursor.seek(exactly: key) != nil)
                    let value = [UInt8](repeating: UInt8(index % 251), count: index % 3 == 1 ? 600 : 3)
                    try value.withUnsafeBytes { value in try key.withUnsafeBytes { try cursor.replaceCurrent(value, key: $0) } }
                }
            }
        }
        try environment.read { txn throws in
            #expect(try database.count(in: txn) == keys.count)
            var index = 0
            try database.forEach(in: txn, range: .all, direction: .forward) { entry in
                #expect(Array(entry.key) == keys[index])
                #expect(Array(entry.value) == [UInt8](repeating: UInt8(index % 251), count: [40, 600, 3][index % 3]))
                index += 1
                return true
            }
            #expect(index == keys.count)
        }
    }
}
