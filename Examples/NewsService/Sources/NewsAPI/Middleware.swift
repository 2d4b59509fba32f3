import Hummingbird

/// Counts answered requests.
public struct CountingMiddleware: RouterMiddleware {
    public typealias Context = BasicRequestContext
    let stats: ServiceStats

    public init(stats: ServiceStats) { self.stats = stats }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        defer { stats.countAnswer() }
        return try await next(request, context)
    }
}

/// Turns the service's errors into JSON answers with their status:
/// 400 for a bad request (the message says what to change), 404, what
/// `status` says of a store's errors (409 for a conflict, 503 once the
/// store is shutting down…), and 500 for the rest, which are logged.
public struct ErrorMiddleware: RouterMiddleware {
    public typealias Context = BasicRequestContext
    let status: @Sendable (any Error) -> HTTPResponse.Status?

    public init(status: @escaping @Sendable (any Error) -> HTTPResponse.Status?) { self.status = status }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as BadRequest {
            return try JSONResponse.make(["error": error.description], status: .badRequest)
        } catch let error as NotFound {
            return try JSONResponse.make(["error": error.description], status: .notFound)
        } catch let error where status(error) != nil {
            return try JSONResponse.make(["error": "\(error)"], status: status(error)!)
        } catch let error as any HTTPResponseError {
            throw error  // Hummingbird's own (a body that doesn't decode: 400), answered as it says
        } catch {
            // What no status was given for is the server's fault: logged, a 500 with its text.
            context.logger.error("\(request.method) \(request.uri.path) failed: \(String(reflecting: error))")
            return try JSONResponse.make(["error": "\(error)"], status: .internalServerError)
        }
    }
}

/// JSON answers.
public enum JSONResponse {
    /// `value` as a JSON response.
    public static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try ServiceJSON.encoder().encode(value))))
    }
}
