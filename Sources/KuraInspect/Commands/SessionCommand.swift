/// One command of an inspect session, whole: its name and other
/// spellings, its help, how its line is read, and what it does. A new
/// command is one file (an extension with its `static let`) and one line
/// in ``all``; help, completion of its name and suggestions for typos
/// come from here.
///
/// ```swift
/// extension SessionCommand {
///     static let stats = SessionCommand(
///         "stats", section: .store, help: "stats                     file, map, readers, space per entity"
///     ) { input throws(CommandError) in
///         try input.none()
///         return { session in try session.showStatistics(); return true }
///     }
/// }
/// ```
struct SessionCommand: Sendable {
    /// Where `help` lists a command.
    enum Section: CaseIterable {
        case reading, store, output

        var title: String {
            switch self {
            case .reading: "Reading (keywords are not case-sensitive):"
            case .store: "The store:"
            case .output: "Output:"
            }
        }
    }

    /// What a parsed command does when run: false ends the session.
    typealias Run = (InspectSession) throws -> Bool

    /// The name help and completion show.
    let name: String
    /// Other spellings, as sqlite3's dot-commands (`.tables`); `?` too.
    let aliases: [String]
    let section: Section
    /// Its lines in `help`, already aligned; `nil` when another command's
    /// line shows it too (`mode … headers on|off timer on|off`).
    let help: String?
    /// Whether the command redirects the next command's output (`.once`),
    /// so finishing this one must leave that redirection in place.
    let redirectsNextCommand: Bool
    /// Reads the words after the name.
    let parse: @Sendable (CommandInput) throws(CommandError) -> Run

    init(_ name: String, aliases: [String] = [], section: Section, help: String?, redirectsNextCommand: Bool = false,
         parse: @escaping @Sendable (CommandInput) throws(CommandError) -> Run) {
        self.name = name
        self.aliases = aliases
        self.section = section
        self.help = help
        self.redirectsNextCommand = redirectsNextCommand
        self.parse = parse
    }

    /// Every command, in the order help lists them.
    static let all: [SessionCommand] = [
        .entities, .schema, .fetch, .count, .templates, .template, .show, .plan,
        .stats, .check, .history, .diff, .export, .dump, .backup, .import,
        .mode, .headers, .timer, .width, .nullValue, .output, .once, .read, .explain, .help, .quit,
    ]

    /// The command names without a dot, for completion and suggestions.
    static let names = all.map(\.name).filter { !$0.hasPrefix(".") && !unoffered.contains($0) }

    /// sqlite3's dot-commands that mean the same here, for completion and suggestions.
    static let dotNames = all.flatMap { [$0.name] + $0.aliases }.filter { $0.hasPrefix(".") && !unoffered.contains($0) }

    /// Spellings accepted but never offered: `.header` (for `.headers`),
    /// and `import`, which only says the session can't.
    private static let unoffered: Set<String> = [".header", ".import", "import"]

    /// Every spelling, lowercased, to its command.
    private static let byName: [String: SessionCommand] = Dictionary(
        all.flatMap { command in ([command.name] + command.aliases).map { ($0.lowercased(), command) } },
        uniquingKeysWith: { first, _ in first })

    /// A command line read: the command, and what running it does.
    struct Parsed {
        let command: SessionCommand
        let run: Run
    }

    /// Parses one command line.
    static func parse(_ line: String) throws(CommandError) -> Parsed {
        let words: [CommandTokenizer.Word]
        do {
            words = try CommandTokenizer.words(of: line)
        } catch {
            throw CommandError(message: "the quoted text that starts here is not closed", position: error.position)
        }
        guard let first = words.first else { throw CommandError(message: "empty command") }
        guard let command = byName[first.text.lowercased()] else {
            let suggestion = Suggestion.phrase(for: first.text, in: first.text.hasPrefix(".") ? dotNames : names)
            throw CommandError(message: "unknown command '\(first.text)'\(suggestion); type help for the commands", position: first.start)
        }
        let input = CommandInput(line: line, name: first, words: Array(words.dropFirst()))
        return Parsed(command: command, run: try command.parse(input))
    }

    /// What `help` prints: each section's commands, then how predicates read.
    static let helpText: String = {
        var lines: [String] = []
        for section in Section.allCases {
            lines.append(section.title)
            lines += all.filter { $0.section == section }.compactMap(\.help).flatMap { $0.split(separator: "\n").map { "  " + $0 } }
        }
        return (lines + [
            "Predicates use NSPredicate's syntax: title BEGINSWITH[c] \"kura\",",
            "sortOrder BETWEEN {1, 9}, author.name == \"Ann\", tags.@count > 2,",
            "date > CAST(\"2026-11-23T08:00:00Z\", \"NSDate\"). A key spelled like",
            "a keyword (sort, limit, …) is written #sort.",
        ]).joined(separator: "\n")
    }()
}

/// The words of a command line after the command's name, with what most
/// commands ask of them.
struct CommandInput {
    /// The whole line, as typed (predicates are taken from it as they are).
    let line: String
    /// The command's name, as typed.
    let name: CommandTokenizer.Word
    /// The words after it.
    let words: [CommandTokenizer.Word]

    /// The one word the command takes, unquoted.
    func single(_ what: String) throws(CommandError) -> String {
        guard words.count == 1 else {
            throw CommandError(message: "\(name.text) takes one \(what): \(name.text) \(what.uppercased())",
                               position: words.dropFirst().first?.start)
        }
        return words[0].unquoted
    }

    /// Fails when there are words: the command takes none.
    func none() throws(CommandError) {
        if let extra = words.first {
            throw CommandError(message: "\(name.text) takes no arguments", position: extra.start)
        }
    }

    /// `on` or `off` (or yes/no, true/false, 1/0).
    func onOff(_ command: String) throws(CommandError) -> Bool {
        switch try single("setting").lowercased() {
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        default: throw CommandError(message: "\(command) takes on or off", position: words[0].start)
        }
    }

    /// One file name.
    func file() throws(CommandError) -> String {
        guard words.count == 1 else {
            throw CommandError(message: "\(name.text) takes one file name", position: words.dropFirst().first?.start ?? name.end)
        }
        return words[0].unquoted
    }
}

/// A command line that isn't a valid command: what is wrong, and where.
struct CommandError: Error, Equatable, CustomStringConvertible {
    let message: String
    /// The character offset to point at, if one helps.
    var position: Int?

    var description: String { message }
}
