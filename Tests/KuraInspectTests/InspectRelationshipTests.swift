import Foundation
import Kura
import KuraInspect
import KuraLMDB
import KuraTestSupport
import Testing

/// What the tool shows of relationships: in the schema, in fetched rows and
/// objects, in JSON, in predicates and plans, and in `check`.
@Suite struct InspectRelationshipTests {
    func output(_ line: String, store: LibraryStore, mode: OutputMode = .table) throws -> String {
        let result = try store.run([line], mode: mode)
        if let error = result.error { throw error }
        return result.output
    }

    @Test func entitiesAndSchemaListRelationshipsWithTheirKindInverseAndDeleteRule() throws {
        let store = try LibraryStore()
        #expect(try output("entities", store: store) == """
            entity  objects  attributes  relationships   indexes
            ------  -------  ----------  --------------  ------------------------
            Writer        2  name        books           unique index name (name)
            Book          3  title       writer, genres  
            Genre         2  name        books           
            """)
        #expect(try output("schema Writer", store: store) == """
            entity Writer
            attribute  type    optional  default
            ---------  ------  --------  -------
            name       String  no        nil
            relationship  destination  kind     inverse  delete rule
            ------------  -----------  -------  -------  -----------
            books         Book         to-many  writer   cascade
            index  attributes  unique
            -----  ----------  ------
            name   name        yes
            """)
        let json = try output("schema Book", store: store, mode: .json)
        #expect(json.contains(#""relationships":[{"deleteRule":"nullify","destination":"Writer","inverse":"books","#))
        #expect(json.contains(#""name":"genres","optional":true,"ordered":false,"toMany":true}"#))
    }

    @Test func rowsShowAToOneAsItsDestinationAndAToManyAsItsCount() throws {
        let store = try LibraryStore()
        #expect(try output("fetch Book", store: store) == """
            objectID       title   writer           genres
            -------------  ------  ---------------  -------
            kura://Book/1  Dune    kura://Writer/1  2 Genre
            kura://Book/2  Emma    kura://Writer/1  1 Genre
            kura://Book/3  Orphan  nil              0 Genre
            (3 objects)
            """)
        #expect(try output("fetch Writer", store: store, mode: .jsonl) == """
            {"objectID":"kura://Writer/1","name":"Ann","books":["kura://Book/1","kura://Book/2"]}
            {"objectID":"kura://Writer/2","name":"Bob","books":[]}
            """)
        #expect(try output("dump Book", store: store).split(separator: "\n").last
            == #"{"objectID":"kura://Book/3","title":"Orphan","writer":null,"genres":[]}"#)
    }

    @Test func showListsEachRelatedObject() throws {
        let store = try LibraryStore()
        #expect(try output("show kura://Book/1", store: store) == """
            kura://Book/1
             title = Dune
            writer = kura://Writer/1
            genres = kura://Genre/1
                     kura://Genre/2
            """)
        #expect(try output("show kura://Writer/2", store: store).hasSuffix("""
            books = (none)
            """))
    }

    @Test func predicatesFollowKeyPathsAndPlansSearchThroughRelationships() throws {
        let store = try LibraryStore()
        #expect(try output("fetch Book where ANY genres.name == 'sf' AND writer.name == 'Ann'", store: store, mode: .jsonl)
            == #"{"objectID":"kura://Book/1","title":"Dune","writer":"kura://Writer/1","genres":["kura://Genre/1","kura://Genre/2"]}"#)
        #expect(try output("count Writer where books.@count == 0", store: store) == "1")
        #expect(try output("count Book where writer == nil", store: store) == "1")
        #expect(try output("count Genre where SUBQUERY(books, $b, $b.writer.name == 'Ann').@count == 2", store: store) == "1")
        let plan = try output(#"plan fetch Book where writer == CAST("kura://Writer/1", "ObjectID")"#, store: store)
        // Three books are cheaper to scan than to search; the demo's news search through their author.
        #expect(plan == #"SCAN Book (3 objects), FILTER writer == CAST("kura://Writer/1", "ObjectID")"#, "\(plan)")
        let bad = try store.run(["fetch Book where writer.nope == 1"])
        #expect(bad.error?.description == "entity Writer has no attribute 'nope'")
    }

    @Test func checkCountsRelationshipEntriesAndExitsOneWhenOneIsMissing() throws {
        let store = try LibraryStore()
        #expect(try output("check", store: store) == """
            Writer: 2 records; index entries: name 2
            Book: 3 records; relationship entries: genres 3, writer 2
            Genre: 2 records; relationship entries: books 3
            ok: pages, records, indexes and relationships all agree
            """)
        #expect(try output("check", store: store, mode: .json).contains(
            #"{"danglingReferences":0,"entity":"Book","indexEntries":{},"records":3,"relationshipEntries":{"genres":3,"writer":2}}"#))

        // Take Emma out of the classic genre on one side only.
        do {
            let environment = try Environment(path: store.path)
            let join = try #require(try environment.database(named: "kura.join.Genre.books"))
            let key = withUnsafeBytes(of: UInt64(2).bigEndian, Array.init) + withUnsafeBytes(of: UInt64(2).bigEndian, Array.init)
            let deleted = try environment.write { txn in try join.delete(key, in: txn) }
            #expect(deleted)
        }
        let result = try KuraTool.run(["check", store.path])
        #expect(result.status == 1)
        #expect(result.output.contains("problem: Book.genres: record 2 holds Genre 2, but the other side doesn't hold it"), "\(result.output)")
    }
}
