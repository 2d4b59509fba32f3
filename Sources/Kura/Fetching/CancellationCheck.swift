/// Stops a long fetch, count or check with `CancellationError` when the task
/// running it was cancelled. Called once per record: asking costs a
/// thread-local read and an atomic load, and holds no state, so a loop that
/// calls it captures nothing.
enum CancellationCheck {
    @inline(__always)
    static func check() throws {
        if Task.isCancelled { throw CancellationError() }
    }
}
