import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Wakes when any process commits to a store file, without polling: LMDB
/// has no notifications, but every commit writes the file (its pages, then
/// the meta page that makes it current), and Linux's inotify reports the
/// writes. A thread of its own blocks in `poll` on the inotify descriptor,
/// so an idle monitor costs no CPU; each wake reads the store's newest
/// transaction ID and reports it when it moved (looking again for a short
/// while when the write that woke it isn't published yet).
final class CommitMonitor: CommitWatch, @unchecked Sendable {
    // @unchecked: the descriptors are set in init and only closed by the
    // monitor's thread after `stop` (a byte down the pipe) wakes it.
    private let watch: Int32
    /// A pipe: the thread polls the read end; `stop` writes to the other.
    private let stopper: (read: Int32, write: Int32)

    /// Starts watching `path`; `transactionID` reads the store's newest
    /// committed transaction, `commit` hears each new one (on the monitor's thread).
    init(path: String, transactionID: @escaping @Sendable () -> Int?, commit: @escaping @Sendable (Int) -> Void) throws {
        func failure(_ code: Int32) -> KuraError {
            KuraError.storage(path: path, failure: .system(errno: code, message: "can't watch the store file: " + String(cString: strerror(code))))
        }
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        guard watch >= 0 else { throw failure(errno) }
        guard inotify_add_watch(watch, path, UInt32(IN_MODIFY)) >= 0 else {
            let code = errno
            close(watch)
            throw failure(code)
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let code = errno
            close(watch)
            throw failure(code)
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let stopper = (read: ends[0], write: ends[1])
        self.watch = watch
        self.stopper = stopper
        let first = transactionID() ?? 0
        let thread = Thread {
            var last = first
            var descriptors = [pollfd(fd: watch, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: stopper.read, events: Int16(POLLIN), revents: 0)]
            var buffer = [UInt8](repeating: 0, count: 4096)
            // After a write, LMDB publishes the new transaction in its lock
            // file (shared memory, which inotify doesn't see) only once the
            // meta page is synced: so after a write with no new transaction
            // yet, look again every 2 ms for up to a second (a busy disk can
            // take that long to sync), then sleep.
            var rechecks = 0
            while true {
                let timeout: Int32 = rechecks > 0 ? 2 : -1
                guard poll(&descriptors, 2, timeout) >= 0 || errno == EINTR else { break }
                if descriptors[1].revents != 0 { break }
                if descriptors[0].revents != 0 {
                    _ = buffer.withUnsafeMutableBytes { read(watch, $0.baseAddress, $0.count) }
                    rechecks = 500
                }
                guard rechecks > 0 else { continue }
                if let current = transactionID(), current != last {
                    last = current
                    commit(current)
                    rechecks = 0
                } else {
                    rechecks -= 1
                }
            }
            close(watch)
            close(stopper.read)
            close(stopper.write)
        }
        thread.name = "Kura commit monitor"
        thread.start()
    }

    /// Stops the monitor's thread, which closes its descriptors.
    func stop() {
        var byte: UInt8 = 1
        _ = write(stopper.write, &byte, 1)
    }
}
