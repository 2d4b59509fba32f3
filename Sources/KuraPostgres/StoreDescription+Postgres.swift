// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore
import Logging
import PostgresNIO

extension StoreDescription {
    /// The store in a PostgreSQL database, shared by every process and
    /// machine that opens it (see the "Storage engines" article).
    ///
    /// ```swift
    /// import KuraPostgres
    /// let container = try PersistentContainer(store: .postgres(url: "postgres://app@db.internal/news"), model: model)
    /// ```
    ///
    /// The URL is `postgres://user[:password]@host[:port]/database`; a
    /// Unix socket is named by its directory, `postgres://user@/database?host=/run/postgresql`
    /// (and `port`, whose number names the socket file). Several servers,
    /// tried in order, are `host1:5432,host2:5432` (or `host=a,b&port=5432,5433`),
    /// with libpq's `target_session_attrs` (`any`, the default, `read-write`,
    /// `read-only`, `primary`, `standby`, `prefer-standby`): after a failover,
    /// `read-write` finds the new primary. The database must
    /// exist; Kura makes its tables in it the first time. TLS is as libpq
    /// reads the URL: `sslmode=disable` (the default), `prefer`, `require`,
    /// `verify-ca` or `verify-full`, with `sslrootcert=PATH` for the roots
    /// that sign the server's certificate (see the "Storage engines" article);
    /// a certificate or name refused is an `engine` failure naming TLS. At most ``PostgresOptions/maximumConnections`` are
    /// open at once for transactions (10 by default), plus one that
    /// listens for other processes' commits once anything observes them.
    ///
    /// - Parameters:
    ///   - url: The database.
    ///   - options: Of these, ``StoreOptions/tracksHistory``,
    ///     ``StoreOptions/isReadOnly`` and ``StoreOptions/eventReporter``
    ///     (which hears of replaced connections and of a commit watch
    ///     listening again) apply, and ``StoreOptions/postgres``: the
    ///     bounded pool of connections, a pooler in transaction mode, a
    ///     standby for reads (``PostgresOptions``).
    ///   - logger: Where PostgresNIO logs the store's connections and
    ///     statements (swift-log); by default nowhere.
    /// - Throws: (when the store opens) ``KuraError/storage(path:failure:)``:
    ///   ``StorageFailure/engine(code:message:)`` for a URL that isn't one,
    ///   an unknown database or a refused login (connecting again won't
    ///   help), ``StorageFailure/serverUnavailable(_:)`` for a server that
    ///   can't be reached (it may come back).
    public static func postgres(url: String, options: StoreOptions = StoreOptions(), logger: Logger? = nil) -> StoreDescription {
        StoreDescription(options: options) { _ in
            try PostgresEngine(servers: PostgresURL.servers(url), isReadOnly: options.isReadOnly, logger: logger,
                               options: options.postgres, eventReporter: options.eventReporter)
        }
    }
}

#endif
