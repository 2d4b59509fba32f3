import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Synchronization
import Testing

/// An engine of another product gains the store's file-level methods by
/// adopting their capability protocols, never by being LMDB's engine; one
/// that adopts none gets a clear ``StorageFailure/notSupported(_:)``.
@Suite struct EngineCapabilitiesTests {
    /// The in-memory engine with every ability, answering from canned figures.
    final class CapableEngine: ForwardingEngine, StatisticsReportingEngine, StoreCopyingEngine, ReaderSlotEngine,
        StructureCheckingEngine, @unchecked Sendable {
        let copies = Mutex<[String]>([])
        let structureChecks = Mutex(0)

        init() {
            super.init(name: "capable")
        }

        func storeStatistics() throws -> StoreStatistics {
            let spaces = ["kura.history", "somebody.else", "kura.meta"].map {
                StoreStatistics.Space(kind: "other", entity: nil, part: $0, entries: 2, bytes: 4096,
                                      tree: StoreStatistics.Tree(depth: 1, branchPages: 0, leafPages: 1, overflowPages: 0))
            }
            return StoreStatistics(path: location, fileSize: 4096, usedBytes: 4096, lastTransactionID: 7, spaces: spaces,
                                   pages: StoreStatistics.Pages(pageSize: 4096, mapSize: 8192, maxReaders: 1, readersUsed: 0,
                                                                readers: [], compactedBytes: 4096))
        }

        func copyStore(to path: String, compacting: Bool) throws { copies.withLock { $0.append("\(path) \(compacting)") } }
        var isReadingWithoutLock: Bool { true }
        func clearStaleReaders() throws -> Int { 3 }

        func performStructureCheckedRead(
            problemLimit: Int, _ body: (any StorageTransaction, StoreFileStructure) throws -> Void
        ) throws {
            structureChecks.withLock { $0 += 1 }
            // The file is sound except for the records of News.
            let intact: Set<String> = [StoreLayout.metaSpaceName]
            try inner.performRead { txn in
                try body(txn, StoreFileStructure(pageSize: 4096, totalPages: 10, usedPages: 8, freePages: 2,
                                                 problems: ["page 9 is damaged"], problemCount: 1,
                                                 isSpaceTableIntact: true, intactSpaces: intact))
            }
        }
    }

    @Test func anEngineThatAdoptsTheCapabilitiesAnswersTheStoresFileLevelMethods() throws {
        let engine = CapableEngine()
        let container = try PersistentContainer(store: StoreDescription { _ in engine }, model: .news())
        defer { container.close() }
        let store = container.store

        let statistics = try store.statistics()
        #expect(statistics.spaces.map(\.kind) == ["meta", "history", "other"])
        #expect(statistics.spaces.last?.part == "somebody.else")
        #expect(statistics.pages?.mapSize == 8192 && statistics.reclaimableBytes == 0)

        try store.backup(to: "/nonexistent/copy.kura", compacting: true)
        #expect(engine.copies.withLock { $0 } == ["/nonexistent/copy.kura true"])
        #expect(store.isReadingWithoutLock)
        #expect(try store.clearStaleReaders() == 3)

        let report = try store.check()
        #expect(engine.structureChecks.withLock { $0 } == 1)
        #expect(report.totalPages == 10 && report.freePages == 2)
        #expect(report.problems.first == "file: page 9 is damaged")
        #expect(report.problems.contains { $0.contains("News: its records' pages are damaged") })
    }

    @Test func anEngineWithoutThemSaysWhatIsNotSupported() throws {
        let container = try PersistentContainer(store: StoreDescription { _ in ForwardingEngine(name: "plain") }, model: .news())
        defer { container.close() }
        let store = container.store
        let unsupported = { (what: String) in KuraError.storage(path: "memory:plain", failure: .notSupported(what)) }
        #expect(throws: unsupported("statistics")) { try store.statistics() }
        #expect(throws: unsupported("a copy of the store file")) { try store.backup(to: "/nonexistent/copy.kura") }
        #expect(throws: unsupported("clearing stale readers")) { try store.clearStaleReaders() }
        #expect(!store.isReadingWithoutLock)
        let report = try store.check()
        #expect(report.isConsistent && report.totalPages == 0)
    }
}
