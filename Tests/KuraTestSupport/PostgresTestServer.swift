import Foundation

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
    public init(directory: String) throws {
        self.directory = directory
        try? FileManager.default.removeItem(atPath: directory)
        let output = try Self.run(Self.script, ["start", directory, String(getpid())])
        let parts = output.split(separator: " ")
        guard parts.count == 2 else { throw ChildProcess.Failure(description: "postgres-cluster printed '\(output)'") }
        port = String(parts[1])
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
