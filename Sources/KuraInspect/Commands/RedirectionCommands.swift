// Where output goes and where commands come from: sqlite3's `.output`,
// `.once` and `.read`.

extension SessionCommand {
    /// Output to a file from now on; no file for back to the terminal.
    static let output = SessionCommand(
        ".output", section: .output, help: ".output [FILE]  .once FILE  .read FILE  .eqp on|off  .tables"
    ) { input throws(CommandError) in
        let path = input.words.isEmpty ? nil : try input.file()
        return { session in try session.redirectOutput(to: path); return true }
    }

    /// The next command's output to a file.
    static let once = SessionCommand(".once", section: .output, help: nil, redirectsNextCommand: true) { input throws(CommandError) in
        let path = try input.file()
        return { session in try session.redirectNextCommand(to: path); return true }
    }

    /// Run the commands of a file.
    static let read = SessionCommand(".read", section: .output, help: nil) { input throws(CommandError) in
        let path = try input.file()
        return { session in try session.read(path) }
    }
}
