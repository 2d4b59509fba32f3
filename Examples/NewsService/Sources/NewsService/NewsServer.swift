import Foundation
import Kura
import KuraServer
import Logging
import NewsAPI
#if PostgreSQL
import KuraPostgres
#endif

/// The Kura service: its store opened, and run as ``NewsApp`` with the
/// container as a service (which closes the store on SIGTERM, after the server stops).
public enum NewsServer {
    /// Fetches slower than this are logged with their plans.
    public static let slowFetchThreshold = Duration.milliseconds(50)

    /// Opens the store `options` names (an LMDB file, or a `postgres://` URL
    /// with the PostgreSQL trait), migrating it if need be.
    public static func openContainer(_ options: ServerOptions, logger: Logger) throws -> PersistentContainer {
        let templates = try NewsModel()
        var storeOptions = StoreOptions()
        storeOptions.tracksHistory = true  // several instances (processes) share one store
        // As many pool threads as cores (Kura's default is twice that, at
        // least 4): on 2 cores under 64 connections, 4 threads made the
        // event loops 12-19 ms late for the CPU, 2 kept them under 10 ms at
        // the same throughput (Benchmark/RESULTS.md).
        storeOptions.backgroundThreadLimit = options.threadLimit ?? ProcessInfo.processInfo.activeProcessorCount
        storeOptions.eventReporter = .logging(to: logger, slowFetchThreshold: slowFetchThreshold)
        if options.store.hasPrefix("postgres://") || options.store.hasPrefix("postgresql://") {
            #if PostgreSQL
            return try PersistentContainer(store: .postgres(url: options.store, options: storeOptions), model: templates.model)
            #else
            throw BadRequest("\(options.store): this build has no PostgreSQL; build with --traits PostgreSQL")
            #endif
        }
        return try PersistentContainer(path: options.store, model: templates.model, options: storeOptions)
    }

    /// Runs until SIGTERM or SIGINT: then the server stops taking requests
    /// and answers the ones under way, and the container finishes its saves
    /// and closes the store.
    public static func run(_ options: ServerOptions, onListening: @escaping @Sendable (String) -> Void = NewsApp.printListening) async throws {
        var logger = Logger(label: "news-service")
        logger.logLevel = options.logLevel
        let container = try openContainer(options, logger: logger)
        let store = NewsStore(container: container, templates: try NewsModel())
        try await NewsApp.run(store, storeServices: [container], options: options, logger: logger, onListening: onListening)
    }
}
