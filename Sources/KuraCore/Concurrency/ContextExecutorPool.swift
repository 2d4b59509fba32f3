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
/// container). ``drain()`` refuses new bodies and waits for the ones taken.
final class ContextExecutorPool: Sendable {
    /// The most threads the pool runs.
    let threadLimit: Int
    private let name: String
    private struct State {
        var executors: [PooledExecutor] = []
        var isClosing = false
    }
    private let state = Mutex(State())

    init(threadLimit: Int, name: String) {
        precondition(threadLimit > 0, "a pool needs a thread")
        self.threadLimit = threadLimit
        self.name = name
    }

    /// The executor to run the next body on: an idle one, a new one while
    /// the pool has room, else the one with the fewest bodies queued; `nil`
    /// once the pool drains.
    func take() -> PooledExecutor? {
        state.withLock { state in
            guard !state.isClosing else { return nil }
            let executors = state.executors
            let chosen = executors.first { $0.load.load(ordering: .relaxed) == 0 }
                ?? (executors.count >= threadLimit ? executors.min { $0.load.load(ordering: .relaxed) < $1.load.load(ordering: .relaxed) } : nil)
            if let chosen {
                chosen.load.add(1, ordering: .relaxed)
                return chosen
            }
            let made = PooledExecutor(executor: ContextExecutor(name: "\(name) \(executors.count + 1)"))
            made.load.add(1, ordering: .relaxed)
            state.executors.append(made)
            return made
        }
    }

    /// Takes no more bodies, and returns once every body taken has run:
    /// each executor runs an empty job after those queued before it, until
    /// none has a body left.
    func drain() async {
        let executors = state.withLock { state in
            state.isClosing = true
            return state.executors
        }
        while executors.contains(where: { $0.load.load(ordering: .acquiring) > 0 }) {
            for pooled in executors { await PooledWork(on: pooled).barrier() }
        }
    }

    /// How many bodies the pool handed out that haven't finished (queued or running).
    var bodiesInHand: Int { state.withLock { $0.executors.reduce(0) { $0 + $1.load.load(ordering: .relaxed) } } }

    /// True once ``drain()`` began.
    var isDraining: Bool { state.withLock { $0.isClosing } }

    /// How many threads the pool has started.
    var threadCount: Int { state.withLock { $0.executors.count } }
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

    /// Runs a body the pool handed out (``ContextExecutorPool/take()``).
    func run<Result: Sendable>(_ body: @Sendable () throws -> Result) rethrows -> Result {
        defer { pooled.load.subtract(1, ordering: .releasing) }
        return try body()
    }

    /// Nothing, once what was queued before it ran.
    func barrier() {}
}
