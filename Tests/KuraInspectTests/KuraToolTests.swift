import Foundation
import Kura
import KuraLMDB
import KuraTestSupport
import Testing

@Suite struct KuraToolTests {
    @Test func aPipedSessionRunsEveryCommandWithoutAPrompt() throws {
        let store = try BookStore()
        let result = try KuraTool.run(["inspect", store.path], input: "count Book\nmode jsonl\nfetch Book where isbn == 'isbn-4'\nquit\ncount Book\n")
        #expect(result.status == 0)
        #expect(result.output == """
            4
            {"objectID":"kura://Book/4","title":"Snow Crash","year":1992,"price":7.25,"isbn":"isbn-4"}

            """)
        #expect(result.error.isEmpty)
    }

    @Test func theStoreAloneOpensTheShellAsSqlite3DoesAndVersionPrintsTheVersion() throws {
        let store = try BookStore()
        let result = try KuraTool.run([store.path], input: "count Book\n")
        #expect(result.status == 0 && result.output == "4\n", "\(result.error)")
        let version = try KuraTool.run(["--version"])
        #expect(version.status == 0 && version.output == KuraVersion.current + "\n")
        let readme = try String(contentsOfFile: #filePath.replacingOccurrences(of: "Tests/KuraInspectTests/KuraToolTests.swift", with: "README.md"), encoding: .utf8)
        #expect(readme.contains("Version \(KuraVersion.current)"), "the README states the version")
        let changelog = try String(contentsOfFile: #filePath.replacingOccurrences(of: "Tests/KuraInspectTests/KuraToolTests.swift", with: "CHANGELOG.md"), encoding: .utf8)
        // The newest released entry ("Unreleased", above it, gathers what the next version will hold).
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") && $0 != "## Unreleased" }
        #expect(newest?.hasPrefix("## \(KuraVersion.current) — ") == true, "the newest CHANGELOG entry is this version: \(newest ?? "none")")
    }

    @Test func theCommandLineSaysWhatIsWrongAndHowToAsk() throws {
        let store = try BookStore()
        let typo = try KuraTool.run(["fecth", store.path, "Book"])
        #expect(typo.status == 1 && typo.error == "error: no command or store 'fecth' (did you mean 'fetch'?)\n")
        let option = try KuraTool.run(["count", "--jsno", store.path, "Book"])
        #expect(option.status == 64 && option.error.hasPrefix("error: unknown option '--jsno' (did you mean '--json'?)\nusage: kura count"))
        let missing = try KuraTool.run(["show"])
        #expect(missing.status == 64 && missing.error.hasPrefix("error: missing STORE"))
        let width = try KuraTool.run(["fetch", "--width", "wide", store.path, "Book"])
        #expect(width.status == 64 && width.error.hasPrefix("error: --width takes a whole number, not 'wide'"))
        let extra = try KuraTool.run(["check", store.path, "more"])
        #expect(extra.status == 64 && extra.error.hasPrefix("error: unexpected argument 'more'"))

        let help = try KuraTool.run(["--help"])
        #expect(help.status == 0 && help.output.contains("  fetch     Fetch objects\n") && help.output.contains("  export    "))
        let fetchHelp = try KuraTool.run(["fetch", "--help"])
        #expect(fetchHelp.status == 0 && fetchHelp.output.contains("usage: kura fetch [options] STORE [ENTITY AND CLAUSES…]"))
        #expect(fetchHelp.output.contains("--mode MODE"))

        // Options before the words, `--name=value`, and words that look like options kept as words.
        let inline = try KuraTool.run(["fetch", "--mode=csv", "--no-headers", store.path, "Book", "where", "year < 1990", "sort", "year"])
        #expect(inline.status == 0 && inline.output.split(separator: "\n").count == 2, "\(inline.output)\(inline.error)")
    }

    @Test func aPipedSessionStopsAtTheFirstErrorUnlessToldToKeepGoing() throws {
        let store = try BookStore()
        let input = "count Book\nfetch Book where year >\ncount Shelf\n"
        let stopped = try KuraTool.run(["inspect", store.path], input: input)
        #expect(stopped.status == 1)
        #expect(stopped.output == "4\n")
        #expect(stopped.error == """
            error: predicate: expected a value after '>', found the end at position 6
            fetch Book where year >
                                   ^

            """)
        let kept = try KuraTool.run(["inspect", store.path, "--keep-going"], input: input)
        #expect(kept.status == 1)
        #expect(kept.output == "4\n0\n")
    }

    @Test func oneShotCommandsPrintAndExitWithTheirStatus() throws {
        let store = try BookStore()
        let fetch = try KuraTool.run(["fetch", "--json", store.path, "Book", "where", "year < 1970"])
        #expect(fetch.status == 0)
        #expect(fetch.output == #"{"objectID":"kura://Book/1","title":"Dune","year":1965,"price":9.99,"isbn":"isbn-1"}"# + "\n")
        let template = try KuraTool.run(["template", store.path, "since", "year=2000"])
        #expect(template.output.contains("kura://Book/3") && !template.output.contains("kura://Book/1"))
        #expect(try KuraTool.run(["count", store.path, "Book"]).output == "4\n")
        #expect(try KuraTool.run(["check", store.path]).status == 0)
        #expect(try KuraTool.run(["stats", store.path]).output.contains("Book records"))
        #expect(try KuraTool.run(["show", store.path, "kura://Book/1"]).output.contains("Dune"))
        #expect(try KuraTool.run(["plan", store.path, "fetch", "Book", "where", "isbn == \"isbn-2\""]).output.hasPrefix("SEARCH Book USING UNIQUE INDEX isbn"))
        #expect(try KuraTool.run(["dump", store.path, "Book"]).output.split(separator: "\n").count == 4)
        let bad = try KuraTool.run(["fetch", store.path, "Book", "where", "year ="])
        #expect(bad.status == 1)
        #expect(bad.error.hasPrefix("error: predicate: expected a value after '='"))
        #expect(try KuraTool.run(["template", store.path, "nope"]).error == "error: unknown template 'nope'; the store has byIsbn, since\n")
        #expect(try KuraTool.run(["template", store.path, "byIsbn", "nope=1"]).status == 1)
    }

    @Test func missingForeignAndNewerStoresAreOneLineErrors() throws {
        let store = try BookStore()
        let missing = try KuraTool.run(["stats", store.directory.file("missing.kura")])
        #expect(missing.status == 1)
        #expect(missing.error == "error: no such file: \(store.directory.file("missing.kura"))\n")

        // An LMDB file that isn't a Kura store.
        let foreign = store.directory.file("foreign.lmdb")
        do {
            let environment = try Environment(path: foreign)
            let database = try environment.createDatabase(named: "other")
            try environment.write { txn in try database.put([1], forKey: [1], in: txn) }
        }
        let notKura = try KuraTool.run(["inspect", foreign], input: "entities\n")
        #expect(notKura.status == 1)
        #expect(notKura.error == "error: '\(foreign)' is not a Kura store\n")

        // A store written by a future Kura.
        do {
            let environment = try Environment(path: store.path)
            let meta = try #require(try environment.database(named: "kura.meta"))
            try environment.write { txn in try meta.put([99, 0, 0, 0], forKey: Array("format".utf8), in: txn) }
        }
        let newer = try KuraTool.run(["check", store.path])
        #expect(newer.status == 1)
        #expect(newer.error == "error: '\(store.path)' has store format 99; this Kura reads formats up to 5\n")
    }

    @Test func emptyRandomAndTruncatedFilesAreOneLineErrorsInEveryMode() throws {
        let store = try BookStore()
        let empty = store.directory.file("empty.kura")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let random = store.directory.file("random.kura")
        var generator = SplitMix64(seed: 11)
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: random))
        let truncated = store.directory.file("truncated.kura")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int)
        try Data(try Data(contentsOf: URL(fileURLWithPath: store.path)).prefix(size / 2)).write(to: URL(fileURLWithPath: truncated))

        for (path, message) in [(empty, "is not a Kura store"), (random, "is not a Kura store"), (truncated, "the file is truncated")] {
            for result in [try KuraTool.run(["check", path]), try KuraTool.run(["inspect", path], input: "entities\n")] {
                #expect(result.status == 1)
                #expect(result.output.isEmpty)
                #expect(result.error.hasPrefix("error: '\(path)'") && result.error.contains(message), "\(result.error)")
                #expect(result.error.split(separator: "\n").count == 1)
            }
        }
    }

    @Test func inspectingNeverChangesTheFile() throws {
        let store = try BookStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        _ = try KuraTool.run(["inspect", store.path], input: "entities\nfetch Book\ncheck\nstats\ndump Book\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
    }

    @Test func theDemoBuildsAStoreTellsWhatHappenedAndCanBeRunAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("news.kura")
        let first = try KuraTool.run(["demo", path, "--count", "120"])
        #expect(first.status == 0, "\(first.error)")
        #expect(first.output.contains("Built \(path): 136 objects in one save"))
        #expect(first.output.contains("120 News, 8 Authors, 8 Tags"))
        #expect(first.output.contains("Template newsByAuthor with $author = Ann finds"))
        #expect(first.output.contains("SEARCH News THROUGH author USING UNIQUE INDEX Author.name"))
        #expect(first.output.contains("awakeFromInsert ran 120 times"))
        #expect(first.output.contains("willSave ran 120 times"))
        #expect(first.output.contains("dateUpdated moved forward: true"))
        #expect(first.output.contains("in one save: 5 new, 20 updated in place (20 kept their dateCreated); 125 news in all."))
        #expect(first.output.contains("kura inspect \(path)"))
        let again = try KuraTool.run(["demo", path, "--count", "50"])
        #expect(again.status == 0)
        #expect(try KuraTool.run(["count", path, "News"]).output == "55\n", "50, and 5 new from the feed")
        #expect(try KuraTool.run(["check", path]).status == 0)
        #expect(try KuraTool.run(["templates", path]).status != 0, "not a subcommand")

        let other = directory.file("other.kura")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: other))
        let refused = try KuraTool.run(["demo", other])
        #expect(refused.status == 1)
        #expect(refused.error.contains("exists and is not a demo store"))
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "keep me")
    }
}

@Suite struct KuraToolLimitTests {
    @Test func hugeLimitsAndOffsetsWorkAndLimitZeroReturnsNoRows() throws {
        let store = try BookStore()
        let all = try KuraTool.run(["fetch", store.path, "Book", "limit", "9223372036854775807", "offset", "1"])
        #expect(all.status == 0, "\(all.error)")
        #expect(all.output.hasSuffix("(3 objects)\n"))
        let none = try KuraTool.run(["fetch", store.path, "Book", "offset", "9223372036854775807", "limit", "1"])
        #expect(none.status == 0 && none.output.hasSuffix("(0 objects)\n"), "\(none.error)")
        let sorted = try KuraTool.run(["fetch", store.path, "Book", "sort", "year", "limit", "2000000000000000000"])
        #expect(sorted.status == 0 && sorted.output.hasSuffix("(4 objects)\n"), "\(sorted.error)")
        let filtered = try KuraTool.run(["fetch", store.path, "Book", "where", "year > 1900", "sort", "title", "limit", "2000000000000000000", "offset", "2"])
        #expect(filtered.status == 0 && filtered.output.hasSuffix("(2 objects)\n"), "\(filtered.error)")

        let zero = try KuraTool.run(["inspect", store.path], input: "count Book limit 0\nfetch Book limit 0\ncount Book\n")
        #expect(zero.status == 0, "\(zero.error)")
        #expect(zero.output.hasPrefix("0\n"))
        #expect(zero.output.contains("(0 objects)\n4\n"))
        // limit 0 still checks the request.
        let bad = try KuraTool.run(["count", store.path, "Book", "where", "nope == 1", "limit", "0"])
        #expect(bad.status == 1 && bad.error.contains("no attribute 'nope'"), "\(bad.error)")
    }

    @Test func controlCharactersInInputAreEscapedInErrors() throws {
        let store = try BookStore()
        let result = try KuraTool.run(["inspect", store.path], input: "\u{1}\u{2}count Book\n")
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("error: unknown command '\\x01\\x02count'"), "\(result.error)")
        #expect(!result.error.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        let escape = try KuraTool.run(["inspect", store.path], input: "fetch Book where title == '\u{1b}]0;pwned\u{7}'\u{1b}[2J\n")
        #expect(!escape.error.unicodeScalars.contains { $0.value == 0x1b || $0.value == 0x07 }, "\(escape.error)")
        #expect(escape.error.contains("\\x1b"))
    }
}

extension KuraToolTests {
    /// An export/import round trip with no app code: `create` makes an
    /// empty store with the model (templates included) of another.
    @Test func createMakesAnEmptyStoreWithAnotherStoresModel() throws {
        let store = try BookStore()
        let copy = store.directory.file("copy.kura"), export = store.directory.file("books.jsonl")
        let exported = try KuraTool.run(["export", store.path])
        #expect(exported.status == 0)
        try exported.output.write(toFile: export, atomically: true, encoding: .utf8)
        let created = try KuraTool.run(["create", copy, "--model-from", store.path])
        #expect(created.status == 0 && created.output.hasPrefix("created \(copy) with the model of \(store.path): 2 entities (Book, Shelf), 2 templates"),
                "\(created.output)\(created.error)")
        #expect(try KuraTool.run(["count", copy, "Book"]).output == "0\n")
        #expect(try KuraTool.run(["import", copy, export]).status == 0)
        // The same values (imported objects get new IDs: the first column is left out).
        func values(_ path: String) throws -> [Substring] {
            try KuraTool.run(["fetch", "--mode", "csv", path, "Book", "sort", "isbn"]).output.split(separator: "\n").map { $0.drop { $0 != "," } }
        }
        #expect(try values(copy) == values(store.path) && values(copy).count == 5)
        #expect(try KuraTool.run(["template", copy, "byIsbn", "isbn=isbn-1"]).output.contains("Dune"))

        let again = try KuraTool.run(["create", copy, "--model-from", store.path])
        #expect(again.status == 1 && again.error.contains("exists; create makes a new store and replaces nothing"))
        #expect(try KuraTool.run(["create", store.directory.file("other.kura")]).status == 64, "--model-from is needed")
    }

    /// A word the shell left bare where a value goes gets the quoting hint.
    @Test func aBareWordWhereAValueGoesHintsAtQuotes() throws {
        let store = try BookStore()
        let bare = try KuraTool.run(["count", store.path, "Book", "where", "title", "==", "Dune"])
        #expect(bare.status == 1)
        #expect(bare.error.contains("entity Book has no attribute 'Dune'; text is quoted: \"Dune\""), "\(bare.error)")
        #expect(bare.error.contains("hint: the shell removes quotes"), "\(bare.error)")
        let typo = try KuraTool.run(["count", store.path, "Book", "where", "yaer > 2000"])
        #expect(typo.error.contains("(did you mean 'year'?)"), "\(typo.error)")
        let nulls = try KuraTool.run(["fetch", "--nullvalue", "-", store.path, "Book", "where", "price == nil"])
        #expect(nulls.output.contains("Neuromancer") && nulls.output.contains("1984  -      isbn-2"), "\(nulls.output)")
    }
}
