// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore

/// The bound on a ``PostgresEngine``'s connections: at most ``limit`` open
/// at once, idle ones reused newest first and closed after ``idleTimeout``,
/// a caller finding all of them busy waiting up to ``wait`` for one.
///
/// Kura's engine calls are synchronous (a context's thread waits for its
/// answer), so the pool blocks its caller with a condition variable; it
/// lends connections, it never opens them (the engine does, once the pool
/// gave it room). postgres-nio's `PostgresClient` is an async pool run by
/// a task of its own: every statement would be an async call bridged back
/// to the waiting thread, and its connections would not keep the prepared
/// statements and `kura_saves` row each of Kura's connections carries.
final class ConnectionPool: @unchecked Sendable {
    // @unchecked: every variable is under `condition`.
    let limit: Int
    let wait: Duration
    let idleTimeout: Duration
    private let condition = NSCondition()
    /// Open connections not lent, the most recently returned last.
    private var idle: [(connection: PooledConnection, since: ContinuousClock.Instant)] = []
    /// Connections open or being opened (idle ones included).
    private var open = 0
    /// The most that were ever open at once (for tests and figures).
    private var mostOpen = 0
    /// How many callers are waiting, and the longest any waited.
    private var waiting = 0
    private var longestWait = Duration.zero

    init(limit: Int, wait: Duration, idleTimeout: Duration) {
        self.limit = max(1, limit)
        self.wait = wait
        self.idleTimeout = idleTimeout
    }

    /// An idle connection (`.idle`), or room for a new one the caller opens
    /// (`.room`: it must ``give(back:)`` the connection or ``release()`` the
    /// room). Waits while all ``limit`` are lent.
    ///
    /// - Throws: ``StorageFailure/connectionPoolExhausted(limit:wait:)`` when none came back within ``wait``.
    func take() throws -> Lent {
        condition.lock()
        defer { condition.unlock() }
        let started = ContinuousClock.now
        let deadline = Date(timeIntervalSinceNow: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
        while true {
            while let (connection, _) = idle.popLast() {
                if !connection.isClosed { return .idle(connection) }
                open -= 1  // the server ended it while idle
            }
            if open < limit {
                open += 1
                mostOpen = max(mostOpen, open)
                return .room
            }
            waiting += 1
            let signalled = condition.wait(until: deadline)
            waiting -= 1
            longestWait = max(longestWait, ContinuousClock.now - started)
            if !signalled && idle.isEmpty && open >= limit {
                throw StorageFailure.connectionPoolExhausted(limit: limit, wait: wait)
            }
        }
    }

    enum Lent {
        case idle(PooledConnection)
        case room
    }

    /// Takes back a connection that works, for the next caller.
    func give(back connection: PooledConnection) {
        condition.lock()
        idle.append((connection, ContinuousClock.now))
        let expired = removeExpired()
        condition.signal()
        condition.unlock()
        for connection in expired { connection.close() }
    }

    /// Frees the room of a connection that failed, was closed, or was never opened.
    func release() {
        condition.lock()
        open -= 1
        condition.signal()
        condition.unlock()
    }

    /// Removes every idle connection (for the caller to close): the server
    /// that ended one has likely ended them all, or the store closes.
    func removeIdle() -> [PooledConnection] {
        condition.lock()
        defer { condition.unlock() }
        let all = idle.map(\.connection)
        idle.removeAll()
        open -= all.count
        condition.broadcast()
        return all
    }

    /// Removes the connections idle longer than ``idleTimeout`` (for the
    /// caller to close); called when one comes back and by the engine's timer.
    func removeExpiredIdle() -> [PooledConnection] {
        condition.lock()
        defer { condition.unlock() }
        return removeExpired()
    }

    /// (Under the lock.) The oldest come first in `idle`.
    private func removeExpired() -> [PooledConnection] {
        let now = ContinuousClock.now
        let count = idle.prefix { now - $0.since >= idleTimeout }.count
        guard count > 0 else { return [] }
        let expired = idle.prefix(count).map(\.connection)
        idle.removeFirst(count)
        open -= count
        condition.broadcast()
        return expired
    }

    /// What the pool holds now, and the most it ever held.
    var counts: (open: Int, idle: Int, mostOpen: Int, waiting: Int, longestWait: Duration) {
        condition.lock()
        defer { condition.unlock() }
        return (open, idle.count, mostOpen, waiting, longestWait)
    }
}

extension StorageFailure.Code {
    /// Every connection of a PostgreSQL store's pool stayed busy for the
    /// whole wait (``PostgresOptions/connectionWait``).
    public static let connectionPoolExhausted = Self(rawValue: "connectionPoolExhausted")
}

extension StorageFailure {
    /// Every one of the pool's `limit` connections stayed busy for `wait`:
    /// more work at once than the pool allows. Nothing was sent; the
    /// context keeps its changes. ``number`` is the limit.
    public static func connectionPoolExhausted(limit: Int, wait: Duration) -> StorageFailure {
        StorageFailure(
            code: .connectionPoolExhausted,
            message: "all \(limit) connections of the store's pool were busy for \(wait): raise StoreOptions.postgres.maximumConnections "
                + "(or connectionWait), or do less at once",
            number: limit)
    }
}
#endif
