/// Stops a long fetch, count or check with `CancellationError` when the task
/// running it was cancelled. Called once per record: asking costs a
/// thread-local read and an atomic load, and holds no state, so a loop that
/// calls it captures nothing.
enum CancellationCheck {
    @inline(__always)
    static func check() throws {
        if Task.isCancelled { throw CancellationError() }
    }

    /// For a record a scan passes over without considering it: asks for
    /// one primary key in 1,024 (keys are given out in sequence, so about
    /// one such record in 1,024), so a scan that keeps few of its records
    /// stays cancellable without paying the check for each one. It holds no
    /// count: a `var` the scan's closure captured and changed cost a
    /// runtime exclusivity check per record (a tenth of a top-K scan).
    @inline(__always)
    static func check(passingOver primaryKey: UInt64) throws {
        if primaryKey & 1023 == 0 { try check() }
    }
}
