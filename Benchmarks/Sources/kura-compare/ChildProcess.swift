import Foundation

/// Runs this executable again with `arguments` (a child mode such as `memory-child`) and returns what it printed.
///
/// Suites that must measure another process (memory peaks, cross-process changes) use this instead of each
/// spawning its own `Process`.
func runChild(_ arguments: [String]) throws -> (output: String, status: Int32) {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = arguments
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    return (text, child.terminationStatus)
}

/// The child modes `runChild` starts, by their first argument.
let childModes: [String: @Sendable ([String]) throws -> Void] = [
    "changes-writer": changesWriter,
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
