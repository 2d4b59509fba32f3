import Foundation
import Kura

/// The read-run-print loop of `kura inspect`.
///
/// At a terminal it prompts, edits lines with libedit, keeps history in
/// `~/.kura_history`, completes with Tab, reports errors and carries on.
/// With input from a pipe or file it reads commands without a prompt and
/// stops with a non-zero status at the first error, unless told to keep going
/// (then the status is non-zero if any command failed).
public enum Repl {
    /// Where commands come from.
    public enum Input {
        /// A terminal: prompt, line editing, history in this file.
        case terminal(historyPath: String?)
        /// Lines without a prompt (a pipe, a file, a test).
        case lines(() -> String?)
    }

    /// Runs commands until `quit`, end of input, or (without `keepGoing`)
    /// an error. Returns the exit status.
    public static func run(
        _ session: InspectSession, input: Input, keepGoing: Bool, errors: (String) -> Void
    ) -> Int32 {
        var status: Int32 = 0
        let next: () -> String?
        switch input {
        case .terminal(let historyPath):
            let completer = Completer(model: session.model)
            let editor = LineEditor(historyPath: historyPath) { completer.candidates(line: $0, word: $1) }
            session.print(banner(for: session))
            next = { editor.readLine(prompt: "kura> ") }
        case .lines(let read):
            next = read
        }
        let interactive = if case .terminal = input { true } else { false }
        while let line = next() {
            do {
                guard try session.run(line) else { break }
            } catch {
                errors("error: \(error)")
                status = 1
                if !interactive && !keepGoing { return status }
            }
        }
        return interactive ? 0 : status
    }

    static func banner(for session: InspectSession) -> String {
        let entities = session.model.entities.map(\.name).joined(separator: ", ")
        return "kura inspect \(session.container.store.path) (read-only): \(session.model.entities.count) "
            + "\(session.model.entities.count == 1 ? "entity" : "entities")\(entities.isEmpty ? "" : " (\(entities))"). "
            + "Type help for the commands, Tab to complete, Ctrl-D to leave."
    }

    /// `~/.kura_history`, or `nil` without a home directory.
    public static var defaultHistoryPath: String? {
        ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.kura_history" }
    }
}
