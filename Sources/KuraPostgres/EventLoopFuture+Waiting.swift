import Dispatch
import NIOCore

/// No answer from the server within the time allowed.
struct NoAnswer: Error, CustomStringConvertible {
    let seconds: Int64
    var description: String { "no answer from the server in \(seconds) s" }
}

extension EventLoopFuture {
    /// How long the engine waits for any one answer: a safety net, so a
    /// connection the server ended without the client noticing fails
    /// instead of waiting forever. No statement of Kura's takes this long.
    static var answerTimeout: Int64 { 120 }

    /// Waits for the value, from a thread that is not the event loop's, for
    /// at most `seconds` (``answerTimeout`` unless a test says otherwise).
    ///
    /// The wait is a semaphore the future's callback signals: one task
    /// handed to the event loop. (A promise completed by the future or by a
    /// timeout scheduled on the loop, then `wait()` on it, handed it three,
    /// each waking its thread: about 12,000 instructions a statement on the
    /// caller's thread alone, callgrind.)
    func waitForAnswer(within seconds: Int64 = answerTimeout) throws -> Value {
        let answer = Answer()
        whenComplete { result in
            answer.result = result
            answer.semaphore.signal()
        }
        guard answer.semaphore.wait(timeout: .now() + .seconds(Int(seconds))) == .success,
              let result = answer.result else {
            throw NoAnswer(seconds: seconds)
        }
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
