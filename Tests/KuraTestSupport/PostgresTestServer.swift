import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server for the tests of one process, started by
/// `Scripts/postgres-cluster` (Debian's `postgresql`) in a temporary
/// directory on first use, reached through its Unix socket only, and
/// stopped when the process exits. Each test gets a database of its own.
///
/// Without PostgreSQL installed, ``shared`` holds the error, and every test
/// that asks for a database fails with it: none is skipped.
public final class PostgresTestServer: @unchecked Sendable {
    // @unchecked: immutable but for `databases`, under `lock`.
    public let directory: String
    public let port: String
    private let lock = NSLock()
    private var databases = 0

    /// The server of this process.
    public static let shared: Result<PostgresTestServer, any Error> = Result {
        let server = try PostgresTestServer(directory: NSTemporaryDirectory() + "kura-pg-\(getpid())")
        atexit {
            if case .success(let server) = PostgresTestServer.shared { server.remove() }
        }
        return server
    }

    /// Starts a server of its own in `directory` (made anew); stop it with
    /// ``remove()``. For a test that stops and starts its server. Should this
    /// process end without removing it (a crash, a kill, an exit that skips
    /// `atexit`), the script's watcher stops the server and removes its
    /// directory: no test run leaves servers behind.
    ///
    /// `serverOptions` adds server settings (`-c ssl=on …`), as
    /// `KURA_POSTGRES_SERVER_OPTIONS` does for the script.
    public init(directory: String, serverOptions: String? = nil) throws {
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory)
        let start = ["start", directory, String(getpid())]
        let output = if let serverOptions {
            // On loopback too: a free port of its own.
            try Self.run("/usr/bin/env", [
                "KURA_POSTGRES_SERVER_OPTIONS=\(serverOptions)", "KURA_POSTGRES_PORT=\(try Self.freePort())", Self.script,
            ] + start)
        } else {
            try Self.run(Self.script, start)
        }
        let parts = output.split(separator: " ")
        guard parts.count == 2 else { throw ChildProcess.Failure(description: "postgres-cluster printed '\(output)'") }
        port = String(parts[1])
    }

    /// Makes a hot standby of `primary` in `directory` (a base backup that
    /// streams from it, made anew) and starts it; like a server of its own,
    /// it is stopped and removed when this process ends.
    public init(standbyOf primary: PostgresTestServer, directory: String) throws {
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory)
        let output = try Self.run(Self.script, ["standby", directory, primary.directory, String(getpid())])
        port = String(output.split(separator: " ").last ?? "")
    }

    /// pgbouncer in `directory`, in front of this server, in `mode`
    /// (`session` or `transaction`): its URLs are this server's through the pooler.
    public func pooler(directory: String, mode: String) throws -> PostgresTestServer {
        try PostgresTestServer(pooling: self, directory: directory, mode: mode)
    }

    private init(pooling server: PostgresTestServer, directory: String, mode: String) throws {
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory)
        let output = try Self.run(Self.script, ["pooler", directory, server.directory, mode, String(getpid())])
        port = String(output.split(separator: " ").last ?? "")
    }

    /// Makes this standby a primary (`pg_ctl promote`), waiting until it is.
    public func promote() throws {
        try Self.run(Self.script, ["promote", directory])
    }

    /// Stops the server, keeping its data: a fast shutdown (sessions are
    /// ended cleanly), or with `immediately` a crash (`pg_ctl stop -m
    /// immediate`: the server recovers from its log when it starts again).
    public func stop(immediately: Bool = false) throws {
        try Self.run(Self.script, ["stop", directory] + (immediately ? ["immediate"] : []))
    }

    /// Starts the stopped server again.
    public func start() throws {
        try Self.run(Self.script, ["start", directory])
    }

    /// Stops the server and removes its directory.
    public func remove() {
        _ = try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A new, empty database, as a `postgres://` URL for Kura.
    public func newDatabase() throws -> String {
        let name = lock.withLock { databases += 1; return "kura_test_\(databases)" }
        return try newDatabase(named: name)
    }

    /// A new, empty database named `name`, as a `postgres://` URL for Kura.
    public func newDatabase(named name: String) throws -> String {
        _ = try Self.run("/usr/bin/createdb", ["-h", directory, "-p", port, "-U", "kura", name])
        return url(of: name)
    }

    /// The URL of database `name` on this server.
    public func url(of name: String) -> String {
        "postgres://kura@/\(name)?host=\(directory)&port=\(port)"
    }

    /// Runs SQL in database `name` with `psql`, returning what it printed (unaligned, tuples only).
    public func psql(_ name: String, _ sql: String) throws -> String {
        try Self.run("/usr/bin/psql", ["-h", directory, "-p", port, "-U", "kura", "-d", name, "-At", "-c", sql])
    }

    /// Starts `psql` running `sql` in database `name`, without waiting for it.
    public func startPsql(_ name: String, _ sql: String) throws -> ChildProcess {
        try ChildProcess("/usr/bin/psql", ["-h", directory, "-p", port, "-U", "kura", "-d", name, "-At", "-c", sql],
                         standardOutput: .pipe)
    }

    /// A TCP port on loopback that no one listens on now.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ChildProcess.Failure(description: "no socket: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw ChildProcess.Failure(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/postgres-cluster").path

    /// Runs `executable`, returning its output; a failure says what it printed.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let errors = NSTemporaryDirectory() + "kura-pg-\(getpid())-\(UUID().uuidString).err"
        defer { unlink(errors) }
        let child = try ChildProcess(executable, arguments, standardOutput: .pipe, standardError: .file(errors))
        let output = String(decoding: child.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let termination = try child.wait(timeout: 120)
        guard termination == .exited(0) else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw ChildProcess.Failure(description: "\(executable) \(arguments.joined(separator: " ")) \(termination): \(message)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
