import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C in an interactive session: a `SIGINT` handler that only notes the
/// signal, so the session can clear the line at the prompt or cancel the
/// command that is running, and go on, as sqlite3's shell does.
enum Interrupts {
    /// Set by the handler; read and cleared by ``take()``. An atomic store is
    /// safe in a signal handler.
    private static let pending = Atomic<Bool>(false)

    /// Installs the handler, without `SA_RESTART`: a read waiting at the
    /// prompt returns, so the prompt can start again.
    static func install() {
        _ = pending.load(ordering: .relaxed)  // initialized now, not inside the handler
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in Interrupts.pending.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
    }

    /// True, once, after each Ctrl-C.
    static func take() -> Bool {
        pending.exchange(false, ordering: .relaxed)
    }
}
