import Dispatch
import Foundation
import Kura
import KuraTestSupport
import Synchronization
import Testing

/// `BackgroundContext` and `ContextExecutor`: contexts on threads of their
/// own, so blocking LMDB work never holds a thread of the cooperative pool.
@Suite struct BackgroundContextTests {
    /// The example of ContextExecutor's documentation.
    actor Importer {
        nonisolated let executor = ContextExecutor(name: "importer")
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        let context: ManagedObjectContext

        init(container: PersistentContainer) {
            context = container.newContext()
        }

        func importTitles(_ titles: [String]) throws -> (onExecutor: Bool, ids: [ObjectID]) {
            let news = titles.map { title in
                let news = News(context: context)
                news.title = title
                return news
            }
            try context.save()
            return (executor.isCurrentThread, news.map(\.objectID))
        }
    }

    @Test func anActorWithAContextExecutorRunsItsMethodsOnTheExecutorsThread() async throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let importer = Importer(container: container)
        #expect(!importer.executor.isCurrentThread)
        let (onExecutor, ids) = try await importer.importTitles(["one", "two"])
        #expect(onExecutor)
        #expect(ids.count == 2 && ids.allSatisfy { !$0.isTemporaryID })
        let background = container.newBackgroundContext()
        let titles = try await background.perform { context in
            (background.executor.isCurrentThread, try ids.map { try (context.existingObject(with: $0) as! News).title })
        }
        #expect(titles.0)
        #expect(titles.1 == ["one", "two"])
    }

    @Test func savesWaitingForAnotherProcessesWriterLockLeaveTheCooperativePoolFree() async throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.news())
        // It lets go after 300 s by itself: were the pool blocked by the
        // waiting saves, the check below would run only then, and fail rather
        // than hang. (Not sooner: the other tests running in parallel share
        // the pool's two threads, and on a loaded machine the 200 tasks below
        // have taken 55 s to get their turn; a 30 s hold failed there.)
        let holder = try ChildProcess(Helper.path, ["lmdb-hold-writer", store.path, "300"], standardInput: .pipe)
        _ = Helper.read(holder, untilLineStartingWith: "holding")

        // More blocked saves than the pool has threads (one per core).
        let saving = ProcessInfo.processInfo.activeProcessorCount + 2
        let saved = SavedCount()
        var savers: [Task<Void, any Error>] = []
        for number in 0..<saving {
            savers.append(Task {
                try await container.newBackgroundContext().perform { context in
                    News(context: context).title = "saved \(number)"
                    try context.save()
                }
                saved.value.add(1, ordering: .relaxed)
            })
        }
        // The pool still runs other work, while every save waits for the lock.
        let started = ContinuousClock.now
        let sum = await withTaskGroup(of: Int.self) { group in
            for value in 1...200 { group.addTask { value } }
            return await group.reduce(0, +)
        }
        let elapsed = ContinuousClock.now - started
        #expect(sum == 20_100)
        #expect(saved.value.load(ordering: .relaxed) == 0, "no save got the lock: the pool answered while they all waited")
        print("200 pool tasks ran in \(elapsed) while \(saving) saves waited for the writer lock")

        try holder.send("")
        for saver in savers { try await saver.value }
        #expect(try holder.wait() == .exited(0))
        #expect(saved.value.load(ordering: .relaxed) == saving)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News")) == saving)
    }

    final class SavedCount: Sendable {
        let value = Atomic(0)
    }

    @Test func cancellingTheAwaitingTaskCancelsItsFetch() async throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let background = container.newBackgroundContext()
        try await background.perform { context in
            for number in 0..<100 { News(context: context).sortOrder = number }
            try context.save()
        }
        // Keep the context's thread busy, so the fetch below starts after its task was cancelled.
        let gate = DispatchSemaphore(value: 0)
        let busy = Task { await background.perform { _ in gate.wait() } }
        let fetching = Task {
            try await background.perform { context in
                try context.fetch(FetchRequest(entityName: "News", predicate: try FetchPredicate(format: "title CONTAINS 'x'"))).count
            }
        }
        fetching.cancel()
        gate.signal()
        await busy.value
        await #expect(throws: CancellationError.self) { _ = try await fetching.value }
        #expect(try await background.count(for: FetchRequest(entityName: "News")) == 100, "the context goes on")
    }
}
