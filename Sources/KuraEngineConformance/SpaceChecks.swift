import Foundation
import KuraCore

/// The requirements a transcript's answers don't reach: an empty store,
/// spaces emptied and dropped, a write's commit number, and commits heard
/// by a watch.
enum SpaceChecks {
    /// The ways `engine` (new and empty) breaks those promises, one line each.
    static func problems(of engine: any StorageEngine) throws -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ problem: String) {
            if !condition { problems.append(problem) }
        }
        func put(_ keys: ClosedRange<UInt8>, in space: StorageSpace, _ txn: any StorageTransaction) throws {
            for key in keys {
                try [key].withUnsafeBytes { k in try [key, key].withUnsafeBytes { try txn.put($0, forKey: k, in: space, flags: []) } }
            }
        }

        check(try engine.read { try $0.isEmpty() }, "a new engine's isEmpty() is false")
        let before = try engine.latestCommit()
        let writeID = try engine.write { txn in
            let space = try txn.createSpace(named: "kept")
            check(try txn.createSpace(named: "kept") == space, "createSpace of a space that exists made another")
            try put(1...5, in: space, txn)
            try put(1...3, in: try txn.createSpace(named: "emptied"), txn)
            try put(1...3, in: try txn.createSpace(named: "dropped"), txn)
            return txn.id
        }
        check(writeID == 0 || writeID > before, "a write's id (\(writeID)) isn't after the latest commit before it (\(before))")
        check(try writeID == 0 || engine.latestCommit() >= writeID, "the latest commit is before the write's id \(writeID)")
        check(try !engine.read { try $0.isEmpty() }, "isEmpty() is true for an engine that holds spaces")

        try engine.write { txn in
            let emptied = try txn.openSpace(named: "emptied")!, dropped = try txn.openSpace(named: "dropped")!
            try txn.removeAll(in: emptied)
            check(try txn.count(in: emptied) == 0, "removeAll(in:) left keys, seen by its own transaction")
            try txn.drop(dropped)
            check(try txn.openSpace(named: "dropped") == nil, "a dropped space still opens in its own transaction")
        }
        try engine.read { txn in
            guard let emptied = try txn.openSpace(named: "emptied") else {
                return problems.append("removeAll(in:) removed the space, not only its keys")
            }
            check(try txn.count(in: emptied) == 0, "removeAll(in:) left keys")
            let found = try [UInt8(2)].withUnsafeBytes { try txn.visitValue(forKey: $0, in: emptied) { _ in } }
            check(!found, "a key removeAll(in:) removed is still found")
            check(try txn.openSpace(named: "dropped") == nil, "a dropped space still opens")
            check(try txn.openSpace(named: "kept").map { try txn.count(in: $0) } == 5, "removeAll or drop changed another space")
        }
        problems += try watchProblems(of: engine)
        return problems
    }

    /// A watch hears of a commit made after it started, with a number past
    /// the latest before it, and of none once stopped.
    private static func watchProblems(of engine: any StorageEngine) throws -> [String] {
        let heard = Heard()
        let before = try engine.latestCommit()
        let watch = try engine.watchCommits { commit in
            heard.condition.lock()
            heard.numbers.append(commit.number)
            heard.condition.broadcast()
            heard.condition.unlock()
        }
        try engine.write { txn in
            try [UInt8(9)].withUnsafeBytes { k in try [UInt8(9)].withUnsafeBytes { try txn.put($0, forKey: k, in: try txn.createSpace(named: "watched"), flags: []) } }
        }
        // Heard within a generous bound (a watch on a server hears over a socket).
        let deadline = Date().addingTimeInterval(10)
        heard.condition.lock()
        while !heard.numbers.contains(where: { $0 > before }) && heard.condition.wait(until: deadline) {}
        let wasHeard = heard.numbers.contains { $0 > before }
        let numbers = heard.numbers
        heard.condition.unlock()
        watch.stop()
        let count = heard.withLock { $0.count }
        try engine.write { txn in try txn.drop(try txn.createSpace(named: "watched")) }
        let afterStop = heard.withLock { $0.count } - count
        var problems: [String] = []
        if !wasHeard { problems.append("a commit watch didn't hear of a commit (heard \(numbers))") }
        if afterStop > 0 { problems.append("a stopped commit watch still reported a commit") }
        return problems
    }
}

/// The commit numbers a watch reported, under a condition.
private final class Heard: @unchecked Sendable {
    // @unchecked: `numbers` is read and written under `condition`.
    let condition = NSCondition()
    var numbers: [Int] = []

    func withLock<Result>(_ body: ([Int]) -> Result) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return body(numbers)
    }
}
