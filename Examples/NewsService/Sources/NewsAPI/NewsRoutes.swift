import Foundation
import Hummingbird

/// The service's endpoints (see the README for each with curl), on any backend.
public enum NewsRoutes {
    public static func router<Backend: NewsBackend>(_ store: Backend, stats: ServiceStats) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: ErrorMiddleware(status: { store.status(of: $0) }))
        router.add(middleware: CountingMiddleware(stats: stats))
        CommonRoutes.add(to: router, stats: stats)
        router.post("news") { request, context in
            let input = try await request.decode(as: NewsInput.self, context: context)
            return try JSONResponse.make(try await store.create(input), status: .created)
        }
        router.get("news") { request, _ in
            let query = try NewsQuery { request.uri.queryParameters.get($0) }
            return try JSONResponse.make(try await store.list(query))
        }
        router.get("news/:objectId") { _, context in
            let objectId = try context.parameters.require("objectId")
            guard let news = try await store.news(objectId: objectId) else { throw NotFound(objectId: objectId) }
            return try JSONResponse.make(news)
        }
        router.patch("news/:objectId") { request, context in
            let objectId = try context.parameters.require("objectId")
            let input = try await request.decode(as: NewsInput.self, context: context)
            guard let news = try await store.update(objectId: objectId, with: input) else { throw NotFound(objectId: objectId) }
            return try JSONResponse.make(news)
        }
        router.post("feed") { request, context in
            let items = try await request.decode(as: [FeedItem].self, context: context)
            return try JSONResponse.make(try await store.importFeed(items))
        }
        router.delete("news") { request, _ in
            guard let text = request.uri.queryParameters.get("before") else {
                throw BadRequest("DELETE /news needs before=<ISO 8601 date>: the news created before it are deleted")
            }
            return try JSONResponse.make(try await store.deleteNews(before: try NewsQuery.date(text, name: "before")))
        }
        router.get("changes") { request, _ in
            let body = try store.changes(try NewsQuery { request.uri.queryParameters.get($0) })
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(asyncSequence: body))
        }
        return router
    }
}
