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

/// Counts records a scan passes over without considering them, asking
/// ``CancellationCheck`` every 1,024: a scan that keeps few of its records
/// stays cancellable without paying the check for each one.
struct SkipCount {
    private var skipped = 0

    @inline(__always)
    mutating func count() throws {
        skipped &+= 1
        if skipped & 1023 == 0 { try CancellationCheck.check() }
    }
}
