import Foundation
import Synchronization

/// A bounded set of ``ContextExecutor``s that request-scoped work shares:
/// ``PersistentContainer/performBackgroundTask(_:)`` runs each body on the
/// least busy of them, with a new context, so a thousand requests at once
/// hold at most ``threadLimit`` threads (and none of Swift's cooperative
/// pool while they wait on the writer lock or the disk), instead of a
/// thread each.
///
/// The awaiting task itself hops to the executor's thread and back, so
/// cancelling it cancels a fetch or count in progress, as on a
/// ``BackgroundContext``; a body queued behind others waits in the
/// executor's queue, holding no thread. Executors are made as work needs
/// them, up to the limit, and their threads end with the pool (the
/// container).
final class ContextExecutorPool: Sendable {
    /// The most threads the pool runs.
    let threadLimit: Int
    private let name: String
    private let executors = Mutex<[PooledExecutor]>([])

    init(threadLimit: Int, name: String) {
        precondition(threadLimit > 0, "a pool needs a thread")
        self.threadLimit = threadLimit
        self.name = name
    }

    /// The executor to run the next body on: an idle one, a new one while
    /// the pool has room, else the one with the fewest bodies queued.
    func take() -> PooledExecutor {
        executors.withLock { executors in
            if let idle = executors.first(where: { $0.load.load(ordering: .relaxed) == 0 }) ?? (executors.count >= threadLimit
                ? executors.min { $0.load.load(ordering: .relaxed) < $1.load.load(ordering: .relaxed) } : nil) {
                idle.load.add(1, ordering: .relaxed)
                return idle
            }
            let made = PooledExecutor(executor: ContextExecutor(name: "\(name) \(executors.count + 1)"))
            made.load.add(1, ordering: .relaxed)
            executors.append(made)
            return made
        }
    }

    /// How many threads the pool has started.
    var threadCount: Int { executors.withLock { $0.count } }
}

/// An executor of a pool, with how many bodies are queued on it or running.
final class PooledExecutor: Sendable {
    let executor: ContextExecutor
    let load = Atomic(0)

    init(executor: ContextExecutor) {
        self.executor = executor
    }
}

/// Runs one body on a pooled executor's thread: an actor per body, all
/// of one executor's actors sharing its thread (a body doesn't suspend, so
/// the thread runs one at a time).
actor PooledWork {
    nonisolated let pooled: PooledExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor { pooled.executor.asUnownedSerialExecutor() }

    init(on pooled: PooledExecutor) {
        self.pooled = pooled
    }

    func run<Result: Sendable>(_ body: @Sendable () throws -> Result) rethrows -> Result {
        defer { pooled.load.subtract(1, ordering: .relaxed) }
        return try body()
    }
}
