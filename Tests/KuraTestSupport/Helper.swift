import Foundation

/// The `kura-test-helper` executable built next to the test binary, run as a
/// separate process for the multi-process and crash tests.
public enum Helper {
    /// The helper's path: the directory of the running test binary.
    public static var path: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("kura-test-helper").path
    }

    /// Starts the helper with `arguments`; its standard output is piped.
    public static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Runs the helper to completion; returns its exit status and output.
    public static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let (process, output) = try start(arguments)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
