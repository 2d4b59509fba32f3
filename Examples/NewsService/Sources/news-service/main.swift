import Foundation
import Logging
import NewsService

// news-service [--store PATH | --store postgres://…] [--host H] [--port P] [--threads N] [--log-level L]

struct UsageError: Error, CustomStringConvertible {
    let description: String
}

func configuration(_ arguments: [String]) throws -> NewsServer {
    var server = NewsServer()
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        guard let value = rest.popFirst() else { throw UsageError(description: "\(argument) needs a value") }
        switch argument {
        case "--store":
            server.store = value
        case "--host":
            server.host = value
        case "--port":
            guard let port = Int(value), (0...65_535).contains(port) else { throw UsageError(description: "--port \(value) is not a port") }
            server.port = port
        case "--threads":
            guard let limit = Int(value), limit > 0 else { throw UsageError(description: "--threads \(value) is not a positive number") }
            server.threadLimit = limit
        case "--log-level":
            guard let level = Logger.Level(rawValue: value) else { throw UsageError(description: "--log-level \(value) is not a level") }
            server.logLevel = level
        default:
            throw UsageError(description: "unknown argument \(argument)")
        }
    }
    return server
}

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("news-service: \(message)\n".utf8))
    exit(code)
}

let server: NewsServer
do {
    server = try configuration(Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error)\nusage: news-service [--store PATH|postgres://URL] [--host HOST] [--port PORT] [--threads N] "
        + "[--log-level trace|debug|info|notice|warning]", code: 2)
}
do {
    // The listening line reaches a pipe at once (FileHandle doesn't buffer).
    try await server.run { FileHandle.standardOutput.write(Data("news-service listening on \($0)\n".utf8)) }
} catch {
    fail("\(error)", code: 1)
}
