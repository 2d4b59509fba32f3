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
                        } catch let error as StorageEngineError where error.code == .keyExistsInSpace && error.space == space && error.key == key {
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
                // An engine that adopts the refinement answers its reads
                // too; a line says so only when they differ from the
                // key-value reads' (which the reference's lines hold).
                let requests = txn as? any RequestingStorageTransaction
                for name in ["a", "b"] {
                    let space = try space(name, in: txn)
                    let range = KeyRange(lower: bound(&random), upper: bound(&random))
                    for direction in [IterationDirection.forward, .reverse] {
                        let limit = 1 + Int(random.next() % 8)
                        func walk(_ forEach: ((StorageEntry) throws -> Bool) throws -> Void) rethrows -> [[UInt8]] {
                            var keys: [[UInt8]] = []
                            try forEach { entry in
                                keys.append(Array(entry.key) + [255] + Array(entry.value))
                                return keys.count < limit
                            }
                            return keys
                        }
                        let keys = try walk { try txn.forEach(in: space, range: range, direction: direction, $0) }
                        lines.append("\(name) \(range) \(direction): \(keys)")
                        // Page sizes: none guessed, too few, the whole range.
                        for readAhead in [nil, 1, 3, Int.max] {
                            guard let requests else { break }
                            let paged = try walk { try requests.forEach(in: space, range: range, direction: direction, readAhead: readAhead, $0) }
                            if paged != keys { lines.append("a walk reading ahead \(readAhead.map(String.init) ?? "nil") found \(paged)") }
                        }
                    }
                    lines.append("\(name) count: \(try txn.count(in: space))")
                }
                // Joined reads: the values of `a` as keys of `b`.
                let (a, b) = (try space("a", in: txn), try space("b", in: txn))
                func record(_ key: UnsafeRawBufferPointer) throws -> String {
                    try txn.withValue(forKey: key, in: b) { "\(Array($0))" } ?? "[]"
                }
                var joined: [String] = []
                try txn.forEach(in: a, range: .all, direction: .forward) { entry in
                    joined.append("\(Array(entry.key))→\(try record(entry.value))")
                    return true
                }
                lines.append("joined: \(joined)")
                if let requests {
                    var requested: [String] = []
                    try requests.forEachJoined(in: a, range: .all, direction: .forward, readAhead: 2, records: b) { entry, found in
                        requested.append("\(Array(entry.key))→\(found.map { Array($0) } ?? [])")
                        return true
                    }
                    if requested != joined { lines.append("forEachJoined found \(requested)") }
                }
                let key = key(&random)
                let value = try key.withUnsafeBytes { try txn.withValue(forKey: $0, in: a) { Array($0) } }
                let expected = try value.map { value in try value.withUnsafeBytes { "\(value)→\(try record($0))" } }
                lines.append("joined \(key): \(expected ?? "absent")")
                if let requests {
                    var found: String?
                    let present = try key.withUnsafeBytes { key in
                        try requests.visitJoined(forKey: key, in: a, records: b) { value, record in
                            found = "\(Array(value))→\(record.map { Array($0) } ?? [])"
                        }
                    }
                    if present != (expected != nil) || found != expected { lines.append("visitJoined found \(found ?? "absent")") }
                }
            }
        }
        return lines
    }

    private static func space(_ name: String, in txn: any StorageTransaction) throws -> StorageSpace {
        guard let space = try txn.openSpace(named: name) else { throw ConformanceFailure(description: "space \(name) is missing") }
        return space
    }
}
