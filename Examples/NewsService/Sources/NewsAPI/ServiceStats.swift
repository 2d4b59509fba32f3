import Foundation
import Hummingbird
import Synchronization

/// What `GET /stats` reports: requests answered, the process's threads,
/// the store's pool of threads, and the longest an event loop was late.
public final class ServiceStats: Sendable {
    public let probe: EventLoopStallProbe
    /// The store's pool: the threads it has started, and its limit.
    private let pool: @Sendable () -> (threads: Int, limit: Int)
    private let answered = Atomic<Int>(0)

    public init(probe: EventLoopStallProbe, pool: @escaping @Sendable () -> (threads: Int, limit: Int)) {
        self.probe = probe
        self.pool = pool
    }

    func countAnswer() { answered.add(1, ordering: .relaxed) }

    /// The report, as JSON.
    struct Report: Encodable {
        var requestsAnswered: Int
        /// The threads of the whole process (`/proc/self/task`).
        var processThreads: Int
        /// The threads the store's pool has started, and its limit.
        var poolThreads: Int
        var poolThreadLimit: Int
        /// The longest an event loop's 1 ms probe ran late, since start or the last `reset=1`.
        var worstEventLoopStallMilliseconds: Double
        var eventLoopProbeRuns: Int
    }

    func report() -> Report {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        let stall = probe.worst()
        let pool = pool()
        return Report(
            requestsAnswered: answered.load(ordering: .relaxed), processThreads: threads,
            poolThreads: pool.threads, poolThreadLimit: pool.limit,
            worstEventLoopStallMilliseconds: Double(stall.worst.nanoseconds) / 1e6, eventLoopProbeRuns: stall.runs)
    }
}
