import Foundation
import Kura
import KuraPostgres
import Logging
import NewsEngines
import NIOCore
import NIOPosix
import PostgresNIO

/// The "processes saving concurrently" workload on PostgreSQL: each save
/// adds one to the revision of the first item of one of two groups, which
/// every process changes, so saves conflict. Kura's saves check the row
/// version and are retried in a new context; postgres-nio's are what an
/// expert writes by hand: read the revision, `UPDATE … WHERE revision = read`,
/// and retry when no row changed.
public enum ConcurrentCounters {
    static let logger = Logger(label: "kura-compare.concurrent")

    /// A new database holding a Kura store of ``ChangeWorkload`` items; its URL.
    public static func newKuraStore() throws -> String {
        let url = try PostgresServer.shared.get().newDatabaseURL(logger: logger)
        try ChangeWorkload.fill(openKuraStore(url: url), count: 20)
        return url
    }

    /// The Kura store at `url`.
    public static func openKuraStore(url: String) throws -> PersistentContainer {
        try PersistentContainer(store: .postgres(url: url), model: ChangeWorkload.model())
    }

    /// The sum of the revisions in the Kura store at `url`.
    public static func kuraRevisions(url: String) throws -> Int {
        try ChangeWorkload.revisionSum(openKuraStore(url: url))
    }

    /// A new database with the same items as a table of its own; its URL.
    public static func newTable() throws -> String {
        let url = try PostgresServer.shared.get().newDatabaseURL(logger: logger)
        try withConnection(url) { connection in
            for sql in [
                "CREATE TABLE item (id serial PRIMARY KEY, grp int8 NOT NULL, name text NOT NULL, revision int8 NOT NULL DEFAULT 0)",
                "CREATE INDEX item_grp ON item (grp)",
                "INSERT INTO item (grp, name) SELECT n / 10, 'item ' || n FROM generate_series(0, 19) AS n",
            ] {
                _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
            }
        }
        return url
    }

    /// `saves` optimistic updates of the table at `url`, calling `starting`
    /// once connected; returns the conflicts retried.
    public static func rawSaves(url: String, saves: Int, worker: Int, starting: () -> Void) throws -> Int {
        try withConnection(url) { connection in
            starting()
            var conflicts = 0
            for save in 0..<saves {
                while true {
                    var binds = PostgresBindings()
                    binds.append(Int64((save + worker) % 2))
                    let rows = try connection.query(PostgresQuery(
                        unsafeSQL: "SELECT id, revision FROM item WHERE grp = $1 ORDER BY name LIMIT 1", binds: binds),
                        logger: logger).wait()
                    guard let row = rows.first else { throw CounterError(description: "no item") }
                    let (id, revision) = try row.decode((Int32, Int64).self)
                    var update = PostgresBindings()
                    update.append(id)
                    update.append(revision)
                    let result = try connection.query(PostgresQuery(
                        unsafeSQL: "UPDATE item SET revision = $2 + 1 WHERE id = $1 AND revision = $2", binds: update),
                        logger: logger).wait()
                    if result.metadata.rows == 1 { break }
                    conflicts += 1
                }
            }
            return conflicts
        }
    }

    /// The sum of the revisions in the table at `url`.
    public static func rawRevisions(url: String) throws -> Int {
        try withConnection(url) { connection in
            Int(try connection.query("SELECT sum(revision)::int8 FROM item", logger: logger).wait().first?.decode(Int64.self) ?? 0)
        }
    }

    private static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Runs `body` on a connection to the database `url` names (a URL of
    /// ``PostgresServer``: `postgres://kura@/NAME?host=DIR&port=PORT`).
    private static func withConnection<Result>(_ url: String, _ body: (PostgresConnection) throws -> Result) throws -> Result {
        guard let parts = URLComponents(string: url),
              let host = parts.queryItems?.first(where: { $0.name == "host" })?.value,
              let port = parts.queryItems?.first(where: { $0.name == "port" })?.value else {
            throw CounterError(description: "not a server URL: \(url)")
        }
        let configuration = PostgresConnection.Configuration(
            unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: "kura", password: nil, database: String(parts.path.dropFirst()))
        let connection = try PostgresConnection.connect(on: group.next(), configuration: configuration, id: 1, logger: logger).wait()
        defer { try? connection.close().wait() }
        return try body(connection)
    }

    struct CounterError: Error, CustomStringConvertible {
        var description: String
    }
}
