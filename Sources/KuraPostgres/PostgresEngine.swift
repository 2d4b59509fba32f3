// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Kura's storage engine on a PostgreSQL server: the store's spaces as
/// rows of one ordered table, read in snapshots, written under one lock.
///
/// ```
/// kura_spaces (name text PRIMARY KEY, number serial, entries int8)
/// kura_kv     (space int4, key bytea, value bytea, PRIMARY KEY (space, key))
/// kura_commit_ids                              a sequence: commit numbers
/// kura_rewrite(…)                              a function: one-statement saves
/// ```
///
/// A space is what LMDB calls a named database: its keys sort as LMDB's do
/// (`bytea` compares like `memcmp`, shorter first), so the store's records,
/// index entries and relationship entries are the same bytes on both
/// engines, and one planner and one predicate evaluator serve both.
///
/// - Reads run in `REPEATABLE READ` transactions: one snapshot, as an LMDB
///   read transaction. An index walk and its records are one statement
///   (a join on the server), fetched in growing pages so a `LIMIT` stops early.
/// - Writes take the writers' lock (an advisory lock of the transaction)
///   with their first statement: alone, one writer at a time across every
///   process and machine, so a save's row-version checks see every earlier
///   commit and no update is lost; or, for a save that only rewrites stored
///   records, shared, with its records locked `FOR UPDATE`, so such saves
///   run beside each other. A save that rewrites records its context read
///   checks them instead of reading them, in one statement that is the
///   whole transaction (`kura_rewrite`). Puts and deletes are buffered and sent in
///   batches (`unnest` of binary arrays) before a read of the same
///   transaction and at commit; a taken unique key is reported then
///   (``StorageEngineError/keyExistsInSpace(_:key:)``).
/// - Each commit sends `NOTIFY kura_commit` with its number (delivered at
///   commit): other processes' observers hear of it (`LISTEN`).
/// - A connection that fails is dropped; the next transaction connects
///   again. A transaction cut short by a lost connection is rolled back by
///   the server: nothing partial is ever stored.
final class PostgresEngine: StorageEngine, @unchecked Sendable {
    // @unchecked: the connection pools have locks of their own; the rest is immutable.
    /// The servers of the store's URL, tried in order.
    let servers: PostgresServers
    /// The servers of ``PostgresOptions/listenURL``, when given.
    let listenServers: PostgresServers?
    let location: String
    let isReadOnly: Bool
    let logger: Logger
    let options: PostgresOptions
    /// Where connection events go (``StoreOptions/eventReporter``).
    let eventReporter: StoreEventReporter?
    let group: any EventLoopGroup
    /// The transactions' connections, bounded (``PostgresOptions``).
    let pool: ConnectionPool
    /// The standby that serves reads (``PostgresOptions/standbyURL``).
    let standby: PostgresStandby?
    /// Closes connections idle longer than ``PostgresOptions/idleTimeout``.
    private let idleTimer: any DispatchSourceTimer
    /// The entry counts the last read transaction saw.
    let recentCounts = RecentCounts()
    let isClosed = Atomic(false)
    /// How many connections the engine opened (each one's ID); tests read it.
    let connectionIDs = Atomic(0)
    /// The key of the writers' advisory lock (each database is one store).
    static let writersLock = 7_365_212

    /// What this engine's commits add to their `NOTIFY` after the commit's
    /// number: its watch tells its own commits from other processes'.
    let commitMark = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    /// Statements this engine's transactions sent (what a round trip costs
    /// is what the engine saves on): for tests, which count them.
    let statementsSent = Atomic(0)

    /// The event loop every engine of the process shares (one thread: the
    /// engine's callers block on its futures, from their own threads).
    private static let sharedGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    init(servers: PostgresServers, isReadOnly: Bool = false, logger: Logger? = nil,
         options: PostgresOptions = PostgresOptions(), eventReporter: StoreEventReporter? = nil) throws {
        self.eventReporter = eventReporter
        self.options = options
        let pool = ConnectionPool(limit: options.maximumConnections, wait: options.connectionWait, idleTimeout: options.idleTimeout)
        self.pool = pool
        standby = try options.standbyURL.map { try PostgresStandby(url: $0, options: options) }
        listenServers = try options.listenURL.map(PostgresURL.servers)
        idleTimer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let interval = DispatchTimeInterval.milliseconds(max(50, Int(options.idleTimeout.components.seconds * 500)
            + Int(options.idleTimeout.components.attoseconds / 2_000_000_000_000_000)))
        idleTimer.schedule(deadline: .now() + interval, repeating: interval)
        let standbyPool = standby?.pool
        idleTimer.setEventHandler {
            for connection in pool.removeExpiredIdle() + (standbyPool?.removeExpiredIdle() ?? []) { connection.close() }
        }
        idleTimer.resume()
        self.servers = servers
        location = servers.location
        self.isReadOnly = isReadOnly
        self.logger = logger ?? Logger(label: "kura.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        group = Self.sharedGroup
        // A read-only engine makes nothing: it connects, to fail now if it can't.
        try withConnection { pooled in
            if !isReadOnly {
                try Self.createSchema(on: pooled.connection, logger: self.logger)
                // Reads on a standby wait for the tables too.
                if let standby { standby.committed(at: commitPosition(on: pooled.connection)) }
            }
            try refuseTransactionPooling(besides: pooled)
        }
    }

    /// The tables, made once by whichever process comes first (in one
    /// transaction, under a lock of the transaction: through a pooler in
    /// transaction mode, a lock of the session could outlive the
    /// connection on a server of the pooler's).
    private static func createSchema(on connection: PostgresConnection, logger: Logger) throws {
        let statements = [
            "BEGIN",
            "SELECT pg_advisory_xact_lock(7365211)",
            "CREATE TABLE IF NOT EXISTS kura_spaces (name text PRIMARY KEY, number serial UNIQUE, entries int8 NOT NULL DEFAULT 0)",
            "CREATE TABLE IF NOT EXISTS kura_kv (space int4 NOT NULL, key bytea NOT NULL, value bytea NOT NULL, PRIMARY KEY (space, key))",
            "CREATE SEQUENCE IF NOT EXISTS kura_commit_ids",
            "CREATE TABLE IF NOT EXISTS kura_saves (writer bytea PRIMARY KEY, save int8 NOT NULL, at timestamptz NOT NULL DEFAULT now())",
            "ALTER TABLE kura_saves ADD COLUMN IF NOT EXISTS fence int8 NOT NULL DEFAULT 0",
            // A connection's row is read only after a lost answer, within
            // the answer timeout: rows a week old are of connections long gone.
            "DELETE FROM kura_saves WHERE at < now() - interval '7 days'",
            PostgresTransaction.markSaveFunction,
            PostgresTransaction.fenceSaveFunction,
            PostgresTransaction.rewriteFunction,
            "COMMIT",
        ]
        do {
            for statement in statements {
                _ = try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).waitForAnswer()
            }
        } catch {
            _ = try? connection.query(PostgresQuery(unsafeSQL: "ROLLBACK"), logger: logger).waitForAnswer()
            throw error
        }
    }

    /// Refuses a store opened with ``PostgresOptions/Pooling/session``
    /// whose connections a pooler in transaction mode serves: a second
    /// connection answered by the first one's server process (a pooler
    /// hands the server a connection's transaction ended on to the next
    /// one that asks) can't be a session of its own. A pooler with several
    /// idle servers may not show it; then a statement prepared on one
    /// connection is missing on the server of its next transaction, an
    /// error that says the same (``PostgresEngine/translated(_:)``).
    private func refuseTransactionPooling(besides first: PooledConnection) throws {
        guard options.pooling == .session, pool.limit >= 2 else { return }
        try withConnection { second in
            guard second.processID == first.processID else { return }
            throw KuraError.storage(path: location, failure: .engine(code: 0, message: Self.transactionPoolingAdvice(
                "two connections of the URL were answered by one server process")))
        }
    }

    /// What to change when a pooler in transaction mode serves a store
    /// opened for sessions: what was seen, then the options.
    static func transactionPoolingAdvice(_ seen: String) -> String {
        "\(seen): a pooler in transaction mode (pgbouncer's pool_mode = transaction) is between Kura and PostgreSQL; "
            + "open the store with options.postgres.pooling = .transaction (and options.postgres.listenURL, a direct URL, "
            + "for observers), or use the pooler in session mode"
    }

    /// Reports a connection event, if the store has a reporter.
    func report(_ kind: ConnectionEvent.Kind, _ message: String) {
        eventReporter?.report(.connection(ConnectionEvent(store: location, kind: kind, message: message)))
    }

    // MARK: Connections

    /// Runs `body` with a connection of the pool (a new one when none is
    /// idle), which goes back to the pool unless it failed.
    ///
    /// A connection that fails other than with an SQL error is closed, and
    /// so is every idle one (a server that restarted ended them all). When a
    /// pooled connection fails and `body` says the server kept nothing of
    /// its work (``NothingKept``: it failed before anything was answered),
    /// `body` runs again once on a new connection: connections lost while
    /// idle are replaced without an error, whichever statement first meets
    /// the loss.
    ///
    /// With `standby`, the connection is one of the standby's pool.
    func withConnection<Result>(on standby: PostgresStandby? = nil, _ body: (PooledConnection) throws -> Result) throws -> Result {
        guard !isClosed.load(ordering: .relaxed) else { throw KuraError.storeClosed(path: location) }
        let (pool, servers) = standby.map { ($0.pool, $0.servers) } ?? (pool, self.servers)
        var mayRunAgain = true
        while true {
            let (pooled, wasIdle) = try lendConnection(from: pool, to: servers)
            do {
                return try run(body, on: pooled, of: pool)
            } catch let failure as ConnectionFailure where wasIdle && mayRunAgain && !failure.mayHaveKeptWork {
                // Lost while idle: once more, on another connection.
                report(.replaced, "a connection lost while idle was replaced: \(failure.error)")
                mayRunAgain = false
            } catch let failure as ConnectionFailure {
                throw failure.error
            }
        }
    }

    /// A connection of the pool: an idle one that is still open, or a new
    /// one, waiting (up to ``PostgresOptions/connectionWait``) while all
    /// ``PostgresOptions/maximumConnections`` are lent.
    private func lendConnection(from pool: ConnectionPool, to servers: PostgresServers) throws -> (PooledConnection, wasIdle: Bool) {
        let lent: ConnectionPool.Lent
        do {
            lent = try pool.take()
        } catch let failure as StorageFailure {
            throw KuraError.storage(path: location, failure: failure)
        }
        switch lent {
        case .idle(let pooled):
            return (pooled, true)
        case .room:
            do {
                return (try connect(to: servers), false)
            } catch {
                pool.release()
                throw error
            }
        }
    }

    /// A failure of the connection itself (not of an SQL statement), and
    /// whether the server may have kept something of the work.
    struct ConnectionFailure: Error {
        let error: any Error
        let mayHaveKeptWork: Bool
    }

    private func run<Result>(
        _ body: (PooledConnection) throws -> Result, on connection: PooledConnection, of pool: ConnectionPool
    ) throws -> Result {
        do {
            let result = try body(connection)
            pool.give(back: connection)
            return result
        } catch {
            let translated = translated(error)
            guard isConnectionFailure(error) else {
                pool.give(back: connection)
                throw translated
            }
            connection.close()
            pool.release()
            for idle in pool.removeIdle() {
                idle.close()
            }
            throw ConnectionFailure(error: translated, mayHaveKeptWork: !(error is NothingKept))
        }
    }

    /// The connection failed before the server answered anything of the
    /// work, which it didn't keep, so the work may run again: a read whose
    /// `BEGIN` failed, a read of one statement, a write whose first
    /// statement failed (before its commit went out: the server rolls back
    /// a transaction whose connection is lost). A connection that answered
    /// was alive when the work began: its loss is the work's error.
    struct NothingKept: Error {
        let error: any Error
    }

    func close() {
        guard !isClosed.exchange(true, ordering: .relaxed) else { return }
        idleTimer.cancel()
        for pooled in pool.removeIdle() + (standby?.pool.removeIdle() ?? []) {
            _ = try? pooled.connection.close().wait()
        }
    }

    deinit {
        close()
    }

    // MARK: Transactions

    /// Runs a read transaction: on the standby when one serves reads and
    /// has replayed the store's last commit (``PostgresStandby``), else on
    /// the primary.
    func performRead(_ body: (any StorageTransaction) throws -> Void) throws {
        if let standby, standby.mayServe, try read(onStandby: standby, { try read(on: $0, body) }) != nil { return }
        try withConnection { try read(on: $0, body) }
    }

    /// Runs `read` on the standby and returns what it returned, unless the
    /// standby hasn't replayed the store's last commit in time or can't be
    /// reached: then `nil`, and nothing ran. A standby lost during the read
    /// is the read's error.
    private func read<Result>(onStandby standby: PostgresStandby, _ read: (PooledConnection) throws -> Result) throws -> Result? {
        var began = false
        do {
            let result: Result? = try withConnection(on: standby) { pooled in
                guard try standby.hasReplayed(on: pooled.connection, logger: logger) else { return nil }
                began = true
                return try read(pooled)
            }
            if result == nil { standby.fallbacks.add(1, ordering: .relaxed) } else { standby.reads.add(1, ordering: .relaxed) }
            return result
        } catch where !began && isConnectionFailure(error) {
            standby.isDown()
            standby.fallbacks.add(1, ordering: .relaxed)
            report(.failed, "the standby can't be reached, reads go to the primary: \(error)")
            return nil
        }
    }

    private func read(on connection: PooledConnection, _ body: (any StorageTransaction) throws -> Void) throws {
        let transaction = PostgresTransaction(engine: self, connection: connection, isReadOnly: true)
        // A read-only engine may meet a database without Kura's tables.
        try transaction.sendBegin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", readingCounts: !isReadOnly)
        do {
            try body(transaction)
            // A read changes nothing: its COMMIT needn't be waited for.
            // The connection's next statement queues behind it (and
            // fails, as a lost connection, if it failed).
            try transaction.send("COMMIT")
        } catch {
            rollBack(transaction, after: error)
            throw error
        }
    }

    /// Ends a transaction that failed, unless its connection did.
    private func rollBack(_ transaction: PostgresTransaction, after error: any Error) {
        guard transaction.hasSent, !isConnectionFailure(error) else { return }
        transaction.discardUnanswered()
        _ = try? transaction.execute("ROLLBACK")
    }

    func performSingleRequestRead(_ body: (any StorageTransaction) throws -> Void) throws {
        // Through a pooler in transaction mode, each read sets the
        // planner's settings: that needs a transaction.
        if options.pooling == .transaction { return try performRead(body) }
        if let standby, standby.mayServe {
            // Once the standby has replayed the store's last commit, one
            // statement's snapshot there (taken after) sees it.
            switch try read(onStandby: standby, { try readSingleRequest(on: $0, body) }) {
            case true?: return
            case false?: return try performRead(body)  // a transaction, on the standby again
            case nil: return try withConnection { try read(on: $0, body) }  // the primary's
            }
        }
        if try !withConnection({ try readSingleRequest(on: $0, body) }) { try performRead(body) }
    }

    /// Runs `body` as one statement without a transaction; `false` when it
    /// needed a second one (nothing is kept of its work: it runs again).
    private func readSingleRequest(on connection: PooledConnection, _ body: (any StorageTransaction) throws -> Void) throws -> Bool {
        // One statement is its own snapshot: no BEGIN, no COMMIT.
        let transaction = PostgresTransaction(engine: self, connection: connection, isReadOnly: true, singleRequest: true)
        do {
            try body(transaction)
            return true
        } catch is PostgresTransaction.SecondRequest {
            return false
        } catch where isConnectionFailure(error) {
            // Its one statement was its first: a connection lost while
            // idle is replaced, as a transaction's BEGIN would find.
            throw NothingKept(error: error)
        }
    }

    func performCheckedRead(spaces: Set<String>, _ body: (any StorageTransaction) throws -> Void) throws {
        try performRead(body)
    }

    /// Runs `body` as a write that may check what it expects instead of
    /// reading (``PostgresTransaction/expect(_:locking:)``: one statement),
    /// and again as one that reads when that didn't do.
    ///
    /// Every write stores its number in its connection's row of
    /// `kura_saves`, in its own transaction. When the connection is lost
    /// after the commit went out, whether it committed is looked up there
    /// (``resolve(_:)``): committed, the write returns as if answered; not
    /// committed, a one-statement write runs again and any other throws the
    /// connection's error (nothing of it was stored). Never both.
    func performWrite(_ body: (any StorageTransaction) throws -> Void) throws {
        if isReadOnly { throw KuraError.storeReadOnly(path: location) }
        var attempts = 0
        var corrections: [PostgresTransaction.PendingKey: ByteBuffer?] = [:]
        while true {
            var inDoubt: WriteInDoubt?
            let mayExpect = attempts < Self.mostExpectingAttempts
            do {
                let committed: Bool = try withConnection { connection in
                    let transaction = PostgresTransaction(engine: self, connection: connection, isReadOnly: false, mayExpect: mayExpect)
                    transaction.corrections = corrections
                    do {
                        // BEGIN and the writers' lock, with the
                        // first statement: one writer at a time, everywhere,
                        // or writers that only rewrite records beside each
                        // other (PostgresTransaction.beginRewriting).
                        transaction.beginBeforeFirstStatement()
                        try body(transaction)
                        if transaction.expectations != nil {
                            try transaction.commitExpected { inDoubt = $0 }
                        } else {
                            try transaction.flush()
                            try transaction.sendWriteNumber()
                            inDoubt = WriteInDoubt(connection: connection, isOneStatement: false)
                            try transaction.execute("COMMIT")
                        }
                        if let standby { standby.committed(at: commitPosition(on: connection.connection)) }
                        return true
                    } catch let unexpected as PostgresTransaction.Unexpected {
                        // Nothing was written: the statement that checks is its own transaction.
                        if let found = unexpected.found {
                            corrections.merge(found) { _, found in found }
                        } else {
                            attempts = Self.mostExpectingAttempts
                        }
                        return false
                    } catch {
                        guard inDoubt == nil else { throw error }
                        rollBack(transaction, after: error)
                        // Lost before anything was answered (a connection
                        // ended while idle, met by whichever statement went
                        // first: the rewrite's PREPARE as much as a BEGIN):
                        // the server kept nothing, and the write may run again.
                        if !transaction.wasAnswered && isConnectionFailure(error) { throw NothingKept(error: error) }
                        throw error
                    }
                }
                if committed { return }
            } catch let error where inDoubt != nil && isConnectionFailure(error) {
                // The commit's answer was lost with the connection.
                let committed: Bool
                do {
                    committed = try resolve(inDoubt!)
                } catch {
                    report(.answerLost, "a save's commit answer was lost; whether it committed is unknown")
                    throw error
                }
                report(.answerLost, "a save's commit answer was lost; it " + (committed ? "committed"
                    : inDoubt!.isOneStatement ? "did not commit, and is saved again" : "did not commit"))
                if committed { return }
                if !inDoubt!.isOneStatement { throw error }
            }
            guard mayExpect else { throw KuraError.storage(path: location, failure: .engine(code: 0, message: "a write that reads ran without committing")) }
            attempts += 1
        }
    }

    /// The primary's WAL position now, just past a commit made on
    /// `connection`: what a standby must have replayed for a read there to
    /// see it (one more round trip a save, only with a standby). `nil` when
    /// it can't be asked (reads then go to the primary for a while).
    private func commitPosition(on connection: PostgresConnection) -> UInt64? {
        let text = try? connection.query(PostgresQuery(unsafeSQL: "SELECT pg_current_wal_insert_lsn()::text"), logger: logger)
            .waitForAnswer(unlessClosed: { connection.isClosed }).first?.decode(String.self)
        return text.flatMap(PostgresStandby.position)
    }

    /// How many times a write checks what it expects before it reads: each
    /// attempt after the first expects what the last one found (a save that
    /// finds a record changed is then a conflict, found without a statement;
    /// with a merge policy that overwrites, it is built on what is stored).
    static let mostExpectingAttempts = 3

    func space(named name: String) throws -> StorageSpace? {
        try performReadReturning { try $0.openSpace(named: name) }
    }

    func latestCommit() throws -> Int {
        try withConnection { pooled in
            // Taken numbers, committed or not: an observer that sees a
            // number it didn't commit looks again, which is never wrong.
            do {
                let connection = pooled.connection
                return Int(try connection.query(PostgresQuery(
                    unsafeSQL: "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM kura_commit_ids"), logger: logger)
                    .waitForAnswer(unlessClosed: { connection.isClosed }).first?.decode(Int64.self) ?? 0)
            } catch where isConnectionFailure(error) {
                throw NothingKept(error: error)  // a read of one statement
            }
        }
    }

    func watchCommits(_ onCommit: @escaping @Sendable (ReportedCommit) -> Void) throws -> any CommitWatch {
        let watch = PostgresCommitWatch(engine: self, onCommit: onCommit)
        try watch.start()
        return watch
    }

    private func performReadReturning<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result {
        var result: Result?
        try performRead { result = try body($0) }
        return result!
    }
}

/// Entry counts a read saw, for planning reads of one request without
/// counting: kept for a second, then a read counts again.
final class RecentCounts: Sendable {
    private let state = Mutex<(counts: [UInt32: Int], seen: ContinuousClock.Instant)?>(nil)
    static let lifetime = Duration.seconds(1)

    func remember(_ counts: [UInt32: Int]) {
        state.withLock { $0 = (counts, .now) }
    }

    /// The counts, while they are recent.
    func counts() -> [UInt32: Int]? {
        state.withLock { state in
            guard let state, ContinuousClock.now - state.seen < Self.lifetime else { return nil }
            return state.counts
        }
    }
}
#endif
