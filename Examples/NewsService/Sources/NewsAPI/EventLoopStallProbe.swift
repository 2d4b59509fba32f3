import NIOCore
import Synchronization

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
    public func worst() -> (worst: TimeAmount, runs: Int) {
        state.withLock { ($0.worst, $0.runs) }
    }

    /// Forgets the worst lateness so far (`GET /stats?reset=1`).
    public func reset() {
        state.withLock { $0 = (.zero, 0) }
    }
}
