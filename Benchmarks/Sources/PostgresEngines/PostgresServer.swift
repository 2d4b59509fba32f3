import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// A throwaway PostgreSQL server for one benchmark run, started by
/// `Scripts/postgres-cluster` (Debian's `postgresql`) in a temporary
/// directory, reached through its Unix socket, and stopped when the run
/// ends. Each engine gets a database of its own in it.
public final class PostgresServer: @unchecked Sendable {
    public let directory: String
    let socketPath: String
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private var databases = 0
    private let lock = NSLock()

    /// The server of this process, started on first use.
    public static let shared: Result<PostgresServer, Error> = Result { try PostgresServer() }

    private init() throws {
        directory = NSTemporaryDirectory() + "kura-compare-postgres-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        let output = try Self.cluster("start", directory)
        let parts = output.split(separator: " ")
        guard parts.count == 2 else { throw ServerError(description: "postgres-cluster printed '\(output)'") }
        socketPath = "\(parts[0])/.s.PGSQL.\(parts[1])"
        atexit { if case .success(let server) = PostgresServer.shared { server.stop() } }
    }

    /// Stops the server and removes its directory.
    func stop() {
        _ = try? Self.cluster("stop", directory)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A connection to a new, empty database.
    func connectToNewDatabase(logger: Logger) throws -> PostgresConnection {
        let name = lock.withLock { databases += 1; return "news_\(databases)" }
        let admin = try connect(database: "postgres", logger: logger)
        defer { try? admin.close().wait() }
        _ = try admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger).wait()
        return try connect(database: name, logger: logger)
    }

    /// A new, empty database, as the `postgres://` URL Kura opens.
    func newDatabaseURL(logger: Logger) throws -> String {
        let name = lock.withLock { databases += 1; return "news_\(databases)" }
        let admin = try connect(database: "postgres", logger: logger)
        defer { try? admin.close().wait() }
        _ = try admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger).wait()
        return "postgres://kura@/\(name)?host=\(directory)&port=5432"
    }

    private func connect(database: String, logger: Logger) throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: socketPath, username: "kura", password: nil, database: database)
        return try PostgresConnection.connect(on: group.next(), configuration: configuration, id: 1, logger: logger).wait()
    }

    /// Runs `Scripts/postgres-cluster COMMAND DIRECTORY`, returning what it
    /// printed. Spawned and reaped directly: Foundation's `Process` here
    /// missed the exit of a script whose grandchild (the server) lives on.
    private static func cluster(_ command: String, _ directory: String) throws -> String {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/postgres-cluster").path
        let outputPath = directory + ".out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let arguments = [script, command, directory]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, script, &actions, nil, &argv, environ)
        guard spawned == 0 else { throw ServerError(description: "can't run \(script): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ServerError(description: "Scripts/postgres-cluster \(command) failed (wait status \(status))")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct ServerError: Error, CustomStringConvertible {
        var description: String
    }
}
