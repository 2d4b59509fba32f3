import Foundation
@testable import KuraInspect
import Testing

@Suite struct InspectSessionTests {
    func output(_ line: String, mode: OutputMode = .table, width: OutputWidth = .unlimited, store: BookStore) throws -> String {
        let (output, error) = try store.run([line], mode: mode, width: width)
        if let error { Issue.record("\(line): \(error)") }
        return output
    }

    @Test func entitiesSchemaAndTemplatesDescribeTheStoresOwnModel() throws {
        let store = try BookStore()
        #expect(try output("entities", store: store) == """
            entity  objects  attributes                indexes
            ------  -------  ------------------------  -------------------------------------------
            Book          4  title, year, price, isbn  unique index isbn (isbn), index year (year)
            Shelf         0  name                      
            """)
        #expect(try output("schema Book", store: store) == """
            entity Book
            attribute  type    optional  default
            ---------  ------  --------  -------
            title      String  no        nil
            year       Int16   no        nil
            price      Double  yes       nil
            isbn       String  no        nil
            index  attributes  unique
            -----  ----------  ------
            isbn   isbn        yes
            year   year        no
            """)
        #expect(try output("templates", store: store) == """
            template  entity  predicate      variables
            --------  ------  -------------  -------------
            byIsbn    Book    isbn == $isbn  $isbn: String
            since     Book    year >= $year  $year: Int16
            """)
        #expect(try output("templates", mode: .jsonl, store: store) == """
            {"entity":"Book","name":"byIsbn","predicate":"isbn == $isbn","variables":[{"attribute":"isbn","list":false,"name":"isbn","type":"String"}]}
            {"entity":"Book","name":"since","predicate":"year >= $year","variables":[{"attribute":"year","list":false,"name":"year","type":"Int16"}]}
            """)
    }

    @Test func fetchPrintsAlignedColumnsCutsLongValuesAndShowsNil() throws {
        let store = try BookStore()
        #expect(try output("fetch Book sort year", store: store) == """
            objectID       title                                            year  price  isbn
            -------------  -----------------------------------------------  ----  -----  ------
            kura://Book/1  Dune                                             1965   9.99  isbn-1
            kura://Book/2  Neuromancer                                      1984    nil  isbn-2
            kura://Book/4  Snow Crash                                       1992   7.25  isbn-4
            kura://Book/3  A title long enough to be cut in a table column  2001   12.5  isbn-3
            (4 objects)
            """)
        // 60 columns: the widest column (the title) gives way, and its cut values end with "…".
        #expect(try output("fetch Book sort year", width: .columns(60), store: store) == """
            objectID       title                     year  price  isbn
            -------------  ------------------------  ----  -----  ------
            kura://Book/1  Dune                      1965   9.99  isbn-1
            kura://Book/2  Neuromancer               1984    nil  isbn-2
            kura://Book/4  Snow Crash                1992   7.25  isbn-4
            kura://Book/3  A title long enough to…   2001   12.5  isbn-3
            (4 objects)
            """)
        #expect(try output("fetch Book where year > 1970 AND price != nil sort price desc limit 2", mode: .jsonl, store: store) == """
            {"objectID":"kura://Book/3","title":"A title long enough to be cut in a table column","year":2001,"price":12.5,"isbn":"isbn-3"}
            {"objectID":"kura://Book/4","title":"Snow Crash","year":1992,"price":7.25,"isbn":"isbn-4"}
            """)
        #expect(try output("count Book where title BEGINSWITH[c] 'd'", store: store) == "1")
        #expect(try output("fetch Book sort year offset 3", store: store).hasSuffix("(1 object)"))
    }

    @Test func templatesRunWithValuesReadByTheirAttributesType() throws {
        let store = try BookStore()
        #expect(try output("template byIsbn isbn=isbn-3", mode: .jsonl, store: store) == """
            {"objectID":"kura://Book/3","title":"A title long enough to be cut in a table column","year":2001,"price":12.5,"isbn":"isbn-3"}
            """)
        #expect(try output("template since year=1990", store: store) == """
            objectID       title                                            year  price  isbn
            -------------  -----------------------------------------------  ----  -----  ------
            kura://Book/4  Snow Crash                                       1992   7.25  isbn-4
            kura://Book/3  A title long enough to be cut in a table column  2001   12.5  isbn-3
            (2 objects)
            """)
    }

    @Test func showPlanDumpAndCheck() throws {
        let store = try BookStore()
        #expect(try output("show kura://Book/2", store: store) == """
            kura://Book/2
            title = Neuromancer
             year = 1984
            price = nil
             isbn = isbn-2
            """)
        #expect(try output("plan fetch Book where isbn == 'isbn-2'", store: store) == "SEARCH Book USING UNIQUE INDEX isbn (isbn == \"isbn-2\") (~1 objects)")
        #expect(try output("plan fetch Book sort year limit 2", mode: .json, store: store)
            == #"{"index":null,"plan":"SCAN Book (4 objects), TOP 2 BY year ASC, LIMIT 2"}"#)
        #expect(try output("plan count Book", store: store) == "COUNT Book FROM ENTRY COUNT")
        #expect(try output("dump Book", store: store) == """
            {"objectID":"kura://Book/1","title":"Dune","year":1965,"price":9.99,"isbn":"isbn-1"}
            {"objectID":"kura://Book/2","title":"Neuromancer","year":1984,"price":null,"isbn":"isbn-2"}
            {"objectID":"kura://Book/3","title":"A title long enough to be cut in a table column","year":2001,"price":12.5,"isbn":"isbn-3"}
            {"objectID":"kura://Book/4","title":"Snow Crash","year":1992,"price":7.25,"isbn":"isbn-4"}
            """)
        #expect(try output("check", store: store) == """
            Book: 4 records; index entries: isbn 4, year 4
            Shelf: 0 records
            ok: pages, records, indexes and relationships all agree
            """)
    }

    @Test func statsListsTheFileTheMapAndEveryDatabase() throws {
        let store = try BookStore()
        let stats = try output("stats", store: store)
        #expect(stats.hasPrefix("file         \(store.path), "))
        #expect(stats.contains("compaction   would give back "))
        // The pid column is as wide as this process's pid, so only the header's words are fixed.
        #expect(stats.contains("readers      1 of 126 slots in use\n"))
        #expect(stats.split(separator: "\n").contains { $0.split(separator: " ") == ["pid", "thread", "snapshot"] })
        #expect(stats.contains("\nBook          4  "))
        #expect(stats.contains("map          64.0 MiB, "))
        #expect(stats.contains("transaction  "))
        for database in ["meta", "Book records", "Book isbn", "Book year", "Shelf records"] {
            #expect(stats.contains("\n\(database) "), "\(database)")
        }
        let json = try output("stats", mode: .json, store: store)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((object["databases"] as? [Any])?.count == 5)
    }

    @Test func timerAndModeChangeTheSession() throws {
        let store = try BookStore()
        let (output, error) = try store.run(["timer on", "count Book", "timer off", "mode json", "count Book"])
        #expect(error == nil)
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("Run time: ") && lines[1] == "4" && lines[2].hasPrefix("Run time: "))
        #expect(lines[3] == #"{"count":4}"#)
    }

    @Test(arguments: [
        ("fetch Book where year >", "predicate: expected a value after '>', found the end at position 6\nfetch Book where year >\n                       ^"),
        ("fetch Nope", "unknown entity 'Nope'; the store has Book, Shelf"),
        ("fetch Book where nope == 1", "entity Book has no attribute 'nope'"),
        ("fetch Book where year == 'soon'", "Book.year is Int16, not String \"soon\""),
        ("template byIsbn", "template byIsbn needs a value for $isbn (String): template byIsbn isbn=…"),
        ("template nope", "unknown template 'nope'; the store has byIsbn, since"),
        ("template since year=soon", "$year must be Int16: 'soon' is not a whole number in range"),
        ("template byIsbn isbn=1 extra=2", "template byIsbn has no variable $extra; it takes $isbn"),
        ("show kura://Book/99", "no object kura://Book/99 in the store"),
        ("show kura://Book", "invalid object ID: 'kura://Book' is not of the form kura://Entity/key"),
        ("fetch Book sort nope", "Book has no attribute 'nope' to sort by"),
        ("frobnicate", "unknown command 'frobnicate'; type help for the commands\nfrobnicate\n^"),
    ])
    func badInputGivesAOneLineMessage(_ line: String, _ message: String) throws {
        let store = try BookStore()
        let (_, error) = try store.run([line])
        #expect(error?.description == message)
    }

    @Test func filesThatAreNotStoresAreRefusedClearly() throws {
        let store = try BookStore()
        #expect(throws: InspectError.self) { try InspectSession(path: store.directory.file("nope.kura")) { _ in } }
        do {
            _ = try InspectSession(path: store.directory.file("nope.kura")) { _ in }
        } catch {
            #expect(error.description == "no such file: \(store.directory.file("nope.kura"))")
        }
        let text = store.directory.file("text.kura")
        try Data(repeating: 65, count: 9000).write(to: URL(fileURLWithPath: text))
        do {
            _ = try InspectSession(path: text) { _ in }
            Issue.record("opened a text file")
        } catch {
            #expect(error.description == "'\(text)' is not a Kura store")
        }
    }
}
