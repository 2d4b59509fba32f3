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
