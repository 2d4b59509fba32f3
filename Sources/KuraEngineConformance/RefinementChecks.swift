import KuraCore

/// The promises of ``RequestingStorageTransaction``, checked only on an
/// engine whose transactions adopt it: a count for plans, reads ahead that
/// change no answer (in a read, and after the write's own changes), a
/// rewrite whose expected values are stale that still commits what the
/// stored values give, a ranked read that holds the top K with its ties
/// and every record without a rank, and room made for puts.
enum RefinementChecks {
    /// The ways `engine` (new and empty) breaks those promises, one line
    /// each; none when its transactions don't adopt the refinement.
    static func problems(of engine: any StorageEngine) throws -> [String] {
        guard try engine.read({ $0 is any RequestingStorageTransaction }) else { return [] }
        var problems: [String] = []
        func check(_ condition: Bool, _ problem: String) {
            if !condition { problems.append(problem) }
        }
        func requests(_ txn: any StorageTransaction) -> any RequestingStorageTransaction { txn as! any RequestingStorageTransaction }
        func put(_ value: [UInt8], _ key: [UInt8], in space: StorageSpace, _ txn: any StorageTransaction) throws {
            try key.withUnsafeBytes { k in try value.withUnsafeBytes { try txn.put($0, forKey: k, in: space, flags: []) } }
        }
        func value(_ key: [UInt8], in space: StorageSpace, _ txn: any StorageTransaction) throws -> [UInt8]? {
            try key.withUnsafeBytes { try txn.withValue(forKey: $0, in: space) { Array($0) } }
        }
        func walk(_ range: KeyRange, in space: StorageSpace, _ txn: any StorageTransaction) throws -> [[UInt8]] {
            var keys: [[UInt8]] = []
            try txn.forEach(in: space, range: range, direction: .forward) { keys.append(Array($0.key)); return true }
            return keys
        }

        // Spaces: 20 keys read ahead, a record to rewrite, ranked records.
        let ranks: [Int64?] = (0..<60).map { $0 % 12 == 0 ? nil : Int64($0 % 17) }
        let (ahead, rewritten, ranked) = try engine.write { txn in
            let ahead = try txn.createSpace(named: "ahead")
            for key in UInt8(1)...20 { try put([key, key], [key], in: ahead, txn) }
            let rewritten = try txn.createSpace(named: "rewritten")
            try put([10], [1], in: rewritten, txn)
            let ranked = try txn.createSpace(named: "ranked")
            for (number, rank) in ranks.enumerated() { try put(RecordRanking.record(integers: [Int64(number), rank]), [UInt8(number)], in: ranked, txn) }
            return (ahead, rewritten, ranked)
        }

        // A count for plans, in a read after one that counted.
        _ = try engine.read { try $0.count(in: ahead) }
        try engine.read { txn in
            check(try requests(txn).estimatedCount(in: ahead) == txn.count(in: ahead), "estimatedCount(in:) differs from count(in:) with nothing written since")
        }

        // Reading ahead, then reading: the same answers as reading.
        let range = KeyRange(lower: .init([3], isInclusive: true), upper: .init([9], isInclusive: false))
        let keys: [[UInt8]] = [[1], [5], [50]]
        let plain = try engine.read { txn in (try keys.map { try value($0, in: ahead, txn) }, try walk(range, in: ahead, txn)) }
        try engine.read { txn in
            var plan = ReadPlan()
            plan.read(keys: keys, in: ahead)
            plan.read(ranges: [range], in: ahead)
            try requests(txn).readAhead(plan)
            check(try keys.map { try value($0, in: ahead, txn) } == plain.0, "a read of keys read ahead found other values")
            check(try walk(range, in: ahead, txn) == plain.1, "a walk of a range read ahead found other keys")
        }
        try engine.write { txn in
            var plan = ReadPlan()
            plan.read(keys: [[3], [4]], in: ahead)
            try requests(txn).readAhead(plan)
            try put([33], [3], in: ahead, txn)
            try [UInt8(4)].withUnsafeBytes { try txn.delete($0, in: ahead) }
            check(try value([3], in: ahead, txn) == [33], "a key read ahead and then put reads as it was read ahead, not as put")
            check(try value([4], in: ahead, txn) == nil, "a key read ahead and then deleted is still found")
        }

        // A rewrite that expects a stale value commits what the stored one
        // gives; then one that expects the current value.
        for (expected, result) in [([UInt8]([99]), [UInt8]([10, 1])), ([10, 1], [10, 1, 1])] {
            try engine.write { txn in
                try requests(txn).beginRewriting {
                    RewritePlan(keys: [(rewritten, [[1]])], expected: [ExpectedValue(space: rewritten, key: [1], value: expected)])
                }
                let stored = try value([1], in: rewritten, txn) ?? []
                try put(stored + [1], [1], in: rewritten, txn)
            }
            let stored = try engine.read { try value([1], in: rewritten, $0) } ?? []
            check(stored == result, "a rewrite planned expecting \(expected) stored \(stored), not \(result)")
        }

        // A ranked read: the top 10 by field 1, ties with the 10th, every record without a rank.
        let ranking = RecordRanking.integers(inField: 1, descending: true, count: 10)
        var sent: [UInt8] = []
        let narrowed = try engine.read { txn in
            try requests(txn).forEachRanked(in: ranked, by: ranking) { entry in
                sent.append(entry.key.first ?? 0)
                return true
            }
        }
        if narrowed {
            let tenth = ranks.compactMap { $0 }.sorted(by: >)[9]
            let needed = Set(ranks.indices.filter { ranks[$0].map { $0 >= tenth } ?? true }.map(UInt8.init))
            check(Set(sent).isSuperset(of: needed), "a ranked read left out records of the top 10, their ties or those without a rank: \(needed.subtracting(sent).sorted())")
            check(sent == sent.sorted(), "a ranked read didn't send its records in key order")
        } else {
            check(sent.isEmpty, "a ranked read that returned false sent records")
        }

        // Room for puts changes nothing of them.
        try engine.write { txn in
            requests(txn).reserveCapacity(forPuts: 1_000)
            for key in UInt8(30)...32 { try put([key], [key], in: ahead, txn) }
        }
        check(try engine.read { try walk(.all, in: ahead, $0).count } == 22, "puts after reserveCapacity(forPuts:) weren't all stored")
        return problems
    }
}
