import Foundation

/// Runs this executable again with `arguments` (a child mode such as `memory-child`) and returns what it printed.
///
/// Suites that must measure another process (memory peaks, cross-process changes) use this instead of each
/// spawning its own `Process`.
func runChild(_ arguments: [String]) throws -> (output: String, status: Int32) {
    let child = try startChild(arguments)
    let output = child.readOutput()
    return (output, child.exitStatus())
}

/// This executable started again in a child mode, running alongside this process.
final class StartedChild {
    private let process = Process()
    private let output = Pipe()

    fileprivate init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// Everything it prints, once it closes its output.
    func readOutput() -> String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Waits for it to end; its exit status.
    func exitStatus() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// What it printed, once it ended with status 0.
    func finish() throws -> String {
        let text = readOutput()
        let status = exitStatus()
        guard status == 0 else { throw Mismatch(description: "child \(process.arguments ?? []) exited with \(status): \(text)") }
        return text
    }
}

/// Starts this executable again with `arguments` (a child mode) and returns at once.
func startChild(_ arguments: [String]) throws -> StartedChild {
    try StartedChild(arguments)
}

/// The child modes `runChild` starts, by their first argument.
let childModes: [String: @Sendable ([String]) throws -> Void] = [
    "changes-writer": changesWriter,
    "concurrent-saver": concurrentSaver,
    "concurrent-fill": concurrentFill,
    "memory-child": memoryChild,
]

/// If this process was started as a child mode, runs it and exits.
func runChildModeIfAsked() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let mode = arguments.first, let body = childModes[mode] else { return }
    do {
        try body(Array(arguments.dropFirst()))
        exit(0)
    } catch {
        FileHandle.standardError.write("\(mode): \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}
