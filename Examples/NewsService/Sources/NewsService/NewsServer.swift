import Foundation
import Hummingbird
import Kura
import KuraServer
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
#if PostgreSQL
import KuraPostgres
#endif

/// The service, configured: where its store is and where it listens.
public struct NewsServer: Sendable {
    /// An LMDB file's path, or a `postgres://` URL (with the PostgreSQL trait).
    public var store = "news-service.kura"
    public var host = "127.0.0.1"
    /// `0` for any free port (the line the server prints says which).
    public var port = 8080
    /// The most threads Kura runs request bodies on.
    public var threadLimit = StoreOptions().backgroundThreadLimit
    public var logLevel = Logger.Level.info
    public var slowFetchThreshold = Duration.milliseconds(50)

    public init() {}

    /// Opens the store (migrating it if need be).
    public func openContainer(logger: Logger) throws -> PersistentContainer {
        let templates = try NewsModel()
        var options = StoreOptions()
        options.tracksHistory = true  // several instances (processes) share one store
        options.backgroundThreadLimit = threadLimit
        options.eventReporter = .logging(to: logger, slowFetchThreshold: slowFetchThreshold)
        if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") {
            #if PostgreSQL
            return try PersistentContainer(store: .postgres(url: store, options: options), model: templates.model)
            #else
            throw BadRequest("\(store): this build has no PostgreSQL; build with --traits PostgreSQL")
            #endif
        }
        return try PersistentContainer(path: store, model: templates.model, options: options)
    }

    /// Runs until SIGTERM or SIGINT: then the server stops taking requests
    /// and finishes the ones under way, and the container finishes its
    /// saves and closes the store. `onListening` gets the address once the
    /// server listens.
    public func run(onListening: @escaping @Sendable (String) -> Void = { print("news-service listening on \($0)") }) async throws {
        var logger = Logger(label: "news-service")
        logger.logLevel = logLevel
        let container = try openContainer(logger: logger)
        let probe = EventLoopStallProbe()
        let group = MultiThreadedEventLoopGroup.singleton
        probe.start(on: group)
        let stats = ServiceStats(probe: probe)
        let router = NewsRoutes.router(NewsStore(container: container, templates: try NewsModel()), stats: stats)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "news-service"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                onListening("http://\(host):\(port)")
            },
            eventLoopGroupProvider: .shared(group),
            logger: logger)
        // Shut down in reverse: the server first (no new request; those
        // under way are answered), then the container (saves finish, store closes).
        let services = ServiceGroup(configuration: .init(
            services: [.init(service: container), .init(service: app)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await services.run()
    }
}
