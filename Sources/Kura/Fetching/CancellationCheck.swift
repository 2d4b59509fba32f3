/// Checks, every 32 records, whether the task running a long fetch,
/// count or check was cancelled, and stops it with `CancellationError`.
/// Checking costs a counter per record; asking the task, one call per 32.
struct CancellationCheck {
    private var count: UInt = 0

    @inline(__always)
    mutating func tick() throws {
        count &+= 1
        if count & 31 == 0 { try Task.checkCancellation() }
    }
}
