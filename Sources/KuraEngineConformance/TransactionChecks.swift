import KuraCore

/// What a transcript of answers can't show: snapshots, atomic writes,
/// nested transactions, commit numbers, a closed engine.
enum TransactionChecks {
    private struct Failure: Error {}

    /// The ways `engine` breaks those promises, one line each; it is closed after.
    static func problems(of engine: any StorageEngine) throws -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ problem: String) {
            if !condition { problems.append(problem) }
        }
        let key: [UInt8] = [1]
        func put(_ value: UInt8, _ txn: any StorageTransaction) throws {
            let space = try txn.createSpace(named: "conformance")
            try key.withUnsafeBytes { k in try [value].withUnsafeBytes { try txn.put($0, forKey: k, in: space, flags: []) } }
        }
        func value(_ txn: any StorageTransaction) throws -> UInt8? {
            guard let space = try txn.openSpace(named: "conformance") else { return nil }
            return try key.withUnsafeBytes { try txn.withValue(forKey: $0, in: space) { $0[0] } }
        }

        try engine.write { try put(1, $0) }
        let before = try engine.latestCommit()
        try engine.read { reader in
            try engine.write { try put(2, $0) }
            check(try value(reader) == 1, "a read doesn't keep its snapshot while a write commits")
        }
        check(try engine.read(value) == 2, "a committed write isn't seen by the next read")
        check(try engine.latestCommit() > before, "the latest commit didn't grow with a commit")
        let afterCommit = try engine.latestCommit()

        do {
            // (`performWrite`, not `write`: an engine that swallows the
            // error gives `write` no result to return.)
            try engine.performWrite { txn in
                try put(3, txn)
                throw Failure()
            }
            problems.append("a write whose body threw didn't throw")
        } catch is Failure {}
        check(try engine.read(value) == 2, "a write whose body threw left what it wrote")
        // (The commit number may move without a commit: PostgreSQL's
        // transaction IDs do. It must not go back.)
        check(try engine.latestCommit() >= afterCommit, "the latest commit went back")

        try engine.write { txn in
            try put(4, txn)
            do {
                try txn.performNested { nested in
                    try put(5, nested)
                    throw Failure()
                }
                problems.append("a nested transaction whose body threw didn't throw")
            } catch is Failure {}
            check(try value(txn) == 4, "a nested transaction whose body threw wasn't undone alone")
            try txn.withNestedTransaction { try put(6, $0) }
            check(try value(txn) == 6, "a nested transaction's writes didn't join the outer one")
        }
        check(try engine.read(value) == 6, "a write with nested transactions didn't commit them")

        engine.close()
        do {
            try engine.read { _ in }
            problems.append("a closed engine still reads")
        } catch let error as KuraError where error.code == .storeClosed {
        } catch {
            problems.append("a closed engine's read throws \(error), not KuraError.storeClosed")
        }
        return problems
    }
}
