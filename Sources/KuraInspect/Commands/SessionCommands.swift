// The session itself: help, and leaving.

extension SessionCommand {
    static let help = SessionCommand("help", aliases: ["?", ".help"], section: .reading, help: nil) { _ throws(CommandError) in
        return { session in session.showHelp(); return true }
    }

    static let quit = SessionCommand(
        "quit", aliases: ["exit", ".quit", ".exit"], section: .output, help: "quit                      leave (also Ctrl-D)"
    ) { _ throws(CommandError) in
        return { _ in false }
    }
}
