import Foundation

/// The `kura-test-helper` executable built next to the test binary, run as a
/// separate process for the multi-process and crash tests.
public enum Helper {
    /// The directory of the running test binary, where SwiftPM also puts the
    /// package's executables.
    public static var buildDirectory: URL {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// The helper's path.
    public static var path: String { buildDirectory.appendingPathComponent("kura-test-helper").path }

    /// Starts the helper with `arguments`; its standard output is piped.
    public static func start(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(path, arguments)
    }

    /// Runs the helper to completion; returns how it ended and its output.
    public static func run(_ arguments: [String]) throws -> (termination: ChildProcess.Termination, output: String) {
        let child = try start(arguments)
        let data = child.standardOutput!.readDataToEndOfFile()
        let termination = try child.wait()
        return (termination, String(decoding: data, as: UTF8.self))
    }

    /// Runs the helper to completion, as user `nobody` when `asNobody` (the
    /// test runs as root, and needs a user without root's rights).
    public static func runAs(_ asNobody: Bool, _ arguments: [String]) throws -> (termination: ChildProcess.Termination, output: String) {
        guard asNobody else { return try run(arguments) }
        let child = try ChildProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", path] + arguments)
        let data = child.standardOutput!.readDataToEndOfFile()
        let termination = try child.wait()
        return (termination, String(decoding: data, as: UTF8.self))
    }

    /// Reads `child`'s output until a line starting with `prefix` has
    /// arrived (or the child closed it), and returns what was read.
    /// Reads the child's output until `count` lines start with `prefix`
    /// (or its output ends): how a test waits for progress (the k-th
    /// acknowledged save) rather than for a time, which a busy machine
    /// stretches. Returns everything read.
    public static func read(_ child: ChildProcess, untilLinesStartingWith prefix: String, count: Int, after start: Data = Data()) -> Data {
        var data = start
        func lines() -> Int {
            String(decoding: data, as: UTF8.self).split(separator: "\n").count { $0.hasPrefix(prefix) }
        }
        while lines() < count {
            let chunk = child.standardOutput!.availableData
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
        return data
    }

    public static func read(_ child: ChildProcess, untilLineStartingWith prefix: String) -> Data {
        var data = Data()
        while true {
            let chunk = child.standardOutput!.availableData
            if chunk.isEmpty { return data }
            data.append(chunk)
            let text = String(decoding: data, as: UTF8.self)
            if text.hasPrefix(prefix) || text.contains("\n" + prefix) { return data }
        }
    }
}
