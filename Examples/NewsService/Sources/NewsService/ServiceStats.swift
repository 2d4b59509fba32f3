import Foundation
import Hummingbird
import Kura
import NIOCore
import Synchronization

/// What `GET /stats` reports: requests answered, the process's threads,
/// the Kura pool's threads, and the longest an event loop was late.
public final class ServiceStats: Sendable {
    let probe: EventLoopStallProbe
    private let answered = Atomic<Int>(0)

    init(probe: EventLoopStallProbe) {
        self.probe = probe
    }

    func countAnswer() { answered.add(1, ordering: .relaxed) }

    /// The report, as JSON.
    struct Report: Encodable {
        var requestsAnswered: Int
        /// The threads of the whole process (`/proc/self/task`).
        var processThreads: Int
        /// The threads Kura's pool has started (at most `backgroundThreadLimit`).
        var kuraPoolThreads: Int
        var kuraPoolThreadLimit: Int
        /// The longest an event loop's 1 ms probe ran late, since start or the last `reset=1`.
        var worstEventLoopStallMilliseconds: Double
        var eventLoopProbeRuns: Int
    }

    func report(_ container: PersistentContainer) throws -> Report {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        let stall = probe.worst()
        return Report(
            requestsAnswered: answered.load(ordering: .relaxed), processThreads: threads,
            kuraPoolThreads: container.backgroundThreadCount, kuraPoolThreadLimit: container.store.options.backgroundThreadLimit,
            worstEventLoopStallMilliseconds: Double(stall.worst.nanoseconds) / 1e6, eventLoopProbeRuns: stall.runs)
    }
}

/// Counts answered requests.
struct CountingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let stats: ServiceStats

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        defer { stats.countAnswer() }
        return try await next(request, context)
    }
}

/// Measures how late each event loop runs a task scheduled every
/// millisecond: a loop blocked (by a synchronous save, say) runs it late by
/// as long as it was blocked. Every connection on that loop waited as long.
public final class EventLoopStallProbe: Sendable {
    /// The worst lateness seen, and the probe's runs.
    private let state = Mutex((worst: TimeAmount.zero, runs: 0))
    static let interval = TimeAmount.milliseconds(1)

    public init() {}

    /// Starts probing every loop of `group`, for as long as the loops run.
    public func start(on group: any EventLoopGroup) {
        for loop in group.makeIterator() {
            schedule(on: loop, at: .now() + Self.interval)
        }
    }

    private func schedule(on loop: any EventLoop, at deadline: NIODeadline) {
        loop.scheduleTask(deadline: deadline) { [self] in
            let now = NIODeadline.now()
            let late = now - deadline
            state.withLock { state in
                state.runs += 1
                if late > state.worst { state.worst = late }
            }
            schedule(on: loop, at: now + Self.interval)
        }
    }

    /// The worst lateness so far, and how many times the probe ran.
    func worst() -> (worst: TimeAmount, runs: Int) {
        state.withLock { ($0.worst, $0.runs) }
    }

    /// Forgets the worst lateness so far (`GET /stats?reset=1`).
    func reset() {
        state.withLock { $0 = (.zero, 0) }
    }
}
