import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid`.
///
/// The tests don't use Foundation's `Process`: on Linux its exit detection
/// runs through a run loop and a SIGCHLD source, and under CI it sometimes
/// never noticed a child that had exited (a zombie), so `waitUntilExit()`
/// blocked the whole run until CI's time limit. Here waiting is a plain
/// `waitpid` with a deadline: a child that outlives it is killed and the
/// wait throws, so a stuck child is a test failure, never a stuck run.
///
/// The child gets only the descriptors asked for (every other one is closed
/// in the child), so a long-lived child such as a tmux server never holds
/// another test's pipe open, and an empty signal mask with default handlers.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// The test process's own stream.
        case inherit
        /// `/dev/null`.
        case null
        /// A pipe whose other end is ``standardInput``, ``standardOutput``
        /// or ``standardError``.
        case pipe
        /// A file, created or truncated.
        case file(String)
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// A child that could not be started, or ended unexpectedly.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let processIdentifier: pid_t
    /// The write end of the child's stdin, when it is a pipe.
    public let standardInput: FileHandle?
    /// The read end of the child's stdout, when it is a pipe.
    public let standardOutput: FileHandle?
    /// The read end of the child's stderr, when it is a pipe.
    public let standardError: FileHandle?

    private let lock = NSLock()
    private var termination: Termination?

    /// Starts `executable` (a full path) with `arguments`; `environment`
    /// replaces the test process's environment when given.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardInput: Stream = .null, standardOutput: Stream = .pipe, standardError: Stream = .inherit
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var theirs: [Int32] = []  // the child's ends, closed here after the spawn
        defer { theirs.forEach { _ = close($0) } }
        func connect(_ stream: Stream, to target: Int32, childReads: Bool) throws -> FileHandle? {
            switch stream {
            case .inherit:
                return nil
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return nil
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                return nil
            case .pipe:
                var fds: [Int32] = [-1, -1]
                guard pipe(&fds) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
                fds.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                let (child, parent) = childReads ? (fds[0], fds[1]) : (fds[1], fds[0])
                theirs.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, target)
                return FileHandle(fileDescriptor: parent, closeOnDealloc: true)
            }
        }
        self.standardInput = try connect(standardInput, to: 0, childReads: true)
        self.standardOutput = try connect(standardOutput, to: 1, childReads: false)
        self.standardError = try connect(standardError, to: 2, childReads: false)
        Self.closeFrom(3, in: &actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        processIdentifier = pid
    }

    /// Closes every descriptor from `lowest` up in the child, through glibc's
    /// `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Swift's
    /// Glibc module doesn't import it). Older libcs rely on `FD_CLOEXEC`.
    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
    }

    /// Whether the child is still running (reaping it if it has ended).
    public var isRunning: Bool { poll() == nil }

    /// Sends `signal` to the child, unless it has already been reaped.
    public func kill(_ signal: Int32 = SIGKILL) {
        lock.withLock {
            if termination == nil { _ = Glibc.kill(processIdentifier, signal) }
        }
    }

    /// Waits for the child to end, at most `timeout` seconds; a child still
    /// running then is killed and the wait throws.
    @discardableResult
    public func wait(timeout: Double = 120) throws -> Termination {
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 100
        while Date() < deadline {
            if let ended = poll() { return ended }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        kill(SIGKILL)
        while poll() == nil { usleep(1_000) }
        throw Failure(description: "\(processIdentifier) was still running after \(timeout) s and was killed")
    }

    /// Writes `text` to the child's stdin pipe and closes it.
    public func send(_ text: String) throws {
        guard let standardInput else { return }
        standardInput.write(Data(text.utf8))
        try standardInput.close()
    }

    private func poll() -> Termination? {
        lock.withLock {
            if let termination { return termination }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            if result == -1 && errno == ECHILD {
                termination = .exited(-1)  // reaped by someone else: the status is lost
                return termination
            }
            guard result == processIdentifier else { return nil }
            let signal = status & 0x7f
            termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            return termination
        }
    }
}
