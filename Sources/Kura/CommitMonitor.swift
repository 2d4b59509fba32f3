import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KuraCore

/// Wakes when any process commits to a store file, without polling: LMDB
/// has no notifications, but every commit writes the file (its pages, then
/// the meta page that makes it current), and the system reports the writes
/// (inotify on Linux, kqueue on Apple platforms; see ``CommitWakeSource``,
/// which polls where neither exists). A thread of its own blocks in `poll`
/// on that descriptor, so an idle monitor costs no CPU; each wake reads the
/// store's newest transaction ID and reports it when it moved (looking
/// again for a short while when the write that woke it isn't published yet).
final class CommitMonitor: CommitWatch, @unchecked Sendable {
    // @unchecked: the watch descriptor and the pipe's read end are the
    // thread's, closed by it when it ends; the write end is ``stop()``'s,
    // under `state`.
    /// The pipe's write end (`nil` once stopped), and whether the thread
    /// ended (it closes its descriptors then: nothing is written to a
    /// number that may name another file by now).
    private let state: Shared

    /// The state the monitor and its thread share.
    private final class Shared: Sendable {
        let lock: Mutex<(writeEnd: Int32?, threadEnded: Bool)>
        init(writeEnd: Int32) { lock = Mutex((writeEnd, false)) }
    }

    /// Starts watching `path`; `transactionID` reads the store's newest
    /// committed transaction, `commit` hears each new one (on the monitor's thread).
    init(path: String, wake choice: CommitWakeSource.Choice = .processDefault,
         transactionID: @escaping @Sendable () -> Int?, commit: @escaping @Sendable (Int) -> Void) throws {
        func failure(_ code: Int32) -> KuraError {
            KuraError.storage(path: path, failure: .system(errno: code, message: "can't watch the store file: " + String(cString: strerror(code))))
        }
        let wake: CommitWakeSource
        do {
            wake = try CommitWakeSource.open(path: path, choice)
        } catch {
            throw failure(error.code)
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let code = errno
            wake.close()
            throw failure(code)
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let stopRead = ends[0]
        let state = Shared(writeEnd: ends[1])
        self.state = state
        let first = transactionID() ?? 0
        let thread = Thread {
            ThreadName.setCurrent("Kura commits")
            var last = first
            // The stop pipe first; the wake source's descriptor, if it has one.
            var descriptors: [pollfd] = []
            descriptors.reserveCapacity(2)
            descriptors.append(pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0))
            if let notices = wake.descriptor { descriptors.append(pollfd(fd: notices, events: Int16(POLLIN), revents: 0)) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            // After a write, LMDB publishes the new transaction in its lock
            // file (shared memory, which inotify doesn't see) only once the
            // meta page is synced: so after a write with no new transaction
            // yet, look again every 2 ms for up to a second (a busy disk can
            // take that long to sync), then sleep.
            var rechecks = 0
            while true {
                let timeout: Int32 = rechecks > 0 ? 2 : wake.idleTimeout
                let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
                guard ready >= 0 || errno == EINTR else { break }
                if descriptors[0].revents != 0 { break }
                if descriptors.count > 1, descriptors[1].revents != 0 {
                    wake.drain(using: &buffer)
                    rechecks = 500
                } else if ready == 0, rechecks == 0 {
                    // Polling: the interval passed; look once.
                    rechecks = 1
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
            // Marked ended before the read end closes: a stop from now on
            // writes nothing down the pipe.
            state.lock.withLock { $0.threadEnded = true }
            wake.close()
            close(stopRead)
        }
        thread.start()
    }

    /// Stops the monitor's thread (which closes its descriptors), and closes
    /// the pipe's write end. Stopping again does nothing.
    func stop() {
        state.lock.withLock { state in
            guard let writeEnd = state.writeEnd else { return }
            if !state.threadEnded {
                var byte: UInt8 = 1
                _ = write(writeEnd, &byte, 1)
            }
            close(writeEnd)
            state.writeEnd = nil
        }
    }

    deinit {
        stop()
    }
}
