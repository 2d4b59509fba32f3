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
        #expect(completer.candidates(line: "fetch Book ", word: "") == ["limit", "offset", "sort", "where"])
        #expect(completer.candidates(line: "fetch Book where ti", word: "ti") == ["title"])
        #expect(completer.candidates(line: "fetch Book where year > 3 AND pr", word: "pr") == ["price"])
        #expect(completer.candidates(line: "fetch Book sort y", word: "y") == ["year"])
        #expect(completer.candidates(line: "template ", word: "") == ["byIsbn", "since"])
        #expect(completer.candidates(line: "template byIsbn ", word: "") == ["isbn="])
        #expect(completer.candidates(line: "template byIsbn isbn=x ", word: "") == [])
        #expect(completer.candidates(line: "plan ", word: "") == ["count", "fetch"])
        #expect(completer.candidates(line: "plan fetch Sh", word: "Sh") == ["Shelf"])
        #expect(completer.candidates(line: "show ", word: "") == ["kura://Book/", "kura://Shelf/"])
        #expect(completer.candidates(line: "mode ", word: "") == ["json", "table"])
    }
}
