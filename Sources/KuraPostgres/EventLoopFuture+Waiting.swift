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
    /// at most ``answerTimeout`` seconds.
    func waitForAnswer() throws -> Value {
        let seconds = Self.answerTimeout
        let promise = eventLoop.makePromise(of: Value.self)
        let timeout = eventLoop.scheduleTask(in: .seconds(seconds)) { promise.fail(NoAnswer(seconds: seconds)) }
        whenComplete { result in
            timeout.cancel()
            promise.completeWith(result)
        }
        return try promise.futureResult.wait()
    }
}
