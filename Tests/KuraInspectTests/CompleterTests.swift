import Kura
@testable import KuraInspect
import Testing

@Suite struct CompleterTests {
    @Test func completionOffersCommandsEntitiesAttributesTemplatesAndVariables() throws {
        let store = try BookStore()
        let session = try InspectSession(path: store.path) { _ in }
        let completer = Completer(model: session.model)
        #expect(completer.candidates(line: "fe", word: "fe") == ["fetch"])
        #expect(completer.candidates(line: "t", word: "t").contains("template"))
        #expect(completer.candidates(line: "fetch B", word: "B") == ["Book"])
        #expect(completer.candidates(line: "fetch Book ", word: "") == ["isbn", "limit", "objectID", "offset", "price", "sort", "title", "where", "year"])
        #expect(completer.candidates(line: "count Book ", word: "") == ["limit", "offset", "sort", "where"])
        #expect(completer.candidates(line: "fetch Book where ti", word: "ti") == ["title"])
        #expect(completer.candidates(line: "fetch Book where year > 3 AND pr", word: "pr") == ["price"])
        #expect(completer.candidates(line: "fetch Book sort y", word: "y") == ["year"])
        #expect(completer.candidates(line: "template ", word: "") == ["byIsbn", "since"])
        #expect(completer.candidates(line: "template byIsbn ", word: "") == ["isbn="])
        #expect(completer.candidates(line: "template byIsbn isbn=x ", word: "") == [])
        #expect(completer.candidates(line: "plan ", word: "") == ["count", "fetch"])
        #expect(completer.candidates(line: "plan fetch Sh", word: "Sh") == ["Shelf"])
        #expect(completer.candidates(line: "show ", word: "") == ["kura://Book/", "kura://Shelf/"])
        #expect(completer.candidates(line: "mode ", word: "") == ["csv", "json", "jsonl", "line", "table"])
    }

    @Test func keyPathsCompleteThroughRelationships() throws {
        let store = try LibraryStore()
        let session = try InspectSession(path: store.path) { _ in }
        let completer = Completer(model: session.model)
        #expect(completer.candidates(line: "fetch Book where wr", word: "wr") == ["writer"])
        #expect(completer.candidates(line: "fetch Book where writer.", word: "writer.")
            == ["writer.books", "writer.name"])
        #expect(completer.candidates(line: "fetch Book where writer.books.", word: "writer.books.")
            == ["writer.books.@count", "writer.books.genres", "writer.books.title", "writer.books.writer"])
        #expect(completer.completion(line: "fetch Book where wr", word: "wr").appendsSpace == false, "a relationship may go on")
        #expect(completer.completion(line: "fetch Book where writer.n", word: "writer.n").appendsSpace)
        #expect(completer.completion(line: "fetch Bo", word: "Bo").appendsSpace)
        #expect(completer.candidates(line: "fetch Book where genres.n", word: "genres.n") == ["genres.name"])
        #expect(completer.candidates(line: "fetch Writer where books.@", word: "books.@") == ["books.@count"])
        #expect(completer.candidates(line: "fetch Book where nope.", word: "nope.") == [])
        #expect(completer.candidates(line: "fetch Book sort ", word: "").contains("writer.name") == false, "a sort word starts from the entity")
        #expect(completer.candidates(line: "fetch Book sort writer.", word: "writer.") == ["writer.name"])
        #expect(completer.candidates(line: "fetch Book sort genres.", word: "genres.") == [], "sorting follows to-ones only")
    }
}
