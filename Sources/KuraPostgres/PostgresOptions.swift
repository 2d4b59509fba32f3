// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore

/// How a PostgreSQL store uses its connections: set on
/// ``KuraCore/StoreOptions/postgres`` before opening it.
///
/// ```swift
/// var options = StoreOptions()
/// options.postgres.maximumConnections = 8
/// let container = try PersistentContainer(store: .postgres(url: url, options: options), model: model)
/// ```
public struct PostgresOptions: EngineOptions {
    /// The most connections the store opens at once for its transactions.
    /// A transaction that finds them all busy waits for one (up to
    /// ``connectionWait``). A store whose commits are watched (observers,
    /// contexts that merge other processes' saves) opens one more, which
    /// only listens. Default 10, PostgreSQL's `max_connections` being 100:
    /// ten processes of a service fit.
    public var maximumConnections = 10
    /// How long a transaction waits for a connection when all are busy,
    /// before it fails with `connectionPoolExhausted`. Default 10 s.
    public var connectionWait = Duration.seconds(10)
    /// How long a connection stays open unused before the store closes it.
    /// Default 60 s.
    public var idleTimeout = Duration.seconds(60)

    /// What a connection of the URL is: a session of its own on one server
    /// (``Pooling/session``: a direct connection, or a pooler in session
    /// mode), or a pooler's connection whose transactions each may run on
    /// another server (``Pooling/transaction``). Default `.session`; a store
    /// opened through a pooler in transaction mode with `.session` is
    /// refused at open when the pooler shows it (two connections answered
    /// by one server process), and its statements fail, never run as
    /// another's, when it doesn't.
    public var pooling = Pooling.session

    /// A URL that reaches the primary directly, for the one connection that
    /// listens for other processes' commits (`LISTEN`, which a pooler in
    /// transaction mode can't carry). Default `nil`: that connection is one
    /// of the store's URL, which ``Pooling/transaction`` refuses.
    public var listenURL: String?

    /// A hot standby that serves the store's read transactions, with
    /// read-your-writes: a read waits until the standby has replayed the
    /// last commit this store made (its WAL position), for at most
    /// ``standbyWait``, and otherwise runs on the primary, as it does when
    /// the standby can't be reached. Writes, and reads inside a write, go to
    /// the primary. Default `nil`: every read goes to the primary.
    public var standbyURL: String?

    /// How long a read waits for the standby to replay this store's last
    /// commit before it runs on the primary instead. Default 1 s.
    public var standbyWait = Duration.seconds(1)

    /// How long a save whose commit answer was lost with its connection
    /// waits for a server to ask whether it committed (the server
    /// restarting, a standby being promoted), before it fails saying its
    /// outcome is unknown. Default 1 s: a server that restarts at once is
    /// back by then; with a failover, make it the time a standby takes to
    /// be promoted, or the save says its outcome is unknown sooner.
    public var answerLossWait = Duration.seconds(1)

    /// What a connection of the store's URL is (``PostgresOptions/pooling``).
    public enum Pooling: Sendable, Hashable {
        /// Each connection is one session on one server: every statement
        /// of the connection runs there, so the store prepares its
        /// statements once per connection and listens on one.
        case session
        /// Each transaction of a connection may run on another server (a
        /// pooler such as pgbouncer with `pool_mode = transaction`): nothing
        /// outlives a transaction, so statements are sent unprepared (parsed
        /// and planned each time), each transaction sets the planner's
        /// settings the store needs, and commits are heard on
        /// ``PostgresOptions/listenURL``.
        case transaction
    }

    public init() {}
}

extension StoreOptions {
    /// The PostgreSQL engine's options (``PostgresOptions``).
    public var postgres: PostgresOptions {
        get { self[engine: PostgresOptions.self] }
        set { self[engine: PostgresOptions.self] = newValue }
    }
}
#endif
