// fetch, count and plan: a request from typed clauses.

extension SessionCommand {
    /// `fetch ENTITY [COLUMN, …] [where …] [sort …] [limit N] [offset N]`.
    /// `limit 0` means no rows here, as in SQL (the library's 0 is "no limit").
    static let fetch = SessionCommand(
        "fetch", section: .reading,
        help: "fetch ENTITY [COLUMN, …] [where PREDICATE] [sort KEY [desc], …]\n      [limit N] [offset N]"
    ) { input throws(CommandError) in
        let spec = try FetchSpec.parse(input.words, line: input.line, command: input.name, allowsColumns: true)
        return { session in
            try session.fetch(try session.request(for: spec, line: input.line), columns: spec.columns, returnsNothing: spec.limit == 0)
            return true
        }
    }

    /// `count ENTITY [where …]`.
    static let count = SessionCommand("count", section: .reading, help: "count ENTITY [where PREDICATE]") { input throws(CommandError) in
        let spec = try FetchSpec.parse(input.words, line: input.line, command: input.name)
        return { session in
            try session.count(try session.request(for: spec, line: input.line), returnsNothing: spec.limit == 0)
            return true
        }
    }

    /// `plan fetch|count …`: the query plan of either.
    static let plan = SessionCommand(
        "plan", section: .reading, help: "plan fetch|count …        the query plan: the index used, or a scan"
    ) { input throws(CommandError) in
        guard let kind = input.words.first, ["fetch", "count"].contains(kind.text.lowercased()) else {
            throw CommandError(message: "plan takes a fetch or count command: plan fetch ENTITY …", position: input.words.first?.start)
        }
        let isCount = kind.text.lowercased() == "count"
        let spec = try FetchSpec.parse(Array(input.words.dropFirst()), line: input.line, command: kind, allowsColumns: !isCount)
        return { session in
            var request = try session.request(for: spec, line: input.line)
            if isCount { request.resultType = .count }
            try session.showPlan(request)
            return true
        }
    }
}
