import Kura

/// Tab completion for the inspect prompt: commands first, then entity,
/// attribute, template and variable names where the command takes them.
struct Completer {
    let model: ManagedObjectModel

    private static let clauseKeywords = ["where", "sort", "limit", "offset"]
    private static let predicateKeywords = [
        "AND", "OR", "NOT", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "nil",
        "ANY", "ALL", "NONE", "SUBQUERY", "SELF",
    ]

    /// The completions of `word`, the word under the cursor, given the line
    /// up to the cursor.
    func candidates(line: String, word: String) -> [String] {
        completion(line: line, word: word).candidates
    }

    /// The completions of `word`, and whether a lone one takes a space after
    /// it: not when it names a relationship, which a key path may go on
    /// through (`writer` then `.name`).
    func completion(line: String, word: String) -> (candidates: [String], appendsSpace: Bool) {
        let endsWithSpace = line.last?.isWhitespace ?? true
        var previous = line.split(whereSeparator: \.isWhitespace).map(String.init)
        if !endsWithSpace && !previous.isEmpty { previous.removeLast() }
        let candidates = options(after: previous, word: word).filter { $0.lowercased().hasPrefix(word.lowercased()) }.sorted()
        guard candidates.count == 1, let entity = fetchedEntity(after: previous) else { return (candidates, true) }
        return (candidates, destination(of: candidates[0], from: entity, toManyToo: true) == nil)
    }

    /// The entity of a `fetch`, `count` or `plan` line.
    private func fetchedEntity(after previous: [String]) -> EntityDescription? {
        let words = previous.first?.lowercased() == "plan" ? previous.dropFirst(2) : previous.dropFirst()
        guard ["fetch", "count", "plan"].contains(previous.first?.lowercased() ?? "") else { return nil }
        return words.first.flatMap { model.entity(named: $0) }
    }

    /// The entity the relationships of a key path lead to, whether the last
    /// is a to-many, or `nil` if a component is not a relationship (or is a
    /// to-many, without `toManyToo`).
    private func destination(of path: some StringProtocol, from entity: EntityDescription, toManyToo: Bool)
        -> (entity: EntityDescription, isToMany: Bool)? {
        var current = (entity: entity, isToMany: false)
        for name in path.split(separator: ".", omittingEmptySubsequences: false) {
            guard let relationship = current.entity.relationships.first(where: { $0.name == name }),
                  toManyToo || !relationship.isToMany,
                  let destination = model.entity(named: relationship.destinationEntityName) else { return nil }
            current = (destination, relationship.isToMany)
        }
        return current
    }

    private func options(after previous: [String], word: String) -> [String] {
        guard let command = previous.first?.lowercased() else {
            return word.hasPrefix(".") ? SessionCommand.dotNames : SessionCommand.names
        }
        let entities = model.entities.map(\.name)
        switch command {
        case "schema", ".schema", "dump":
            return previous.count == 1 ? entities : []
        case "export":
            if previous.last == "--format" { return ExportFormat.allCases.map(\.rawValue) }
            return previous.count == 1 ? entities : fetchOptions(after: Array(previous.dropFirst()), word: word, choosesColumns: false) + ["--format"]
        case "fetch", "count":
            return fetchOptions(after: Array(previous.dropFirst()), word: word, choosesColumns: command == "fetch")
        case "plan":
            if previous.count == 1 { return ["fetch", "count"] }
            return fetchOptions(after: Array(previous.dropFirst(2)), word: word, choosesColumns: previous[1].lowercased() == "fetch")
        case "template":
            guard previous.count > 1 else { return model.fetchRequestTemplatesByName.keys.sorted() }
            let given = Set(previous.dropFirst(2).compactMap { $0.split(separator: "=").first.map(String.init) })
            let variables = model.templateVariables(forName: previous[1]) ?? []
            return variables.filter { !given.contains($0.name) }.map { "\($0.name)=" }
        case "show":
            return previous.count == 1 ? entities.map { "kura://\($0)/" } : []
        case "timer", ".timer", "headers", ".headers", ".eqp":
            return previous.count == 1 ? ["on", "off"] : []
        case "mode", ".mode":
            return previous.count == 1 ? OutputMode.allCases.map(\.rawValue) : []
        case "width", ".width":
            return previous.count == 1 ? ["auto", "off"] : []
        default:
            return []
        }
    }

    /// After `fetch`/`count`: the entity, then clauses, key paths and keywords.
    private func fetchOptions(after words: [String], word: String, choosesColumns: Bool) -> [String] {
        guard let entityName = words.first else { return model.entities.map(\.name) }
        guard let entity = model.entity(named: entityName) else { return [] }
        let clause = words.last { Self.clauseKeywords.contains($0.lowercased()) }?.lowercased()
        // `fetch News title, author.name …`: columns before the first clause.
        if clause == nil && choosesColumns { return keyPaths(from: entity, word: word, toManyToo: true) + ["objectID"] + Self.clauseKeywords }
        switch clause {
        case "where": return keyPaths(from: entity, word: word, toManyToo: true) + Self.predicateKeywords + Self.clauseKeywords.filter { $0 != "where" }
        case "sort": return keyPaths(from: entity, word: word, toManyToo: false) + ["asc", "desc", "limit", "offset"]
        case "limit", "offset": return Self.clauseKeywords
        default: return Self.clauseKeywords
        }
    }

    /// The keys that can follow the relationships `word` already names
    /// (`author.` offers `author.name`, `author.posts`, …): attributes and
    /// relationships, and `@count` after a to-many. Sorting follows to-ones only.
    private func keyPaths(from entity: EntityDescription, word: String, toManyToo: Bool) -> [String] {
        guard let dot = word.lastIndex(of: ".") else { return keys(of: entity, toManyToo: toManyToo) }
        let path = word[..<dot]
        guard let destination = destination(of: path, from: entity, toManyToo: toManyToo) else { return [] }
        return (keys(of: destination.entity, toManyToo: toManyToo) + (destination.isToMany ? ["@count"] : [])).map { "\(path).\($0)" }
    }

    private func keys(of entity: EntityDescription, toManyToo: Bool) -> [String] {
        entity.attributes.map(\.name) + entity.relationships.filter { toManyToo || !$0.isToMany }.map(\.name)
    }
}
