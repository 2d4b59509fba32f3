import Foundation
import Hummingbird
import NIOPosix

/// The routes every implementation of the service has alike: `GET
/// /health`, `GET /stats`, and (for the tests, with
/// `NEWS_SERVICE_TEST_HOOKS=1`) `POST /test/block-event-loop`.
public enum CommonRoutes {
    public static func add(to router: Router<BasicRequestContext>, stats: ServiceStats) {
        router.get("health") { _, _ in try JSONResponse.make(["status": "ok"]) }
        router.get("stats") { request, _ in
            let report = stats.report()
            if request.uri.queryParameters.get("reset") == "1" { stats.probe.reset() }
            return try JSONResponse.make(report)
        }
        if ProcessInfo.processInfo.environment["NEWS_SERVICE_TEST_HOOKS"] == "1" {
            // Blocks an event loop, so that a test sees the stall probe catch it.
            router.post("test/block-event-loop") { request, _ in
                let milliseconds = request.uri.queryParameters.get("ms", as: Int.self) ?? 50
                try await MultiThreadedEventLoopGroup.singleton.next().submit { usleep(UInt32(milliseconds) * 1_000) }.get()
                return try JSONResponse.make(["blocked": milliseconds])
            }
        }
    }
}
