import Foundation
@testable import Kura
@testable import KuraCore
import KuraEngineConformance
import KuraTestSupport
import Synchronization
import Testing

/// Every engine this build has, through the conformance checks an outside
/// engine would run (``EngineConformance``): the in-memory engine is the
/// reference, so its own run checks the promises a transcript can't show.
@Suite struct EngineConformanceTests {
    @Test(arguments: TestEngine.built)
    func theEngineConformsToTheSeam(_ engine: TestEngine) throws {
        let directory = try TemporaryDirectory()
        let opened = Mutex(0)
        let problems = try EngineConformance.problems {
            let number = opened.withLock { $0 += 1; return $0 }
            switch engine {
            case .lmdb: return try LMDBEngine(path: directory.file("engine-\(number).kura"), options: StoreOptions(), model: nil)
            case .memory: return InMemoryEngine(name: "test-\(number)")
            case .postgres: return try EngineStore(.postgres).description().openEngine(nil)
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func anEngineThatBreaksThePromisesIsToldWhich() throws {
        // An engine that keeps what a failed write wrote, and forgets to count its commits.
        final class Leaky: StorageEngine {
            let inner = InMemoryEngine(name: "leaky")
            var location: String { inner.location }
            var isReadOnly: Bool { false }
            func performRead(_ body: (any StorageTransaction) throws -> Void) throws { try inner.performRead(body) }
            func performWrite(_ body: (any StorageTransaction) throws -> Void) throws {
                try inner.performWrite { txn in try? body(txn) }
            }
            func performCheckedRead(spaces: Set<String>, _ body: (any StorageTransaction) throws -> Void) throws {
                try inner.performRead(body)
            }
            func space(named name: String) throws -> StorageSpace? { try inner.space(named: name) }
            func latestCommit() throws -> Int { 0 }
            func watchCommits(_ onCommit: @escaping @Sendable (ReportedCommit) -> Void) throws -> any CommitWatch {
                try inner.watchCommits(onCommit)
            }
            func close() { inner.close() }
        }
        let problems = try EngineConformance.problems(seeds: []) { Leaky() }
        #expect(problems.contains("a write whose body threw didn't throw"))
        #expect(problems.contains("a write whose body threw left what it wrote"))
        #expect(problems.contains("the latest commit didn't grow with a commit"))
    }
}
