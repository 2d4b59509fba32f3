// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore
import NIOCore
import PostgresNIO

/// Saves whose commit answer was lost with their connection.
extension PostgresEngine {
    /// A write whose commit went out on a connection: its writer and number.
    struct WriteInDoubt {
        let writer: [UInt8]
        let number: Int64
        /// A write of one statement (``PostgresTransaction/commitExpected(sent:)``), which runs again when it didn't commit.
        let isOneStatement: Bool

        init(connection: PooledConnection, isOneStatement: Bool) {
            writer = connection.writer
            number = connection.writes
            self.isOneStatement = isOneStatement
        }
    }

    /// Whether a write whose commit answer was lost committed, asked on a
    /// new connection (to whichever server now serves the URL: after a
    /// failover, the promoted standby).
    ///
    /// Every write marks its number in its writer's row of `kura_saves`
    /// with its last statement (`kura_mark_save`), which fails once the
    /// number is *fenced*. This sets the fence: a write that marked holds
    /// the row until it ends, so the fence waits for it and then reads what
    /// it left; a write that hadn't marked yet can't any more, and never
    /// commits. So the answer is final wherever the lost connection's
    /// server process is, or whichever pooler's server ran the write.
    ///
    /// While no server can be reached this tries again every tenth of a
    /// second for at most ``PostgresOptions/answerLossWait``; after that
    /// the save throws `serverUnavailable` saying that whether it committed
    /// is unknown, rather than holding the caller until a server returns.
    ///
    /// After a failover, a commit the old primary made and no standby
    /// received is not on the new one: with synchronous replication, no
    /// commit was answered before a standby had it, so a save told
    /// "committed" is there, and one found missing was never answered.
    func resolve(_ write: WriteInDoubt) throws -> Bool {
        let started = ContinuousClock.now
        var lastError: any Error = KuraError.storage(path: location, failure: .serverUnavailable("no answer"))
        while case let left = options.answerLossWait - (ContinuousClock.now - started), left > .zero {
            do {
                let committed: Bool? = try withConnection { pooled in
                    let connection = pooled.connection
                    var binds = PostgresBindings()
                    binds.append(ByteBuffer(bytes: write.writer))
                    binds.append(write.number)
                    // A write whose server process still runs (its client
                    // gone, which it hasn't noticed) holds the row: the
                    // fence waits for it, for the time left.
                    binds.append(max(100, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                    do {
                        let stored = try connection.query(PostgresQuery(unsafeSQL: "SELECT committed FROM kura_fence_save($1, $2, $3)", binds: binds),
                                                          logger: logger)
                            .waitForAnswer(unlessClosed: { connection.isClosed }).first?.decode(Int64.self) ?? 0
                        return stored >= write.number
                    } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
                        lastError = error
                        return nil  // still running: not known yet
                    }
                }
                if let committed { return committed }
            } catch let error where isConnectionFailure(error) {
                lastError = error
                usleep(100_000)
            }
        }
        throw KuraError.storage(path: location, failure: .serverUnavailable(
            "the connection was lost after the save's commit was sent, and the server could not be reached "
                + "to tell whether it committed (\(lastError)): the save's outcome is unknown; the context keeps its changes, "
                + "so look before saving them again (with a unique key and a merge policy other than .error, saving again is an upsert)"))
    }
}
#endif
