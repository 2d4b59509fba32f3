import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Logging
import NewsAPI
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The Fluent service: SQLite for a path, PostgreSQL for a `postgres://` URL.
public enum FluentServer {
    /// PostgreSQL connections per event loop (an expert's pool: 4 on each of
    /// the machine's loops, 8 on 2 cores, as many as Kura's pool has threads).
    static let postgresConnectionsPerLoop = 4
    /// The one loop (so the one connection) of a SQLite store.
    static let sqliteGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public static func run(_ options: ServerOptions) async throws {
        var logger = Logger(label: "news-service-fluent")
        logger.logLevel = options.logLevel
        let isPostgres = options.store.hasPrefix("postgres")
        // SQLite: one connection for the whole service (fluent-sqlite-driver
        // opens one per event loop). Two in WAL mode let a transaction that
        // read, then writes, fail with "database is locked" when the other
        // wrote meanwhile (Fluent's transactions are BEGIN DEFERRED, and SQLite
        // doesn't wait there): 2,800 of 11,800 answers in the write mix were
        // 500s so. One connection serializes them instead.
        let group: any EventLoopGroup = isPostgres ? MultiThreadedEventLoopGroup.singleton : sqliteGroup
        let databases = Databases(threadPool: NIOThreadPool.singleton, on: group)
        if isPostgres {
            databases.use(try .postgres(url: options.store, maxConnectionsPerEventLoop: postgresConnectionsPerLoop, sqlLogLevel: .trace),
                          as: .psql)
        } else {
            databases.use(.sqlite(.file(options.store), sqlLogLevel: .trace), as: .sqlite)
        }
        let database = databases.database(logger: logger, on: group.any())!
        if !isPostgres, let sql = database as? any SQLDatabase {
            // WAL: readers don't wait for the writer; synchronous stays FULL
            // (SQLite's default), so each commit is durable, as Kura's is.
            try await sql.raw("PRAGMA journal_mode=WAL").run()
        }
        let migrations = Migrations()
        migrations.add(CreateNewsSchema())
        let migrator = Migrator(databases: databases, migrations: migrations, logger: logger, on: group.any())
        try await migrator.setupIfNeeded().get()
        try await migrator.prepareBatch().get()
        let store = FluentNewsStore(
            databases: databases, logger: logger, eventLoops: group, connectionsPerLoop: isPostgres ? postgresConnectionsPerLoop : 1)
        try await NewsApp.run(store, storeServices: [DatabasesService(databases: databases)], options: options, logger: logger,
                              onListening: NewsApp.printListening)
    }
}

/// Shuts the databases down after the server stopped (the group's reverse order).
struct DatabasesService: Service {
    let databases: Databases

    func run() async throws {
        try? await gracefulShutdown()
        await databases.shutdownAsync()
    }
}
