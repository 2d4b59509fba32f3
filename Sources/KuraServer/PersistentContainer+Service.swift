// Compiled with the Server trait only (swift build --traits Server).
#if Server
import KuraCore
import ServiceLifecycle

/// A container runs as a service of a swift-service-lifecycle
/// `ServiceGroup`, beside the HTTP server that uses it:
///
/// ```swift
/// let group = ServiceGroup(configuration: .init(
///     services: [.init(service: container), .init(service: app)],   // the server stops first
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// `run()` waits for the group's graceful shutdown (SIGTERM), or for its
/// task to be cancelled, then calls ``PersistentContainer/shutDown()``:
/// bodies of ``PersistentContainer/performBackgroundTask(_:)`` already
/// taken finish (their saves commit and are acknowledged), new ones throw
/// ``KuraError/storeClosed(path:)``, and the store closes, which stops its
/// commit watchers. A group shuts its services down in the reverse of
/// their order, so list the container before the server: the server
/// stops taking requests first, and the ones it still answers find the
/// store open.
extension PersistentContainer: Service {
    public func run() async throws {
        // Throws CancellationError when the group cancels instead: shut down either way.
        try? await gracefulShutdown()
        await shutDown()
    }
}
#endif
