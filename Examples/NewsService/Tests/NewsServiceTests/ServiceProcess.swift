import Foundation

/// A real `news-service` process on a loopback port of its own, and the
/// real HTTP clients (curl, wrk) that talk to it.
final class ServiceProcess {
    let process = Process()
    let directory: URL
    let storePath: String
    /// `http://127.0.0.1:PORT`, read from the line the server prints once it listens.
    private(set) var url = ""
    private let output = Pipe()

    /// The executable SwiftPM built next to the test binary.
    static var executable: URL {
        let test = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: test).deletingLastPathComponent().appendingPathComponent("news-service")
    }

    /// Starts the service on a new store in a new directory (or `store`), and waits until it listens.
    init(store: String? = nil, threads: Int = 4, function: String = #function) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("news-service-\(function.prefix(40))-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        storePath = store ?? directory.appendingPathComponent("news.kura").path
        process.executableURL = Self.executable
        process.arguments = ["--store", storePath, "--port", "0", "--threads", "\(threads)", "--log-level", "warning"]
        var environment = ProcessInfo.processInfo.environment
        environment["NEWS_SERVICE_TEST_HOOKS"] = "1"
        process.environment = environment
        process.standardOutput = output
        try process.run()
        // Waits for progress (the line), not for time.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw ServiceError("news-service ended before it listened: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let range = text.range(of: "listening on ") else { throw ServiceError("unexpected first line: \(text)") }
        url = String(text[range.upperBound...].prefix { !$0.isNewline })
    }

    /// Sends SIGTERM and waits until the process ends; its exit status.
    @discardableResult
    func terminate() -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Clients

    /// An answer: status and body.
    struct Answer {
        var status: Int
        var body: Data
        var json: Any? { try? JSONSerialization.jsonObject(with: body) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// One request with curl.
    func request(_ method: String, _ path: String, json: String? = nil) throws -> Answer {
        var arguments = ["-s", "-X", method, "-w", "\n%{http_code}", url + path]
        if let json { arguments += ["-H", "content-type: application/json", "--data-binary", json] }
        let result = try Self.run("/usr/bin/curl", arguments)
        guard let cut = result.lastIndex(of: UInt8(ascii: "\n")), let status = Int(String(decoding: result[(cut + 1)...], as: UTF8.self)) else {
            throw ServiceError("curl gave no status: \(String(decoding: result, as: UTF8.self))")
        }
        return Answer(status: status, body: Data(result[..<cut]))
    }

    /// Runs `path` with `arguments` to its end; its standard output.
    static func run(_ path: String, _ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// A curl config file that sends `count` requests, request `i` made by `entry(i)`.
    func curlConfig(count: Int, _ entry: (Int) -> String) throws -> String {
        let path = directory.appendingPathComponent("curl-\(UUID().uuidString).conf").path
        let lines = (0..<count).map { entry($0) + "\noutput = \"/dev/null\"\n" }
        try lines.joined(separator: "next\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

struct ServiceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
