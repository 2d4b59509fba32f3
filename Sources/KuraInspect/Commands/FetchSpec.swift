// What `fetch`, `count`, `plan` and `export` take, read from their words.

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

extension FetchSpec {
    /// `ENTITY [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N]`.
    static func parse(
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

extension ExportSpec {
    /// `[ENTITY [where …] [sort …] [limit N] [offset N]] [--format jsonl|csv]`.
    static func parse(
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
        if !words.isEmpty { spec.fetch = try FetchSpec.parse(words, line: line, command: command) }
        if spec.format == .csv && spec.fetch == nil {
            throw CommandError(message: "CSV holds one entity: export ENTITY --format csv")
        }
        return spec
    }
}
