import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Where the service listens, and how it logs: what its command line sets.
public struct ServerOptions: Sendable {
    /// The store: a path, or a URL (`postgres://…`).
    public var store: String
    public var host = "127.0.0.1"
    /// `0` for any free port (the line the server prints says which).
    public var port = 8080
    /// The most threads the store's pool runs request bodies on (`nil`: its default).
    public var threadLimit: Int?
    public var logLevel = Logger.Level.info

    public init(store: String) { self.store = store }

    /// The options `arguments` give (`--store`, `--host`, `--port`, `--threads`, `--log-level`).
    public init(arguments: [String], defaultStore: String) throws {
        store = defaultStore
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BadRequest("\(argument) needs a value") }
            switch argument {
            case "--store":
                store = value
            case "--host":
                host = value
            case "--port":
                guard let number = Int(value), (0...65_535).contains(number) else { throw BadRequest("--port \(value) is not a port") }
                port = number
            case "--threads":
                guard let limit = Int(value), limit > 0 else { throw BadRequest("--threads \(value) is not a positive number") }
                threadLimit = limit
            case "--log-level":
                guard let level = Logger.Level(rawValue: value) else { throw BadRequest("--log-level \(value) is not a level") }
                logLevel = level
            default:
                throw BadRequest("unknown argument \(argument)")
            }
        }
    }

    public static let usage = "[--store PATH|postgres://URL] [--host HOST] [--port PORT] [--threads N] [--log-level trace|debug|info|notice|warning]"
}

/// The HTTP server for a backend, run in a `ServiceGroup` with the
/// backend's own services.
public enum NewsApp {
    /// Runs until SIGTERM or SIGINT. `storeServices` (the store, its pool)
    /// are listed before the server, so the group stops them after it: the
    /// server stops taking requests and answers the ones under way first.
    /// `onListening` gets the address once the server listens.
    public static func run<Backend: NewsBackend>(
        _ backend: Backend, storeServices: [any Service], options: ServerOptions, logger: Logger,
        onListening: @escaping @Sendable (String) -> Void
    ) async throws {
        let probe = EventLoopStallProbe()
        let group = MultiThreadedEventLoopGroup.singleton
        probe.start(on: group)
        let stats = ServiceStats(probe: probe, pool: { backend.poolThreads })
        let host = options.host
        let app = Application(
            router: NewsRoutes.router(backend, stats: stats),
            configuration: .init(address: .hostname(host, port: options.port), serverName: "news-service"),
            onServerRunning: { channel in onListening("http://\(host):\(channel.localAddress?.port ?? 0)") },
            eventLoopGroupProvider: .shared(group),
            logger: logger)
        let services = ServiceGroup(configuration: .init(
            services: storeServices.map { .init(service: $0) } + [.init(service: app)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await services.run()
    }

    /// A command line's whole run: options from `CommandLine.arguments`,
    /// then `run`; errors end the process with a message.
    public static func main(name: String, defaultStore: String, run: (ServerOptions) async throws -> Void) async {
        func fail(_ message: String, code: Int32) -> Never {
            FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
            exit(code)
        }
        let options: ServerOptions
        do {
            options = try ServerOptions(arguments: Array(CommandLine.arguments.dropFirst()), defaultStore: defaultStore)
        } catch {
            fail("\(error)\nusage: \(name) \(ServerOptions.usage)", code: 2)
        }
        do {
            try await run(options)
        } catch {
            fail("\(error)", code: 1)
        }
    }

    /// Prints the line the tests and scripts wait for (unbuffered).
    @Sendable public static func printListening(_ address: String) {
        FileHandle.standardOutput.write(Data("news-service listening on \(address)\n".utf8))
    }
}
