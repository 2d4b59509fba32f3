import CLineEdit
import Foundation

/// Reads lines at a terminal with libedit: editing keys, history (kept in a
/// file across sessions) and tab completion.
final class LineEditor {
    private let historyPath: String?

    /// - Parameters:
    ///   - historyPath: Where history is read from and saved to, or `nil`.
    ///   - complete: The completions of a word, given the line up to the
    ///     cursor, and whether a lone completion takes a space after it.
    init(historyPath: String?, complete: @escaping (_ line: String, _ word: String) -> (candidates: [String], appendsSpace: Bool)) {
        self.historyPath = historyPath
        CompletionState.complete = complete
        kura_line_editor_setup("kura", completionGenerator)
        if let historyPath { _ = read_history(historyPath) }
    }

    /// The next line, without its newline, or `nil` at end of input (Ctrl-D).
    func readLine(prompt: String) -> String? {
        guard let line = readline(prompt) else { return nil }
        defer { free(line) }
        let text = String(cString: line)
        if !text.trimmingCharacters(in: .whitespaces).isEmpty {
            add_history(line)
            if let historyPath { _ = write_history(historyPath) }
        }
        return text
    }
}

/// The completion function libedit calls, which can't carry a context.
/// libedit calls it on the thread reading the line, so this state is only
/// touched from there.
private enum CompletionState {
    nonisolated(unsafe) static var complete: ((String, String) -> (candidates: [String], appendsSpace: Bool))?
    nonisolated(unsafe) static var candidates: [String] = []
}

private let completionGenerator: kura_completion_generator = { text, state in
    if state == 0 {
        let line = kura_line_buffer().map { String(cString: $0) } ?? ""
        let point = max(0, min(Int(kura_line_point()), line.utf8.count))
        let beforeCursor = String(decoding: line.utf8.prefix(point), as: UTF8.self)
        let completion = CompletionState.complete?(beforeCursor, String(cString: text))
        CompletionState.candidates = completion?.candidates ?? []
        kura_set_completion_appends_space(completion?.appendsSpace ?? true ? 1 : 0)
    }
    guard state >= 0, Int(state) < CompletionState.candidates.count else { return nil }
    return strdup(CompletionState.candidates[Int(state)])
}
