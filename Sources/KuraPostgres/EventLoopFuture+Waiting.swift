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
    /// gets one more second, then the wait fails with ``ConnectionLost``.
    ///
    /// The wait is a semaphore the future's callback signals: one task
    /// handed to the event loop. (A promise completed by the future or by a
    /// timeout scheduled on the loop, then `wait()` on it, handed it three,
    /// each waking its thread: a large part of a short statement's cost on
    /// the caller's thread.) It waits a second at a time, and
    /// looks at the connection between seconds.
    func waitForAnswer(within seconds: Int64 = answerTimeout, unlessClosed isClosed: () -> Bool = { false }) throws -> Value {
        let answer = Answer()
        whenComplete { result in
            answer.result = result
            answer.semaphore.signal()
        }
        var waited: Int64 = 0
        var sawClosed = false
        while answer.semaphore.wait(timeout: .now() + .seconds(1)) != .success {
            waited += 1
            if sawClosed { throw ConnectionLost() }
            sawClosed = isClosed()
            if waited >= seconds { throw NoAnswer(seconds: seconds) }
        }
        guard let result = answer.result else { throw NoAnswer(seconds: seconds) }
        return try result.get()
    }

    /// Where the callback leaves the result; the semaphore's signal makes
    /// it visible to the waiting thread.
    private final class Answer: @unchecked Sendable {
        // @unchecked: `result` is written once, before the signal, and read after the wait.
        let semaphore = DispatchSemaphore(value: 0)
        var result: Result<Value, any Error>?
    }
}
#endif
