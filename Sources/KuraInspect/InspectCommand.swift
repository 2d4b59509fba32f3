import Foundation

/// A command of the inspect tool, parsed from one line.
///
/// ```
/// fetch News where sortOrder > 3 sort sortOrder desc, title limit 10 offset 5
/// count News where title BEGINSWITH[c] "kura"
/// template getNews objectId=4F1C…
/// plan fetch News where objectId == "x"
/// ```
enum InspectCommand: Equatable {
    case help
    case entities
    /// One entity's schema, or every entity's.
    case schema(String?)
    case templates
    case fetch(FetchSpec)
    case count(FetchSpec)
    case template(name: String, arguments: [TemplateArgument])
    case show(String)
    case plan(FetchSpec, isCount: Bool)
    case stats
    case check
    case history
    case diff(String)
    case export(ExportSpec)
    case backup(path: String, compacting: Bool)
    case timer(Bool)
    case mode(OutputMode)
    case headers(Bool)
    /// How no value shows in tables and the line mode (sqlite3's `.nullvalue`).
    case nullValue(String)
    /// Print each fetch's and count's plan before its results (sqlite3's `.eqp on`).
    case explain(Bool)
    case width(OutputWidth)
    /// Output to a file from now on; `nil` for back to the terminal.
    case output(String?)
    /// The next command's output to a file.
    case once(String)
    /// Run the commands of a file.
    case read(String)
    /// `import`, which a read-only session can't do: an error saying so.
    case importInSession
    case quit

    /// The command names, for help and completion.
    static let names = [
        "help", "entities", "schema", "templates", "fetch", "count", "template", "show", "plan",
        "stats", "check", "history", "diff", "dump", "export", "backup", "timer", "mode", "headers",
        "width", "nullvalue", "quit",
    ]

    /// sqlite3's dot-commands that mean the same here, for completion and suggestions.
    static let dotNames = [
        ".help", ".tables", ".schema", ".mode", ".headers", ".timer", ".eqp", ".output", ".once", ".read",
        ".width", ".nullvalue", ".quit", ".exit",
    ]
}

/// `fetch`/`count` clauses, as typed.
struct FetchSpec: Equatable {
    var entity: String
    /// The columns to show (`fetch News title, sortOrder …`); empty for all.
    var columns: [String] = []
    /// The predicate's text, and its offset in the line (for the caret).
    var predicate: String?
    var predicateOffset = 0
    var sorts: [(key: String, ascending: Bool)] = []
    var limit: Int?
    var offset: Int?

    static func == (lhs: FetchSpec, rhs: FetchSpec) -> Bool {
        lhs.entity == rhs.entity && lhs.columns == rhs.columns && lhs.predicate == rhs.predicate && lhs.limit == rhs.limit
            && lhs.offset == rhs.offset
            && lhs.sorts.map(\.key) == rhs.sorts.map(\.key) && lhs.sorts.map(\.ascending) == rhs.sorts.map(\.ascending)
    }
}

/// `export [ENTITY [where …] [sort …]] [--format jsonl|csv]`.
struct ExportSpec: Equatable {
    /// What to export; `nil` for every object of every entity.
    var fetch: FetchSpec?
    var format: ExportFormat = .jsonl
}

/// `name=value` of the `template` command.
struct TemplateArgument: Equatable {
    var name: String
    var value: String
}

/// A command line that isn't a valid command: what is wrong, and where.
struct CommandError: Error, Equatable, CustomStringConvertible {
    let message: String
    /// The character offset to point at, if one helps.
    var position: Int?

    var description: String { message }
}

extension InspectCommand {
    /// Parses one command line.
    static func parse(_ line: String) throws(CommandError) -> InspectCommand {
        let words: [CommandTokenizer.Word]
        do {
            words = try CommandTokenizer.words(of: line)
        } catch {
            throw CommandError(message: "the quoted text that starts here is not closed", position: error.position)
        }
        guard let first = words.first else { throw CommandError(message: "empty command") }
        let rest = Array(words.dropFirst())
        func single(_ what: String) throws(CommandError) -> String {
            guard rest.count == 1 else {
                throw CommandError(message: "\(first.text) takes one \(what): \(first.text) \(what.uppercased())", position: rest.dropFirst().first?.start)
            }
            return rest[0].unquoted
        }
        func none() throws(CommandError) {
            if let extra = rest.first {
                throw CommandError(message: "\(first.text) takes no arguments", position: extra.start)
            }
        }
        func onOff(_ command: String) throws(CommandError) -> Bool {
            switch try single("setting").lowercased() {
            case "on", "yes", "true", "1": return true
            case "off", "no", "false", "0": return false
            default: throw CommandError(message: "\(command) takes on or off", position: rest[0].start)
            }
        }
        func file() throws(CommandError) -> String {
            guard rest.count == 1 else {
                throw CommandError(message: "\(first.text) takes one file name", position: rest.dropFirst().first?.start ?? first.end)
            }
            return rest[0].unquoted
        }
        switch first.text.lowercased() {
        case "help", "?", ".help":
            return .help
        case "entities", ".tables":
            try none()
            return .entities
        case "schema", ".schema":
            return .schema(rest.isEmpty ? nil : try single("entity"))
        case "templates":
            try none()
            return .templates
        case "fetch":
            return .fetch(try parseFetch(rest, line: line, command: first, allowsColumns: true))
        case "count":
            return .count(try parseFetch(rest, line: line, command: first))
        case "template":
            guard let name = rest.first else {
                throw CommandError(message: "template needs a name: template NAME var=value …")
            }
            let arguments = try rest.dropFirst().map { word throws(CommandError) in
                let text = word.text
                guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                    throw CommandError(message: "expected var=value, found '\(text)'", position: word.start)
                }
                let value = CommandTokenizer.Word(
                    text: String(text[text.index(after: equals)...]), start: 0, end: 0, isTopLevel: true).unquoted
                return TemplateArgument(name: String(text[..<equals]), value: value)
            }
            return .template(name: name.unquoted, arguments: arguments)
        case "show":
            return .show(try single("object ID"))
        case "plan":
            guard let kind = rest.first, ["fetch", "count"].contains(kind.text.lowercased()) else {
                throw CommandError(message: "plan takes a fetch or count command: plan fetch ENTITY …", position: rest.first?.start)
            }
            let isCount = kind.text.lowercased() == "count"
            return .plan(try parseFetch(Array(rest.dropFirst()), line: line, command: kind, allowsColumns: !isCount), isCount: isCount)
        case ".eqp":
            return .explain(try onOff(".eqp"))
        case "stats":
            try none()
            return .stats
        case "check":
            try none()
            return .check
        case "history":
            try none()
            return .history
        case "diff":
            return .diff(try single("store"))
        case "dump":
            return .export(ExportSpec(fetch: FetchSpec(entity: try single("entity"))))
        case "export":
            return .export(try parseExport(rest, line: line, command: first))
        case "backup":
            let compacting = rest.contains { $0.text == "--compact" }
            let paths = rest.filter { $0.text != "--compact" }
            guard paths.count == 1 else {
                throw CommandError(message: "backup takes one file name: backup FILE [--compact]", position: paths.dropFirst().first?.start)
            }
            return .backup(path: paths[0].unquoted, compacting: compacting)
        case "import", ".import":
            return .importInSession
        case "timer", ".timer":
            return .timer(try onOff("timer"))
        case "headers", ".headers", ".header":
            return .headers(try onOff("headers"))
        case "nullvalue", ".nullvalue":
            return .nullValue(try single("text"))
        case "mode", ".mode":
            let name = try single("mode").lowercased()
            guard let mode = OutputMode(rawValue: name == "column" || name == "box" ? "table" : name) else {
                throw CommandError(message: "mode takes table, line, csv, json or jsonl", position: rest[0].start)
            }
            return .mode(mode)
        case "width", ".width":
            switch try single("width").lowercased() {
            case "auto", "terminal": return .width(.terminal)
            case "off", "none", "unlimited", "0": return .width(.unlimited)
            case let text:
                guard let columns = Int(text), columns >= 20 else {
                    throw CommandError(message: "width takes a number of columns (20 or more), auto or off", position: rest[0].start)
                }
                return .width(.columns(columns))
            }
        case ".output":
            return .output(rest.isEmpty ? nil : try file())
        case ".once":
            return .once(try file())
        case ".read":
            return .read(try file())
        case "quit", "exit", ".quit", ".exit":
            return .quit
        default:
            let suggestion = Suggestion.phrase(for: first.text, in: first.text.hasPrefix(".") ? dotNames : names)
            throw CommandError(message: "unknown command '\(first.text)'\(suggestion); type help for the commands", position: first.start)
        }
    }

    /// `[ENTITY [where …] [sort …] [limit N] [offset N]] [--format jsonl|csv]`.
    private static func parseExport(
        _ words: [CommandTokenizer.Word], line: String, command: CommandTokenizer.Word
    ) throws(CommandError) -> ExportSpec {
        var words = words
        var spec = ExportSpec()
        if let flag = words.firstIndex(where: { $0.isTopLevel && $0.text == "--format" }) {
            guard flag + 1 < words.count, let format = ExportFormat(rawValue: words[flag + 1].text.lowercased()) else {
                throw CommandError(message: "--format takes jsonl or csv", position: flag + 1 < words.count ? words[flag + 1].start : words[flag].end)
            }
            spec.format = format
            words.removeSubrange(flag...(flag + 1))
        }
        if !words.isEmpty { spec.fetch = try parseFetch(words, line: line, command: command) }
        if spec.format == .csv && spec.fetch == nil {
            throw CommandError(message: "CSV holds one entity: export ENTITY --format csv")
        }
        return spec
    }

    /// `ENTITY [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N]`.
    private static func parseFetch(
        _ words: [CommandTokenizer.Word], line: String, command: CommandTokenizer.Word, allowsColumns: Bool = false
    ) throws(CommandError) -> FetchSpec {
        guard let entity = words.first else {
            throw CommandError(message: "\(command.text) needs an entity: \(command.text) ENTITY [where …] [sort …] [limit N] [offset N]")
        }
        var spec = FetchSpec(entity: entity.unquoted)
        let characters = Array(line)
        var index = 1
        func isClause(_ word: CommandTokenizer.Word) -> Bool {
            word.isTopLevel && ["where", "sort", "limit", "offset"].contains(word.text.lowercased())
        }
        // `fetch News title, sortOrder where …`: the columns, up to the first clause.
        if allowsColumns, index < words.count, !isClause(words[index]) {
            var end = index
            while end < words.count && !isClause(words[end]) { end += 1 }
            let text = String(characters[words[index].start..<words[end - 1].end])
            var offset = words[index].start
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                let name = part.trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, !name.contains(" ") else {
                    let position = offset + part.prefix { $0 == " " }.count
                    throw CommandError(message: "expected column names separated by commas", position: position)
                }
                spec.columns.append(name)
                offset += part.count + 1
            }
            index = end
        }
        while index < words.count {
            let clause = words[index]
            guard isClause(clause) else {
                let expected = allowsColumns ? "where, sort, limit or offset" : "where, sort, limit or offset (only fetch chooses columns)"
                throw CommandError(message: "expected \(expected), found '\(clause.text)'", position: clause.start)
            }
            var end = index + 1
            while end < words.count && !isClause(words[end]) { end += 1 }
            let arguments = Array(words[(index + 1)..<end])
            guard let firstArgument = arguments.first, let lastArgument = arguments.last else {
                throw CommandError(message: "\(clause.text) needs a value", position: clause.end)
            }
            switch clause.text.lowercased() {
            case "where":
                guard spec.predicate == nil else { throw CommandError(message: "where appears twice", position: clause.start) }
                spec.predicate = String(characters[firstArgument.start..<lastArgument.end])
                spec.predicateOffset = firstArgument.start
            case "sort":
                let text = String(characters[firstArgument.start..<lastArgument.end])
                var offset = firstArgument.start
                for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                    let pieces = part.split(separator: " ")
                    guard let key = pieces.first, pieces.count <= 2 else {
                        throw CommandError(message: "expected KEY [asc|desc] in sort", position: offset)
                    }
                    var ascending = true
                    if pieces.count == 2 {
                        switch pieces[1].lowercased() {
                        case "asc", "ascending": ascending = true
                        case "desc", "descending": ascending = false
                        default: throw CommandError(message: "expected asc or desc after \(key), found '\(pieces[1])'", position: offset)
                        }
                    }
                    spec.sorts.append((String(key), ascending))
                    offset += part.count + 1
                }
            case "limit", "offset":
                guard arguments.count == 1, let number = Int(firstArgument.text), number >= 0 else {
                    throw CommandError(message: "\(clause.text) takes a whole number, 0 or more", position: firstArgument.start)
                }
                if clause.text.lowercased() == "limit" { spec.limit = number } else { spec.offset = number }
            default:
                break
            }
            index = end
        }
        return spec
    }
}
