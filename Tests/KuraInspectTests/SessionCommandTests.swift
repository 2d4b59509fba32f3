@testable import KuraInspect
import Testing

@Suite struct SessionCommandTests {
    /// The clauses of a fetch line, read as `fetch` reads them.
    private func spec(_ line: String, allowsColumns: Bool = true) throws -> FetchSpec {
        let words = try CommandTokenizer.words(of: line)
        return try FetchSpec.parse(Array(words.dropFirst()), line: line, command: words[0], allowsColumns: allowsColumns)
    }

    @Test func fetchClausesAreParsedWithThePredicateTakenAsTyped() throws {
        let spec = try spec("fetch News where title == \"a sort b\" AND (x > 1 OR y IN {1, 2}) sort sortOrder desc, title limit 5 offset 2")
        #expect(spec.entity == "News")
        #expect(spec.predicate == "title == \"a sort b\" AND (x > 1 OR y IN {1, 2})")
        #expect(spec.predicateOffset == 17)
        #expect(spec.sorts.map(\.key) == ["sortOrder", "title"])
        #expect(spec.sorts.map(\.ascending) == [false, true])
        #expect(spec.limit == 5 && spec.offset == 2)
        #expect(try self.spec("count Book where year > 3", allowsColumns: false) == FetchSpec(entity: "Book", predicate: "year > 3"))
    }

    @Test func everySpellingNamesItsCommand() throws {
        let spellings = ["entities": "entities", ".tables": "entities", "schema Book": "schema", ".SCHEMA": "schema",
                         "template byIsbn isbn=\"isbn 1\" x=2": "template", "plan count Book where year > 3": "plan",
                         "timer ON": "timer", ".header off": "headers", "mode json": "mode", "show kura://Book/1": "show",
                         "QUIT": "quit", ".exit": "quit", "?": "help", ".eqp on": ".eqp", ".import": "import"]
        for (line, name) in spellings {
            #expect(try SessionCommand.parse(line).command.name == name, "\(line)")
        }
    }

    @Test func everyCommandHasOneNameAndHelpListsIt() {
        let spellings = SessionCommand.all.flatMap { [$0.name] + $0.aliases }.map { $0.lowercased() }
        #expect(Set(spellings).count == spellings.count, "a spelling names two commands")
        let help = SessionCommand.helpText
        for command in SessionCommand.all where !["dump", "help", "import"].contains(command.name) {
            #expect(help.contains(command.name), "help leaves out \(command.name)")
        }
        // As narrow as the terminal the tool is tested in.
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 80 })
        #expect(SessionCommand.names.contains("fetch") && !SessionCommand.names.contains("import"))
        #expect(SessionCommand.dotNames.contains(".tables") && !SessionCommand.dotNames.contains(".header"))
    }

    @Test(arguments: [
        ("fetch", "fetch needs an entity: fetch ENTITY [where …] [sort …] [limit N] [offset N]", nil as Int?),
        ("fetch Book limit -1", "limit takes a whole number, 0 or more", 17),
        ("fetch Book where", "where needs a value", 16),
        ("fetch Book sort year sideways", "expected asc or desc after year, found 'sideways'", 16),
        ("count Book oops", "expected where, sort, limit or offset (only fetch chooses columns), found 'oops'", 11),
        ("fetch Book title, , year", "expected column names separated by commas", 18),
        ("frobnicate", "unknown command 'frobnicate'; type help for the commands", 0),
        ("timer maybe", "timer takes on or off", 6),
        ("template byIsbn isbn", "expected var=value, found 'isbn'", 16),
        ("fetch Book where title == \"open", "the quoted text that starts here is not closed", 26),
        ("entities now", "entities takes no arguments", 9),
    ])
    func badCommandsSayWhatIsWrongAndWhere(_ line: String, _ message: String, _ position: Int?) {
        #expect(throws: CommandError(message: message, position: position)) { try SessionCommand.parse(line) }
    }
}

@Suite struct SuggestionTests {
    @Test func typosOfCommandsAndEntitiesGetTheClosestNameAndFarOffWordsNone() throws {
        #expect(Suggestion.closest(to: "fecth", in: SessionCommand.names) == "fetch")
        #expect(Suggestion.closest(to: "cuont", in: SessionCommand.names) == "count")
        #expect(Suggestion.closest(to: "SHCEMA", in: SessionCommand.names) == "schema")
        #expect(Suggestion.closest(to: "xyzzy", in: SessionCommand.names) == nil)
        #expect(Suggestion.closest(to: "hlp", in: SessionCommand.names) == "help")
        #expect(Suggestion.closest(to: "nwes", in: ["News", "Author"]) == "News")
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)

        let store = try BookStore()
        let result = try KuraTool.run(["inspect", store.path, "--keep-going"], input: "fecth Book\ncount Bok\n")
        #expect(result.error.contains("unknown command 'fecth' (did you mean 'fetch'?)"), "\(result.error)")
        #expect(result.error.contains("unknown entity 'Bok' (did you mean 'Book'?)"), "\(result.error)")
    }
}
