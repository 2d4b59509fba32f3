import KuraCore

/// A random mix of every operation of a transaction, and the answer to
/// each, one line per answer: two engines that conform give the same lines
/// for the same seed.
enum OperationTranscript {
    /// A key of one or two bytes from a small alphabet, so operations meet.
    private static func key(_ random: inout SplitMix64) -> [UInt8] {
        (0..<(1 + Int(random.next() % 2))).map { _ in UInt8(random.next() % 6) * 40 }
    }

    private static func bound(_ random: inout SplitMix64) -> KeyRange.Bound? {
        random.next() % 4 == 0 ? nil : KeyRange.Bound(key(&random), isInclusive: random.next() % 2 == 0)
    }

    /// Runs a random mix of puts (plain, no-overwrite, append), deletes,
    /// cursor replacements and deletions, gets, counts, range scans both
    /// ways and joined reads on `engine`, and returns a transcript of every
    /// answer.
    static func record(on engine: any StorageEngine, seed: UInt64) throws -> [String] {
        var random = SplitMix64(seed: seed)
        var lines: [String] = []
        var appended: UInt8 = 0
        for _ in 0..<40 {
            try engine.write { txn in
                let spaces = [try txn.createSpace(named: "a"), try txn.createSpace(named: "b")]
                for _ in 0..<10 {
                    let space = spaces[Int(random.next() % 2)]
                    let key = key(&random)
                    let value = [UInt8(random.next() % 256)]
                    switch random.next() % 8 {
                    case 0, 1:
                        try key.withUnsafeBytes { k in try value.withUnsafeBytes { try txn.put($0, forKey: k, in: space, flags: []) } }
                        lines.append("put \(key)")
                    case 2:
                        // An engine that sends writes in batches finds the key
                        // taken when it sends them: a read of the space sends them.
                        do {
                            try key.withUnsafeBytes { k in try value.withUnsafeBytes { try txn.put($0, forKey: k, in: space, flags: .noOverwrite) } }
                            _ = try txn.count(in: space)
                            lines.append("insert \(key)")
                        } catch StorageEngineError.keyExists {
                            lines.append("insert \(key): exists")
                        } catch StorageEngineError.keyExistsInSpace(let taken, let takenKey) where taken == space && takenKey == key {
                            lines.append("insert \(key): exists")
                        }
                    case 3:
                        // `.append` promises a key past every other one.
                        appended &+= 1
                        let last = [255, appended]
                        try last.withUnsafeBytes { k in try value.withUnsafeBytes { try txn.put($0, forKey: k, in: space, flags: .append) } }
                        lines.append("append \(last)")
                    case 4:
                        try key.withUnsafeBytes { try txn.delete($0, in: space) }
                        lines.append("delete \(key)")
                    case 5:
                        let found = try txn.withCursor(in: space) { cursor -> [UInt8]? in
                            guard let entry = try cursor.seek(exactly: key) else { return nil }
                            let old = Array(entry.value)
                            if random.next() % 2 == 0 {
                                try cursor.deleteCurrent()
                            } else {
                                try value.withUnsafeBytes { v in try key.withUnsafeBytes { try cursor.replaceCurrent(v, key: $0) } }
                            }
                            return old
                        }
                        lines.append("cursor \(key): \(found.map { "\($0)" } ?? "absent")")
                    default:
                        lines.append("get \(key): \(try key.withUnsafeBytes { try txn.withValue(forKey: $0, in: space) { Array($0) } } ?? [])")
                    }
                }
            }
            try engine.read { txn in
                for name in ["a", "b"] {
                    let space = try space(name, in: txn)
                    let range = KeyRange(lower: bound(&random), upper: bound(&random))
                    for direction in [IterationDirection.forward, .reverse] {
                        var keys: [[UInt8]] = []
                        var limit = 1 + Int(random.next() % 8)
                        // Page sizes: none guessed, too few, the whole range.
                        let readAhead = [nil, 1, 3, Int.max][Int(random.next() % 4)]
                        try txn.forEach(in: space, range: range, direction: direction, readAhead: readAhead) { entry in
                            keys.append(Array(entry.key) + [255] + Array(entry.value))
                            limit -= 1
                            return limit > 0
                        }
                        lines.append("\(name) \(range) \(direction): \(keys)")
                    }
                    lines.append("\(name) count: \(try txn.count(in: space))")
                }
                // Joined reads: the values of `a` as keys of `b`.
                let (a, b) = (try space("a", in: txn), try space("b", in: txn))
                var joined: [String] = []
                try txn.forEachJoined(in: a, range: .all, direction: .forward, readAhead: 2, records: b) { entry, record in
                    joined.append("\(Array(entry.key))→\(record.map { Array($0) } ?? [])")
                    return true
                }
                lines.append("joined: \(joined)")
                let key = key(&random)
                let found = try key.withUnsafeBytes { key in
                    try txn.visitJoined(forKey: key, in: a, records: b) { value, record in
                        joined = ["\(Array(value))→\(record.map { Array($0) } ?? [])"]
                    }
                }
                lines.append("joined \(key): \(found) \(joined)")
            }
        }
        return lines
    }

    private static func space(_ name: String, in txn: any StorageTransaction) throws -> StorageSpace {
        guard let space = try txn.openSpace(named: name) else { throw ConformanceFailure(description: "space \(name) is missing") }
        return space
    }
}
