import Foundation
import Kura

/// An open store and the state of an inspect session: what `kura inspect`
/// runs each line against, and what the one-shot subcommands use.
///
/// ```swift
/// let session = try InspectSession(path: "news.kura") { print($0) }
/// try session.run("fetch News where sortOrder < 3 sort sortOrder")
/// ```
///
/// The store is opened read-only: inspecting never changes the file and
/// never blocks the store's writer. It needs no Swift code of the app: the
/// store keeps its own model.
public final class InspectSession {
    /// The open store.
    public let container: PersistentContainer
    /// The store's model.
    public var model: ManagedObjectModel { container.model }
    /// How results are printed.
    public var mode: OutputMode
    /// How wide tables may be.
    public var width: OutputWidth
    /// Whether tables and CSV start with the column names.
    public var showsHeaders = true
    /// How no value shows in tables and the line mode (`nil` by default;
    /// `nullvalue TEXT`). CSV writes an empty field and JSON `null` whatever it is.
    public var nullDisplay = "nil"
    /// Whether each command's run time is printed after it.
    public var isTimerOn = false
    /// Whether fetches and counts print their query plan first (`.eqp on`).
    public var showsPlans = false

    /// The session's output; `.output` and `.once` files go instead while set.
    let output: OutputSink
    var outputFile: OutputSink?
    var onceFile: OutputSink?
    /// How deep `.read` files are nested now.
    var readDepth = 0

    /// Opens the store at `path` read-only.
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - mode: How results are printed.
    ///   - width: How wide tables may be: by default the terminal's width,
    ///     and no limit when the output isn't a terminal.
    ///   - output: Receives every line of output (results; errors are thrown).
    /// - Throws: ``InspectError`` with a one-line message: no such file, not a
    ///   Kura store, a store from a newer Kura, a damaged store.
    public convenience init(
        path: String, mode: OutputMode = .table, width: OutputWidth = .terminal, output: @escaping (String) -> Void
    ) throws(InspectError) {
        try self.init(path: path, mode: mode, width: width, sink: OutputSink(lines: output))
    }

    /// Opens the store at `path` read-only, printing into `sink` (such as
    /// ``OutputSink/standardOutput()``, whose every write is checked).
    public convenience init(
        path: String, mode: OutputMode = .table, width: OutputWidth = .terminal, sink: OutputSink
    ) throws(InspectError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw InspectError("no such file: \(path)")
        }
        var options = StoreOptions()
        options.isReadOnly = true
        options.allowsReadingWithoutLock = true
        try self.init(store: .lmdb(path: path, options: options), mode: mode, width: width, sink: sink)
    }

    /// Opens the store `store` describes (on any engine; open it read-only),
    /// with the same commands. What only a file has (`.stats`, `.check`,
    /// `.backup`) says so on other engines.
    public convenience init(
        store: StoreDescription, mode: OutputMode = .table, width: OutputWidth = .terminal, output: @escaping (String) -> Void
    ) throws(InspectError) {
        try self.init(store: store, mode: mode, width: width, sink: OutputSink(lines: output))
    }

    /// Opens the store `store` describes, printing into `sink`.
    public init(
        store: StoreDescription, mode: OutputMode = .table, width: OutputWidth = .terminal, sink: OutputSink
    ) throws(InspectError) {
        do {
            container = try PersistentContainer(store: store)
        } catch {
            throw InspectError(error)
        }
        self.mode = mode
        self.width = width
        self.output = sink
    }

    /// Runs one command line. Returns false for `quit`.
    ///
    /// - Throws: ``InspectError``: a one-line message, plus the line with a
    ///   caret under the position for syntax errors.
    @discardableResult
    public func run(_ line: String) throws(InspectError) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return true }
        let command: SessionCommand.Parsed
        do {
            command = try SessionCommand.parse(trimmed)
        } catch {
            throw InspectError(error.message, line: trimmed, position: error.position)
        }
        return try perform(command, line: trimmed)
    }

    /// Writes a consistent copy of the store to the file at `path`, as the
    /// `backup` command does, with the name exactly as given (no quoting
    /// or escapes to undo: `kura backup` passes its argument here).
    public func backup(toFile path: String, compacting: Bool) throws(InspectError) {
        _ = try perform(SessionCommand.Parsed(command: .backup) { try $0.backup(to: path, compacting: compacting); return true },
                        line: "backup")
    }

    /// What opening the store with the model of the store at `path` would
    /// migrate, as the `diff` command says, with the name exactly as given.
    public func showDifferences(fromStoreAt path: String) throws(InspectError) {
        _ = try perform(SessionCommand.Parsed(command: .diff) { try $0.showDifferences(from: path); return true }, line: "diff")
    }

    /// Runs a parsed command, then finishes its output.
    private func perform(_ command: SessionCommand.Parsed, line trimmed: String) throws(InspectError) -> Bool {
        let start = ContinuousClock.now
        let goesOn: Bool
        do {
            goesOn = try command.run(self)
        } catch {
            try? finishCommandOutput(command: command.command, succeeded: false)
            if let error = error as? KuraError, error.code == .unknownAttribute, let entity = error.entity, let key = error.key {
                throw InspectError(unknownKey: key, of: entity, in: model, line: trimmed)
            }
            throw error as? InspectError ?? InspectError(error, line: trimmed)
        }
        if isTimerOn {
            let elapsed = ContinuousClock.now - start
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            print(String(format: "Run time: %.3f ms", milliseconds))
        }
        try finishCommandOutput(command: command.command, succeeded: true)
        return goesOn
    }

    /// Runs the commands of the file at `path`, stopping at the first error
    /// (which names the file and line). Returns false after a `quit`.
    func read(_ path: String) throws -> Bool {
        guard readDepth < 16 else { throw InspectError(".read files nested more than 16 deep") }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InspectError("can't read \(path)")
        }
        readDepth += 1
        defer { readDepth -= 1 }
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("--") || trimmed.hasPrefix("#") { continue }
            do {
                guard try run(trimmed) else { return false }
            } catch {
                throw InspectError("\(path):\(number + 1): \(error.message)", line: error.caret == nil ? nil : trimmed,
                                   position: error.caretPosition)
            }
        }
        return true
    }

    /// A new context for one command, so memory stays flat between commands.
    func newContext() -> ManagedObjectContext {
        container.newContext()
    }

    func entity(named name: String) throws -> EntityDescription {
        guard let entity = model.entity(named: name) else {
            let names = model.entities.map(\.name)
            let known = names.joined(separator: ", ")
            throw InspectError("unknown entity '\(name)'\(Suggestion.phrase(for: name, in: names)); the store has \(known.isEmpty ? "none" : known)")
        }
        return entity
    }
}

/// Something that went wrong, as the inspect tool reports it: one line, and
/// for a syntax error, the command with a caret under the position.
public struct InspectError: LocalizedError, CustomStringConvertible {
    /// The one-line message.
    public let message: String
    /// True when the command was cancelled (Ctrl-C).
    var isCancellation = false
    /// The command line and a caret line, when a position is known.
    public let caret: String?
    /// The position the caret is under.
    let caretPosition: Int?

    /// Control characters in the message and the line are escaped, so a
    /// typed line can't send terminal sequences back through its error.
    init(_ message: String, line: String? = nil, position: Int? = nil) {
        self.message = TerminalText.escaped(message).replacingOccurrences(of: "\n", with: " ")
        caretPosition = line == nil ? nil : position
        if let line, let position {
            let shown = TerminalText.escaped(line).replacingOccurrences(of: "\n", with: " ")
            caret = shown + "\n" + String(repeating: " ", count: TerminalText.escapedColumn(of: max(0, position), in: line)) + "^"
        } else {
            caret = nil
        }
    }

    /// An error of Kura (or any other) as a message; a predicate syntax
    /// error points into `line` when the predicate's offset is known.
    init(_ error: Error, line: String? = nil, predicateOffset: Int? = nil) {
        switch error {
        case let syntax as PredicateSyntaxError:
            let offset = predicateOffset ?? 0
            self.init("predicate: \(syntax.message) at position \(syntax.position)",
                      line: line ?? syntax.format, position: (line == nil ? 0 : offset) + syntax.position)
        case let kura as KuraError:
            self.init(kura.description)
        case let inspect as InspectError:
            self = inspect
        case is CancellationError:
            self.init("interrupted")
            isCancellation = true
        default:
            self.init("\(error)")
        }
    }

    /// `entity News has no attribute 'titel' (did you mean 'title'?)`; for
    /// a word close to no property name, written bare where a value goes
    /// (`title == Kura`), a reminder that text is quoted.
    init(unknownKey key: String, of entity: String, in model: ManagedObjectModel, line: String) {
        let names = model.entity(named: entity).map { $0.attributes.map(\.name) + $0.relationships.map(\.name) } ?? []
        var message = KuraError.unknownAttribute(entity: entity, key: key).description
        if let close = Suggestion.closest(to: key, in: names) {
            message += " (did you mean '\(close)'?)"
        } else if Self.isBareValue(key, in: line) {
            message += "; text is quoted: \"\(key)\""
        }
        self.init(message)
    }

    /// True when `word` stands in `line` unquoted right after a comparison
    /// operator or inside `{…}`: where a value was meant.
    static func isBareValue(_ word: String, in line: String) -> Bool {
        let operators = ["==", "!=", "<=", ">=", "<", ">", "=", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "IN", "{", ","]
        let tokens = line.split(whereSeparator: { $0 == " " }).map(String.init)
        for (index, token) in tokens.enumerated() where index > 0 {
            let bare = token.trimmingCharacters(in: CharacterSet(charactersIn: "{},()"))
            guard bare == word else { continue }
            let before = tokens[index - 1].uppercased()
            if operators.contains(where: { before.hasSuffix($0) }) || token.hasPrefix("{") { return true }
        }
        return false
    }

    public var description: String {
        caret.map { "\(message)\n\($0)" } ?? message
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
