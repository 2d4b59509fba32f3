import Foundation

/// A serial executor with a thread of its own, for actors that own a
/// ``ManagedObjectContext``.
///
/// LMDB's calls block: a save waits for the store's writer lock (held by
/// any process's save) and then for `fsync`; a large fetch reads for as long
/// as it takes. On Swift's cooperative thread pool (one thread per core)
/// a few such calls stall every task of the program. An actor whose
/// executor is a `ContextExecutor` runs its methods on the executor's
/// thread instead, so the pool's threads never wait on Kura:
///
/// ```swift
/// actor Importer {
///     nonisolated let executor = ContextExecutor()
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
///     let context: ManagedObjectContext
///
///     init(container: PersistentContainer) { context = container.newContext() }
///
///     func importFeed(_ items: [FeedItem]) throws {   // runs on the executor's thread
///         for item in items { News(context: context).title = item.title }
///         try context.save()
///     }
/// }
/// ```
///
/// ``BackgroundContext`` is such an actor, ready made. The thread ends
/// when the executor is released (after the jobs queued on it); it sleeps
/// while there is nothing to run.
public final class ContextExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `isStopping` are only touched under `condition`.
    private final class Queue: @unchecked Sendable {
        let condition = NSCondition()
        var jobs: [UnownedJob] = []
        var isStopping = false
        /// The executor's thread, once it started.
        var thread: pthread_t?
    }

    private let queue = Queue()

    /// Starts the executor's thread, called `name` (as debuggers, `top -H`
    /// and `/proc/PID/task/TID/comm` show it; Linux keeps the first 15 bytes).
    public init(name: String = "Kura context") {
        let queue = queue
        // The thread reaches the executor only while it runs a job, and a
        // queued job keeps its actor, and so the executor, alive.
        let executor = Unmanaged.passUnretained(self)
        let thread = Thread {
            ThreadName.setCurrent(name)
            queue.condition.lock()
            queue.thread = pthread_self()
            queue.condition.unlock()
            while true {
                queue.condition.lock()
                while queue.jobs.isEmpty && !queue.isStopping { queue.condition.wait() }
                if queue.jobs.isEmpty {
                    queue.condition.unlock()
                    return
                }
                let batch = queue.jobs
                queue.jobs.removeAll(keepingCapacity: true)
                queue.condition.unlock()
                let unowned = executor.takeUnretainedValue().asUnownedSerialExecutor()
                for job in batch { job.runSynchronously(on: unowned) }
            }
        }
        thread.name = name
        thread.start()
    }

    deinit {
        queue.condition.lock()
        queue.isStopping = true
        queue.condition.signal()
        queue.condition.unlock()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.condition.lock()
        queue.jobs.append(job)
        queue.condition.signal()
        queue.condition.unlock()
    }

    /// True when called on the executor's thread.
    public var isCurrentThread: Bool {
        queue.condition.lock()
        defer { queue.condition.unlock() }
        return queue.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Stops the program unless called on the executor's thread (what
    /// `assumeIsolated` checks).
    public func checkIsolated() {
        precondition(isCurrentThread, "not on the thread of this ContextExecutor")
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
