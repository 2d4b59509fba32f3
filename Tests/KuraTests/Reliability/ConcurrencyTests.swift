import Foundation
import Kura
import KuraTestSupport
import Testing

/// Several processes and several tasks save at once.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ConcurrencyTests {
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    @Test func concurrentIncrementsAreNeverLostAndReadersSeeWholeSaves() async throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(ConcurrencyWorkload.model())
        try ConcurrencyWorkload.prepare(container)
        let perWriter = 100
        let processes = try (0..<3).map { _ in try Helper.start(["increment", store.path, String(perWriter)]) }

        let done = Flag()
        defer { done.set() }
        // A reader checks every snapshot it sees: both counters move in one save.
        let reader = Task.detached { () -> (reads: Int, slowest: Double, torn: Int) in
            var reads = 0
            var slowest = 0.0
            var torn = 0
            // Until the writers are done and it has read enough to prove
            // something (a busy machine may give it few turns meanwhile).
            while !done.isSet || reads <= 10 {
                let start = Date()
                let (a, b) = try ConcurrencyWorkload.counters(container)
                slowest = max(slowest, Date().timeIntervalSince(start))
                if a != b { torn += 1 }
                reads += 1
            }
            return (reads, slowest, torn)
        }
        let conflicts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask { try ConcurrencyWorkload.increment(container, count: perWriter) }
            }
            var total = 0
            for try await conflicts in group { total += conflicts }
            return total
        }
        var processConflicts = 0
        for process in processes {
            let text = String(decoding: process.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
            #expect(try process.wait() == .exited(0), "\(text)")
            processConflicts += Int(text.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        done.set()
        let reading = try await reader.value
        let (a, b) = try ConcurrencyWorkload.counters(container)
        #expect(a == 5 * perWriter && b == 5 * perWriter, "a lost update: \(a), \(b)")
        #expect(reading.torn == 0, "a reader saw half a save")
        #expect(reading.reads > 10)
        // Readers never wait for writers; the bound only leaves room for a busy machine's scheduling.
        #expect(reading.slowest < 10, "a reader waited \(reading.slowest) s")
        print("concurrency: \(conflicts + processConflicts) conflicts retried, \(reading.reads) reads, slowest \(reading.slowest) s")
    }

    @Test func concurrentInsertsGetDistinctPrimaryKeysAndUniqueKeysHold() async throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(ConcurrencyWorkload.model())
        let processes = try (0..<3).map { worker in try Helper.start(["insert-entries", store.path, String(worker), "200"]) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 3..<5 {
                group.addTask { try ConcurrencyWorkload.insertEntries(container, worker: worker, count: 200) }
            }
            try await group.waitForAll()
        }
        for process in processes {
            #expect(try process.wait() == .exited(0))
        }
        let context = container.newContext()
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Entry"))
        #expect(ids.count == 1000)
        #expect(Set(ids.compactMap(\.primaryKey)).count == 1000)
        #expect(try container.store.check().isConsistent)
        // A duplicate key from another context is refused.
        let duplicate = try context.insertNewObject(forEntityName: "Entry")
        try duplicate.setValue("w0-0", forKey: "key")
        try duplicate.setValue(9, forKey: "worker")
        #expect(throws: KuraError.self) { try context.save() }
    }
}
