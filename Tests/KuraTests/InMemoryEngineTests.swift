import Foundation
@testable import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// The in-memory engine's own promises: a store in memory is its
/// container's alone, a write can't nest in a write (its answers, snapshots
/// and atomic writes are checked with every engine's, EngineConformanceTests).
@Suite struct InMemoryEngineTests {
    @Test func aWriteInsideAWriteIsAnErrorAndAClosedEngineNamesItself() throws {
        // (Snapshots, failed and nested writes: EngineConformanceTests.)
        let engine = InMemoryEngine(name: "test")
        #expect(throws: KuraError.self) { try engine.write { _ in try engine.write { _ in } } }
        engine.close()
        #expect(throws: KuraError.storeClosed(path: "memory:test")) { try engine.read { _ in } }
    }

    @Test func anInMemoryContainerIsAStoreOfItsOwnUntilItCloses() throws {
        let first = try PersistentContainer(store: .inMemory(), model: .news())
        let second = try PersistentContainer(store: .inMemory(), model: .news())
        let context = first.newContext()
        let news = News(context: context)
        news.title = "only in the first"
        try context.save()
        #expect(try first.newContext().count(for: FetchRequest(entityName: "News")) == 1)
        #expect(try second.newContext().count(for: FetchRequest(entityName: "News")) == 0)
        // Statistics in the seam's terms: what each space holds, no pages.
        let statistics = try first.store.statistics()
        #expect(statistics.pages == nil && statistics.fileSize == 0 && statistics.lastTransactionID != nil)
        let records = try #require(statistics.spaces.first { $0.kind == "records" && $0.entity == "News" })
        #expect(records.entries == 1 && records.bytes > 0 && records.tree == nil)
        #expect(statistics.usedBytes == statistics.spaces.reduce(0) { $0 + $1.bytes })
        first.close()
        #expect(throws: KuraError.storeClosed(path: "memory:store")) {
            try first.newContext().count(for: FetchRequest(entityName: "News"))
        }
    }
}
