@testable import KuraInspect
import Testing

@Suite struct InspectCommandTests {
    @Test func fetchClausesAreParsedWithThePredicateTakenAsTyped() throws {
        let command = try InspectCommand.parse("fetch News where title == \"a sort b\" AND (x > 1 OR y IN {1, 2}) sort sortOrder desc, title limit 5 offset 2")
        guard case .fetch(let spec) = command else { Issue.record("not a fetch"); return }
        #expect(spec.entity == "News")
        #expect(spec.predicate == "title == \"a sort b\" AND (x > 1 OR y IN {1, 2})")
        #expect(spec.predicateOffset == 17)
        #expect(spec.sorts.map(\.key) == ["sortOrder", "title"])
        #expect(spec.sorts.map(\.ascending) == [false, true])
        #expect(spec.limit == 5 && spec.offset == 2)
    }

    @Test func otherCommandsParse() throws {
        #expect(try InspectCommand.parse("entities") == .entities)
        #expect(try InspectCommand.parse(".tables") == .entities)
        #expect(try InspectCommand.parse("schema Book") == .schema("Book"))
        #expect(try InspectCommand.parse("template byIsbn isbn=\"isbn 1\" x=2")
            == .template(name: "byIsbn", arguments: [TemplateArgument(name: "isbn", value: "isbn 1"), TemplateArgument(name: "x", value: "2")]))
        #expect(try InspectCommand.parse("plan count Book where year > 3") == .plan(FetchSpec(entity: "Book", predicate: "year > 3"), isCount: true))
        #expect(try InspectCommand.parse("timer ON") == .timer(true))
        #expect(try InspectCommand.parse("mode json") == .mode(.json))
        #expect(try InspectCommand.parse("show kura://Book/1") == .show("kura://Book/1"))
        #expect(try InspectCommand.parse("QUIT") == .quit)
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
        #expect(throws: CommandError(message: message, position: position)) { try InspectCommand.parse(line) }
    }
}

@Suite struct SuggestionTests {
    @Test func typosOfCommandsAndEntitiesGetTheClosestNameAndFarOffWordsNone() throws {
        #expect(Suggestion.closest(to: "fecth", in: InspectCommand.names) == "fetch")
        #expect(Suggestion.closest(to: "cuont", in: InspectCommand.names) == "count")
        #expect(Suggestion.closest(to: "SHCEMA", in: InspectCommand.names) == "schema")
        #expect(Suggestion.closest(to: "xyzzy", in: InspectCommand.names) == nil)
        #expect(Suggestion.closest(to: "hlp", in: InspectCommand.names) == "help")
        #expect(Suggestion.closest(to: "nwes", in: ["News", "Author"]) == "News")
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)

        let store = try BookStore()
        let result = try KuraTool.run(["inspect", store.path, "--keep-going"], input: "fecth Book\ncount Bok\n")
        #expect(result.error.contains("unknown command 'fecth' (did you mean 'fetch'?)"), "\(result.error)")
        #expect(result.error.contains("unknown entity 'Bok' (did you mean 'Book'?)"), "\(result.error)")
    }
}
