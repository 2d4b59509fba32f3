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
        final class Leaky: ForwardingEngine, @unchecked Sendable {
            override func performWrite(_ body: (any StorageTransaction) throws -> Void) throws {
                try inner.performWrite { txn in try? body(txn) }
            }
            override func latestCommit() throws -> Int { 0 }
        }
        let problems = try EngineConformance.problems(seeds: []) { Leaky(name: "leaky") }
        #expect(problems.contains("a write whose body threw didn't throw"))
        #expect(problems.contains("a write whose body threw left what it wrote"))
        #expect(problems.contains("the latest commit didn't grow with a commit"))
    }

    /// An engine that breaks one promise of the core or of the refinement
    /// is told which (each only by its own problem line).
    @Test(arguments: RequestingForwardingEngine.Broken.allCases)
    func anEngineBreakingOnePromiseIsNamedByTheKit(_ broken: RequestingForwardingEngine.Broken) throws {
        let problems = try EngineConformance.problems { RequestingForwardingEngine(breaking: broken) }
        let expected: String = switch broken {
        case .isEmpty: "a new engine's isEmpty() is false"
        case .removeAll: "removeAll(in:) left keys, seen by its own transaction"
        case .drop: "a dropped space still opens in its own transaction"
        case .watch: "a commit watch didn't hear of a commit"
        case .estimatedCount: "estimatedCount(in:) differs from count(in:) with nothing written since"
        case .readAheadAfterPut: "a key read ahead and then put reads as it was read ahead, not as put"
        case .staleRewrite: "a rewrite planned expecting [99] stored [99, 1], not [10, 1]"
        case .rankedTies: "a ranked read left out records of the top 10"
        }
        #expect(problems.contains { $0.hasPrefix(expected) }, "\(broken): \(problems)")
    }

    @Test func anEngineKeepingEveryPromiseOfTheRefinementHasNoProblem() throws {
        let problems = try EngineConformance.problems { RequestingForwardingEngine(breaking: nil) }
        #expect(problems.isEmpty, "\(problems)")
    }
}
