import Kura

/// Tab completion for the inspect prompt: commands first, then entity,
/// attribute, template and variable names where the command takes them.
struct Completer {
    let model: ManagedObjectModel

    private static let clauseKeywords = ["where", "sort", "limit", "offset"]
    private static let predicateKeywords = ["AND", "OR", "NOT", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "nil"]

    /// The completions of `word`, the word under the cursor, given the line
    /// up to the cursor.
    func candidates(line: String, word: String) -> [String] {
        let endsWithSpace = line.last?.isWhitespace ?? true
        var previous = line.split(whereSeparator: \.isWhitespace).map(String.init)
        if !endsWithSpace && !previous.isEmpty { previous.removeLast() }
        return options(after: previous).filter { $0.lowercased().hasPrefix(word.lowercased()) }.sorted()
    }

    private func options(after previous: [String]) -> [String] {
        guard let command = previous.first?.lowercased() else { return InspectCommand.names }
        let entities = model.entities.map(\.name)
        switch command {
        case "schema", "dump":
            return previous.count == 1 ? entities : []
        case "fetch", "count":
            return fetchOptions(after: Array(previous.dropFirst()))
        case "plan":
            if previous.count == 1 { return ["fetch", "count"] }
            return fetchOptions(after: Array(previous.dropFirst(2)))
        case "template":
            guard previous.count > 1 else { return model.fetchRequestTemplatesByName.keys.sorted() }
            let given = Set(previous.dropFirst(2).compactMap { $0.split(separator: "=").first.map(String.init) })
            let variables = model.templateVariables(forName: previous[1]) ?? []
            return variables.filter { !given.contains($0.name) }.map { "\($0.name)=" }
        case "show":
            return previous.count == 1 ? entities.map { "kura://\($0)/" } : []
        case "timer":
            return previous.count == 1 ? ["on", "off"] : []
        case "mode":
            return previous.count == 1 ? ["table", "json"] : []
        default:
            return []
        }
    }

    /// After `fetch`/`count`: the entity, then clauses, attributes and keywords.
    private func fetchOptions(after words: [String]) -> [String] {
        guard let entityName = words.first else { return model.entities.map(\.name) }
        guard let entity = model.entity(named: entityName) else { return [] }
        let attributes = entity.attributes.map(\.name)
        let clause = words.last { Self.clauseKeywords.contains($0.lowercased()) }?.lowercased()
        switch clause {
        case "where": return attributes + Self.predicateKeywords + Self.clauseKeywords.filter { $0 != "where" }
        case "sort": return attributes + ["asc", "desc", "limit", "offset"]
        case "limit", "offset": return Self.clauseKeywords
        default: return Self.clauseKeywords
        }
    }
}
