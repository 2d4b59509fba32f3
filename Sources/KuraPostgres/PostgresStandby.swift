// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore
import PostgresNIO
import Synchronization

/// A hot standby that serves a store's read transactions
/// (``PostgresOptions/standbyURL``), with read-your-writes: its pool of
/// connections, the WAL position just past the store's last commit, and the
/// last position the standby was seen to have replayed.
///
/// A read goes to the standby when it has replayed the store's last commit
/// (asked only when that commit is newer than what it was last seen to
/// have: replay only moves forward), waiting for it up to
/// ``PostgresOptions/standbyWait``, and otherwise to the primary; so does a
/// read while the standby can't be reached (tried again after a second).
final class PostgresStandby: Sendable {
    let servers: PostgresServers
    let pool: ConnectionPool
    let wait: Duration
    private let state = Mutex(State())
    /// Reads the standby served, and reads that went to the primary because
    /// it hadn't replayed in time or couldn't be reached: tests read them.
    let reads = Atomic(0)
    let fallbacks = Atomic(0)

    private struct State {
        /// Just past the store's last commit; `UInt64.max` while unknown
        /// (a commit whose position couldn't be asked: reads go to the
        /// primary until `unknownUntil`).
        var committed: UInt64 = 0
        var unknownUntil: ContinuousClock.Instant?
        var replayed: UInt64 = 0
        /// While set, the standby couldn't be reached: reads skip it until then.
        var downUntil: ContinuousClock.Instant?
    }

    init(url: String, options: PostgresOptions) throws {
        servers = try PostgresURL.servers(url)
        pool = ConnectionPool(limit: options.maximumConnections, wait: options.connectionWait, idleTimeout: options.idleTimeout)
        wait = options.standbyWait
    }

    /// A commit of the store ended at `position` (`nil`: not known).
    func committed(at position: UInt64?) {
        state.withLock { state in
            if let position {
                state.committed = max(state.committed == .max ? 0 : state.committed, position)
                state.unknownUntil = nil
            } else {
                state.committed = .max
                state.unknownUntil = .now + wait
            }
        }
    }

    /// Whether a read may try the standby now.
    var mayServe: Bool {
        state.withLock { state in
            if let down = state.downUntil, ContinuousClock.now < down { return false }
            if state.committed == .max, let until = state.unknownUntil {
                guard ContinuousClock.now >= until else { return false }
                state.committed = 0  // as long as a standby is waited for: given up
            }
            return true
        }
    }

    /// The standby couldn't be reached: reads go to the primary for a second.
    func isDown() {
        state.withLock { $0.downUntil = .now + .seconds(1) }
    }

    /// Whether the standby has replayed the store's last commit, waiting
    /// for it (asking every millisecond) up to ``wait``.
    func hasReplayed(on connection: PostgresConnection, logger: Logger) throws -> Bool {
        let target = state.withLock { $0.committed > $0.replayed ? $0.committed : nil }
        guard let target else { return true }
        let deadline = ContinuousClock.now + wait
        while true {
            let text = try connection.query(PostgresQuery(unsafeSQL: "SELECT pg_last_wal_replay_lsn()::text"), logger: logger)
                .waitForAnswer(unlessClosed: { connection.isClosed }).first?.decode(String?.self)
            // No replay position: not in recovery (promoted), so it has every commit it serves.
            let replayed = text.flatMap(Self.position) ?? .max
            state.withLock { $0.replayed = max($0.replayed, replayed) }
            if replayed >= target { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(1_000)
        }
    }

    /// A WAL position as PostgreSQL writes it (`16/B374D848`).
    static func position(_ text: String) -> UInt64? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16) else { return nil }
        return high << 32 | low
    }
}
#endif
