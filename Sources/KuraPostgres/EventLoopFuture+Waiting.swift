// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Dispatch
import NIOCore

/// No answer from the server within the time allowed.
struct NoAnswer: Error, CustomStringConvertible {
    let seconds: Int64
    var description: String { "no answer from the server in \(seconds) s" }
}

/// The connection an answer would come on closed without it.
struct ConnectionLost: Error, CustomStringConvertible {
    var description: String { "the connection closed before the server answered" }
}

extension EventLoopFuture {
    /// How long the engine waits for any one answer: a safety net, so a
    /// connection the server ended without the client noticing fails
    /// instead of waiting forever. No statement of Kura's takes this long.
    static var answerTimeout: Int64 { 120 }

    /// Waits for the value, from a thread that is not the event loop's, for
    /// at most `seconds` (``answerTimeout`` unless a test says otherwise).
    ///
    /// `isClosed` tells whether the connection the answer would come on is
    /// closed: a statement queued on a connection that closed meanwhile is
    /// never answered, so once the connection is seen closed the answer
    /// gets ``closedGrace`` more (an answer already read may still be on its
    /// way through the event loop), then the wait fails with ``ConnectionLost``.
    ///
    /// The wait is a semaphore the future's callback signals: one task
    /// handed to the event loop. (A promise completed by the future or by a
    /// timeout scheduled on the loop, then `wait()` on it, handed it three,
    /// each waking its thread: a large part of a short statement's cost on
    /// the caller's thread.) It waits ``lookInterval`` at a time and looks
    /// at the connection between waits: an answer that comes ends the wait
    /// at once, so looking often costs only waits that are long anyway, and
    /// a connection the server ended while it was idle is found in
    /// milliseconds, not seconds.
    func waitForAnswer(within seconds: Int64 = answerTimeout, unlessClosed isClosed: () -> Bool = { false }) throws -> Value {
        let answer = Answer()
        whenComplete { result in
            answer.result = result
            answer.semaphore.signal()
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        var closedAt: ContinuousClock.Instant?
        while answer.semaphore.wait(timeout: .now() + Self.lookInterval) != .success {
            let now = ContinuousClock.now
            if let closedAt, now - closedAt >= Self.closedGrace { throw ConnectionLost() }
            if closedAt == nil && isClosed() { closedAt = now }
            if now >= deadline { throw NoAnswer(seconds: seconds) }
        }
        guard let result = answer.result else { throw NoAnswer(seconds: seconds) }
        return try result.get()
    }

    /// How long a wait for an answer goes before it looks at the connection again.
    static var lookInterval: DispatchTimeInterval { .milliseconds(20) }

    /// How long an answer is still waited for once its connection is seen closed.
    static var closedGrace: Duration { .milliseconds(200) }

    /// Where the callback leaves the result; the semaphore's signal makes
    /// it visible to the waiting thread.
    private final class Answer: @unchecked Sendable {
        // @unchecked: `result` is written once, before the signal, and read after the wait.
        let semaphore = DispatchSemaphore(value: 0)
        var result: Result<Value, any Error>?
    }
}
#endif
