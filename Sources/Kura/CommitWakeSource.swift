#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KuraCore

/// What wakes a ``CommitMonitor``'s thread to look for a new commit: the
/// system's notice that the store file was written (inotify on Linux,
/// kqueue on Apple platforms), or, where neither is there or when asked
/// (`KURA_COMMIT_WATCH=polling`), a clock.
enum CommitWakeSource {
    /// A descriptor `poll` reports readable when the file was written; read
    /// it empty with ``drain(using:)``. (`watchedFile`: the file's own descriptor,
    /// which kqueue needs open as long as the watch; -1 for inotify.)
    case notice(descriptor: Int32, watchedFile: Int32)
    /// No notice: look every `milliseconds`.
    case polling(milliseconds: Int32)

    /// How a monitor is woken, when not told otherwise.
    enum Choice: Sendable, Equatable {
        /// The system's file notices where it has them, else polling.
        case system
        /// A look every `milliseconds`, whatever the system has.
        case polling(milliseconds: Int32)

        /// `KURA_COMMIT_WATCH=polling` (every 50 ms) or `polling:MS` for
        /// every monitor of the process; else ``system``.
        static let processDefault: Choice = {
            guard let value = getenv("KURA_COMMIT_WATCH").map({ String(cString: $0) }), value.hasPrefix("polling") else { return .system }
            return .polling(milliseconds: Int32(value.dropFirst("polling:".count)).map { max(1, $0) } ?? 50)
        }()
    }

    /// Starts watching `path` as `choice` says; throws the system's error
    /// code when the system's notices can't be had.
    static func open(path: String, _ choice: Choice) throws(SystemError) -> CommitWakeSource {
        if case .polling(let milliseconds) = choice { return .polling(milliseconds: milliseconds) }
        #if os(Linux)
        let watch = inotify_init1(Int32(IN_CLOEXEC))
        guard watch >= 0 else { throw SystemError(code: errno) }
        guard inotify_add_watch(watch, path, UInt32(IN_MODIFY)) >= 0 else {
            let code = errno
            closeDescriptor(watch)
            throw SystemError(code: code)
        }
        return .notice(descriptor: watch, watchedFile: -1)
        #elseif canImport(Darwin)
        let file = Darwin.open(path, O_EVTONLY | O_CLOEXEC)
        guard file >= 0 else { throw SystemError(code: errno) }
        let queue = kqueue()
        guard queue >= 0 else {
            let code = errno
            closeDescriptor(file)
            throw SystemError(code: code)
        }
        var change = kevent(ident: UInt(file), filter: Int16(EVFILT_VNODE), flags: UInt16(EV_ADD | EV_CLEAR),
                            fflags: UInt32(NOTE_WRITE | NOTE_EXTEND), data: 0, udata: nil)
        guard kevent(queue, &change, 1, nil, 0, nil) >= 0 else {
            let code = errno
            closeDescriptor(queue)
            closeDescriptor(file)
            throw SystemError(code: code)
        }
        return .notice(descriptor: queue, watchedFile: file)
        #else
        return .polling(milliseconds: 50)
        #endif
    }

    /// The descriptor to poll, if any.
    var descriptor: Int32? {
        if case .notice(let descriptor, _) = self { descriptor } else { nil }
    }

    /// How long to wait when nothing is pending: forever for notices, the
    /// interval for polling.
    var idleTimeout: Int32 {
        if case .polling(let milliseconds) = self { milliseconds } else { -1 }
    }

    /// Reads the pending notices, so the next `poll` waits for new ones;
    /// `buffer` is the monitor thread's, made once.
    func drain(using buffer: inout [UInt8]) {
        guard case .notice(let descriptor, _) = self else { return }
        #if canImport(Darwin)
        var event = kevent()
        var none = timespec(tv_sec: 0, tv_nsec: 0)
        while kevent(descriptor, nil, 0, &event, 1, &none) > 0 {}
        #else
        _ = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        #endif
    }

    /// Closes the descriptors (once, by the monitor's thread).
    func close() {
        guard case .notice(let descriptor, let watchedFile) = self else { return }
        closeDescriptor(descriptor)
        if watchedFile >= 0 { closeDescriptor(watchedFile) }
    }

    /// A system call's error code.
    struct SystemError: Error {
        var code: Int32
    }
}

/// The C library's `close`, out of reach of ``CommitWakeSource/close()``'s name.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
