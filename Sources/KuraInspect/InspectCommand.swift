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
    case schema(String)
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
    case dump(String)
    case timer(Bool)
    case mode(OutputMode)
    case quit

    /// The command names, for help and completion.
    static let names = [
        "help", "entities", "schema", "templates", "fetch", "count", "template", "show", "plan",
        "stats", "check", "history", "diff", "dump", "timer", "mode", "quit",
    ]
}

/// `fetch`/`count` clauses, as typed.
struct FetchSpec: Equatable {
    var entity: String
    /// The predicate's text, and its offset in the line (for the caret).
    var predicate: String?
    var predicateOffset = 0
    var sorts: [(key: String, ascending: Bool)] = []
    var limit: Int?
    var offset: Int?

    static func == (lhs: FetchSpec, rhs: FetchSpec) -> Bool {
        lhs.entity == rhs.entity && lhs.predicate == rhs.predicate && lhs.limit == rhs.limit && lhs.offset == rhs.offset
            && lhs.sorts.map(\.key) == rhs.sorts.map(\.key) && lhs.sorts.map(\.ascending) == rhs.sorts.map(\.ascending)
    }
}

/// `name=value` of the `template` command.
struct TemplateArgument: Equatable {
    var name: String
    var value: String
}

/// How results are printed.
public enum OutputMode: String, Sendable, Equatable {
    /// Aligned columns, long values cut with "…".
    case table
    /// One JSON object per result, one per line.
    case json
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
        switch first.text.lowercased() {
        case "help", "?", ".help":
            return .help
        case "entities", ".tables":
            try none()
            return .entities
        case "schema", ".schema":
            return .schema(try single("entity"))
        case "templates":
            try none()
            return .templates
        case "fetch":
            return .fetch(try parseFetch(rest, line: line, command: first))
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
        case "plan", ".eqp":
            guard let kind = rest.first, ["fetch", "count"].contains(kind.text.lowercased()) else {
                throw CommandError(message: "plan takes a fetch or count command: plan fetch ENTITY …", position: rest.first?.start)
            }
            return .plan(try parseFetch(Array(rest.dropFirst()), line: line, command: kind), isCount: kind.text.lowercased() == "count")
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
            return .dump(try single("entity"))
        case "timer", ".timer":
            switch try single("setting").lowercased() {
            case "on": return .timer(true)
            case "off": return .timer(false)
            default: throw CommandError(message: "timer takes on or off", position: rest[0].start)
            }
        case "mode", ".mode":
            guard let mode = OutputMode(rawValue: try single("mode").lowercased()) else {
                throw CommandError(message: "mode takes table or json", position: rest[0].start)
            }
            return .mode(mode)
        case "quit", "exit", ".quit", ".exit":
            return .quit
        default:
            let suggestion = Suggestion.phrase(for: first.text, in: names)
            throw CommandError(message: "unknown command '\(first.text)'\(suggestion); type help for the commands", position: first.start)
        }
    }

    /// `ENTITY [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N]`.
    private static func parseFetch(
        _ words: [CommandTokenizer.Word], line: String, command: CommandTokenizer.Word
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
        while index < words.count {
            let clause = words[index]
            guard isClause(clause) else {
                throw CommandError(message: "expected where, sort, limit or offset, found '\(clause.text)'", position: clause.start)
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
