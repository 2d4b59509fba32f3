import Foundation
import Kura
import Synchronization

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
    ///
    /// At a terminal, Ctrl-C clears the line being typed, or cancels the
    /// command that is running (its output so far stays), and the session
    /// goes on; Ctrl-D leaves.
    public static func run(
        _ session: InspectSession, input: Input, keepGoing: Bool, errors: (String) -> Void
    ) -> Int32 {
        switch input {
        case .terminal(let historyPath):
            let completer = Completer(model: session.model)
            let editor = LineEditor(historyPath: historyPath) { completer.completion(line: $0, word: $1) }
            session.print(banner(for: session))
            try? session.flushOutput()
            Interrupts.install()
            while true {
                guard let line = editor.readLine(prompt: "kura> ") else {
                    // Ctrl-C at the prompt: a new line and a new prompt.
                    if Interrupts.take() {
                        session.print("")
                        try? session.flushOutput()
                        continue
                    }
                    return 0
                }
                do {
                    guard try runCancellable(line, in: session) else { return 0 }
                } catch let error as InspectError where error.isCancellation {
                    errors("\nerror: \(error)")  // after the ^C the terminal echoed
                } catch {
                    errors("error: \(error)")
                }
            }
        case .lines(let read):
            var status: Int32 = 0
            while let line = read() {
                do {
                    guard try session.run(line) else { break }
                } catch {
                    errors("error: \(error)")
                    status = 1
                    if !keepGoing { return status }
                }
            }
            return status
        }
    }

    /// Runs `line` in a task of its own and cancels it on Ctrl-C; the
    /// library's long loops (fetches, counts, checks, dumps) stop at the
    /// next record they read with `CancellationError`.
    static func runCancellable(_ line: String, in session: InspectSession) throws -> Bool {
        _ = Interrupts.take()  // a Ctrl-C typed before this command doesn't cancel it
        // The session is only touched by the task while this thread waits.
        let work = UncheckedSendable(session)
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Bool, any Error>?>(nil)
        let task = Task.detached {
            let result = Result { try work.value.run(line) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            if Interrupts.take() { task.cancel() }
        }
        switch outcome.withLock({ $0 })! {
        case .success(let goesOn):
            return goesOn
        case .failure(let error) where error is CancellationError || (error as? InspectError)?.isCancellation == true:
            throw InspectError(CancellationError())
        case .failure(let error):
            throw error
        }
    }

    static func banner(for session: InspectSession) -> String {
        let entities = session.model.entities.map(\.name).joined(separator: ", ")
        return "kura \(KuraVersion.current), \(session.container.store.path) (read-only): \(session.model.entities.count) "
            + "\(session.model.entities.count == 1 ? "entity" : "entities")\(entities.isEmpty ? "" : " (\(entities))").\n"
            + "Type help for the commands, Tab to complete, Ctrl-D to leave."
    }

    /// `~/.kura_history`, or `nil` without a home directory.
    public static var defaultHistoryPath: String? {
        ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.kura_history" }
    }
}

/// A value handed to another thread while its owner waits for it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
