import Foundation
import Hummingbird
import Kura

/// The service's endpoints (see the README for each with curl).
enum NewsRoutes {
    static func router(_ store: NewsStore, stats: ServiceStats) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: CountingMiddleware(stats: stats))
        router.get("health") { _, _ in try json(["status": "ok"]) }
        router.get("stats") { request, _ in
            let report = try stats.report(store.container)
            if request.uri.queryParameters.get("reset") == "1" { stats.probe.reset() }
            return try json(report)
        }
        router.post("news") { request, context in
            let input = try await request.decode(as: NewsInput.self, context: context)
            return try json(try await store.create(input), status: .created)
        }
        router.get("news") { request, _ in
            let query = try NewsQuery { request.uri.queryParameters.get($0) }
            return try json(try await store.list(query))
        }
        router.get("news/:objectId") { _, context in
            let objectId = try context.parameters.require("objectId")
            guard let news = try await store.news(objectId: objectId) else { throw NotFound(objectId: objectId) }
            return try json(news)
        }
        router.patch("news/:objectId") { request, context in
            let objectId = try context.parameters.require("objectId")
            let input = try await request.decode(as: NewsInput.self, context: context)
            guard let news = try await store.update(objectId: objectId, with: input) else { throw NotFound(objectId: objectId) }
            return try json(news)
        }
        router.post("feed") { request, context in
            let items = try await request.decode(as: [FeedItem].self, context: context)
            return try json(try await store.importFeed(items))
        }
        router.delete("news") { request, _ in
            guard let text = request.uri.queryParameters.get("before") else {
                throw BadRequest("DELETE /news needs before=<ISO 8601 date>: the news created before it are deleted")
            }
            return try json(try await store.deleteNews(before: try NewsQuery.date(text, name: "before")))
        }
        router.get("changes") { request, _ in
            let request = try NewsQuery { request.uri.queryParameters.get($0) }.request()
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers,
                            body: ResponseBody(asyncSequence: ChangeStream.events(of: request, in: store.container)))
        }
        return router
    }

    /// `value` as a JSON response.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try ServiceJSON.encoder().encode(value))))
    }
}

/// No news has that `objectId` (HTTP 404).
struct NotFound: Error, CustomStringConvertible {
    let objectId: String
    var description: String { "no news has objectId \(objectId)" }
}

/// Turns the service's errors into JSON answers with their status:
/// 400 for a bad request (the message says what to change), 404, 409 for a
/// unique value taken or a conflict, 503 once the store is shutting down.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as BadRequest {
            return try NewsRoutes.json(["error": error.description], status: .badRequest)
        } catch let error as NotFound {
            return try NewsRoutes.json(["error": error.description], status: .notFound)
        } catch let error as KuraError {
            let status: HTTPResponse.Status = switch error.code {
            case .storeClosed: .serviceUnavailable
            case .uniqueConstraintViolated, .conflict: .conflict
            case .validationFailed, .invalidFetchRequest: .badRequest
            default: .internalServerError
            }
            return try NewsRoutes.json(["error": "\(error)"], status: status)
        }
    }
}
