#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the threads Kura starts, where the system shows them (`top -H`,
/// `ps -L`, `/proc/PID/task/TID/comm`, debuggers). Foundation's
/// `Thread.name` doesn't reach the system's thread on Linux.
package enum ThreadName {
    /// The longest name Linux keeps, in bytes (16 with the terminating zero).
    static let limit = 15

    /// Names the calling thread `name`, cut to ``limit`` bytes at a
    /// character's boundary.
    package static func setCurrent(_ name: String) {
        let cut = truncated(name)
        #if canImport(Darwin)
        _ = pthread_setname_np(cut)
        #elseif os(Linux)
        // What `pthread_setname_np` does (which Swift's Glibc module doesn't
        // offer): write the calling thread's `comm`.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = cut.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
        #endif
    }

    /// `name`, cut to at most ``limit`` UTF-8 bytes without splitting a character.
    static func truncated(_ name: String) -> String {
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= limit else { break }
            cut.append(character)
        }
        return cut
    }
}
