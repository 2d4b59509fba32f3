// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore
import NIOCore
import PostgresNIO

/// Connecting to the servers of the store's URL, and Kura's errors for what
/// the server or the connection reports.
extension PostgresEngine {
    /// A new connection to the first server of `servers` (the store's, by
    /// default) that serves the URL's `target_session_attrs`, trying them in
    /// order: a server that can't be reached, or serves other sessions (a
    /// standby where the URL asks for `read-write`), is passed over.
    func connect(to servers: PostgresServers? = nil) throws -> PooledConnection {
        let servers = servers ?? self.servers
        var passedOver: [String] = []
        var firstRefusal: (any Error)?
        for pass in 1...servers.sessionAttributes.passes {
            for candidate in servers.candidates {
                let opened: (connection: PooledConnection, inRecovery: Bool, readOnly: Bool)
                do {
                    opened = try open(candidate)
                } catch {
                    // One server: its error as it is. Several: the next one.
                    guard servers.candidates.count > 1 else { throw error }
                    if !isConnectionFailure(error) { firstRefusal = firstRefusal ?? error }
                    passedOver.append("\(candidate.name): \(error)")
                    continue
                }
                if servers.sessionAttributes.accepts(inRecovery: opened.inRecovery, readOnly: opened.readOnly, pass: pass) {
                    return opened.connection
                }
                opened.connection.close()
                passedOver.append("\(candidate.name): \(opened.inRecovery ? "a standby" : opened.readOnly ? "read-only" : "a primary")")
            }
        }
        if let firstRefusal, passedOver.count == servers.candidates.count * servers.sessionAttributes.passes {
            throw firstRefusal  // every server refused: connecting again won't help
        }
        throw KuraError.storage(path: location, failure: .serverUnavailable(
            "no server of the URL serves target_session_attrs=\(servers.sessionAttributes.rawValue) now (\(passedOver.joined(separator: "; ")))"))
    }

    /// Connects to one server, and asks it what it serves.
    private func open(_ candidate: PostgresServers.Candidate) throws -> (connection: PooledConnection, inRecovery: Bool, readOnly: Bool) {
        do {
            let id = connectionIDs.wrappingAdd(1, ordering: .relaxed).newValue
            let connection = try PostgresConnection.connect(
                on: group.next(), configuration: candidate.configuration, id: id, logger: logger).waitForAnswer()
            // Every join here finds rows by key: keep PostgreSQL to index
            // lookups in key order (its statistics of one shared table
            // can't tell, and chose hash joins over every record), without
            // a cache of lookups (each key is looked up once: measured,
            // a top-100 walk took 0.29 ms with it and 0.16–0.21 ms without).
            // Set for the session, or through a pooler in transaction mode
            // for each transaction (PostgresTransaction.sendBegin). The same
            // statement names the server process and what it serves.
            let settings = options.pooling == .session ? "FROM (SELECT \(Self.plannerSettings(local: false))) AS settings" : ""
            let row = try connection.query(PostgresQuery(unsafeSQL: """
                SELECT pg_backend_pid(), pg_is_in_recovery(), current_setting('transaction_read_only') = 'on' \(settings)
                """), logger: logger).waitForAnswer(unlessClosed: { connection.isClosed }).first
            let (processID, inRecovery, readOnly) = try row?.decode((Int32, Bool, Bool).self) ?? (Int32(0), false, false)
            let pooled = PooledConnection(
                connection, processID: processID, writer: Array("\(commitMark).\(id)".utf8), preparesStatements: options.pooling == .session)
            return (pooled, inRecovery, readOnly)
        } catch {
            throw translated(error)
        }
    }

    /// The planner's settings every statement of the store runs with
    /// (`set_config` calls: for the session, or with `local` the transaction).
    static func plannerSettings(local: Bool) -> String {
        ["enable_hashjoin", "enable_mergejoin", "enable_bitmapscan", "enable_memoize"]
            .map { "set_config('\($0)', 'off', \(local))" }.joined(separator: ", ")
    }

    /// Whether `error` is the connection's failure (then nothing more is
    /// sent on it: a statement on a connection the server ended can wait forever).
    func isConnectionFailure(_ error: any Error) -> Bool {
        guard let error = translated(error) as? KuraError, let failure = error.storageFailure else { return false }
        return failure.code == .serverUnavailable
    }

    /// Kura's error for a failure of the server or of the connection.
    ///
    /// What retrying can fix is ``StorageFailure/serverUnavailable(_:)``: a
    /// server that can't be reached, a connection lost, a server shutting
    /// down (SQLSTATE 57P01, 57P02, 57P03). What it can't (a password the
    /// server wants and the URL hasn't, an authentication it refuses, an
    /// unknown database, a statement it refuses) is ``StorageFailure/engine(code:message:)``.
    func translated(_ error: any Error) -> any Error {
        switch error {
        case is KuraError, is StorageEngineError, is CancellationError:
            return error
        case let error as NothingKept:
            return translated(error.error)
        case let error as PSQLError where error.code == .server:
            return serverFailure(error.serverInfo?[.message] ?? "\(error)", state: error.serverInfo?[.sqlState])
        case let error as PSQLError where error.underlying.map(PostgresTLS.isRefusal) == true:
            return PostgresTLS.refusal(error.underlying!, location: location)
        case let error where PostgresTLS.isRefusal(error):
            return PostgresTLS.refusal(error, location: location)
        case let error as PSQLError where Self.refusals[error.code] != nil:
            return KuraError.storage(path: location, failure: .engine(code: 0, message: "can't connect: \(Self.refusals[error.code]!)"))
        case let error as PSQLError:
            return KuraError.storage(path: location, failure: .serverUnavailable("\(error.code)"))
        case PostgresError.server(let error):
            // (PostgresNIO's prepared queries report PostgreSQL's errors so.)
            return serverFailure(error.fields[.message] ?? "\(error)", state: error.fields[.sqlState])
        default:
            // What a write's body threw of its own goes back as it is (the
            // seam's contract); the rest came from the connection.
            guard Self.comesFromTheConnection(error) else { return error }
            return KuraError.storage(path: location, failure: .serverUnavailable(String(describing: error)))
        }
    }

    /// Whether `error` is one of the client's (swift-nio, postgres-nio, or
    /// this engine's own), by the module that declares its type.
    private static func comesFromTheConnection(_ error: any Error) -> Bool {
        let module = String(reflecting: type(of: error)).prefix { $0 != "." }
        return module.hasPrefix("NIO") || module == "PostgresNIO" || module == "KuraPostgres"
    }

    /// Connections the server or the client refuse for a reason that
    /// connecting again won't change.
    private static let refusals: [PSQLError.Code: String] = [
        .authMechanismRequiresPassword: "the server asks for a password, and the URL has none",
        .unsupportedAuthMechanism: "the server asks for an authentication this client doesn't support",
        .saslError: "the SCRAM authentication failed",
        .sslUnsupported: "the server doesn't support TLS",
        .failedToAddSSLHandler: "TLS couldn't be set up",
        .receivedUnencryptedDataAfterSSLRequest: "the server answered a TLS request without TLS",
    ]

    /// Kura's error for an error the server sent: a shutdown is the
    /// server's unavailability; anything else, the statement's failure.
    private func serverFailure(_ message: String, state: String?) -> KuraError {
        if let state, ["57P01", "57P02", "57P03"].contains(state) {
            return KuraError.storage(path: location, failure: .serverUnavailable("\(message) (SQLSTATE \(state))"))
        }
        if let state, ["26000", "42P05"].contains(state) {
            // A statement prepared on the connection is missing, or one of
            // its names taken: its transactions aren't all one server's.
            return KuraError.storage(path: location, failure: .engine(code: 0, message: Self.transactionPoolingAdvice(
                "\(message) (SQLSTATE \(state)), on a connection that prepared it")))
        }
        return KuraError.storage(path: location, failure: .engine(code: 0, message: "\(message) (SQLSTATE \(state ?? ""))"))
    }
}
#endif
