import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// Relationship changes between model versions, on a small library:
/// writers and books.
@Suite struct RelationshipMigrationTests {
    static let name = AttributeDescription(name: "name", type: .string, defaultValue: .string(""))

    static func library(
        writer: [RelationshipDescription], book: [RelationshipDescription], version: String? = nil
    ) throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: version, entities: [
            EntityDescription(name: "Writer", attributes: [name], relationships: writer, indexes: [.unique("name")]),
            EntityDescription(name: "Book", attributes: [name], relationships: book, indexes: [.unique("name")]),
        ])
    }

    /// Three writers; books 0…5, book i by writer i % 3 except book 5 (none).
    static func fill(_ container: PersistentContainer, link: (ManagedObject, ManagedObject) throws -> Void) throws {
        let context = container.newContext()
        let writers = try (0..<3).map { number in
            let writer = try context.insertNewObject(forEntityName: "Writer")
            try writer.setValue(.string("writer \(number)"), forKey: "name")
            return writer
        }
        for number in 0..<6 {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(.string("book \(number)"), forKey: "name")
            if number < 5 { try link(book, writers[number % 3]) }
        }
        try context.save()
    }

    /// Each writer's books, by name, read through `key` on Writer.
    static func booksByWriter(_ container: PersistentContainer, _ key: String = "books") throws -> [String: [String]] {
        let context = container.newContext()
        var result: [String: [String]] = [:]
        for writer in try context.fetch(FetchRequest(entityName: "Writer")) {
            let name = try writer.value(forKey: "name", as: String.self)
            result[name] = try writer.objects(forKey: key).map { try $0.value(forKey: "name", as: String.self) }.sorted()
        }
        return result
    }

    static let expected = ["writer 0": ["book 0", "book 3"], "writer 1": ["book 1", "book 4"], "writer 2": ["book 2"]]

    @Test func addingARelationshipGivesEveryObjectAnEmptyOneWithoutReadingThem() throws {
        let store = try TestStore()
        try Self.fill(try store.open(Self.library(writer: [], book: []))) { _, _ in }
        let v2 = try Self.library(writer: [.toMany("books", destination: "Book", inverse: "writer")],
                                  book: [.toOne("writer", destination: "Writer", inverse: "books")])
        let container = try ModelVersions.openChecked(store, v2)
        #expect(container.store.lastMigration?.steps.isEmpty == true)
        #expect(try Self.booksByWriter(container).values.allSatisfy(\.isEmpty))
        let context = container.newContext()
        let book = try #require(try context.fetch(FetchRequest(entityName: "Book")).first)
        let writer = try #require(try context.fetch(FetchRequest(entityName: "Writer")).first)
        try book.setObject(writer, forKey: "writer")
        try context.save()
        #expect(try Self.booksByWriter(container)["writer 0"] == ["book 0"])
    }

    @Test func renamingARelationshipAndChangingItsDeleteRuleKeepTheEntries() throws {
        let store = try TestStore()
        try Self.fill(try store.open(Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer")],
            book: [.toOne("writer", destination: "Writer", inverse: "books")]))) { try $0.setObject($1, forKey: "writer") }
        let v2 = try Self.library(
            writer: [.toMany("works", destination: "Book", inverse: "author", deleteRule: .cascade, originalName: "books")],
            book: [.toOne("author", destination: "Writer", inverse: "works", originalName: "writer")])
        let container = try ModelVersions.openChecked(store, v2)
        let report = try #require(container.store.lastMigration)
        #expect(report.steps.isEmpty, "\(report)")
        #expect(report.differences.contains(ModelDifference(
            entity: "Writer", property: "works", change: .relationshipRenamed(from: "books"), cost: .modelOnly)))
        #expect(try Self.booksByWriter(container, "works") == Self.expected)
        // The new delete rule holds: deleting a writer deletes their books.
        let context = container.newContext()
        let writer = try #require(try context.fetch(FetchRequest(entityName: "Writer", predicate: try FetchPredicate(format: "name == 'writer 0'"))).first)
        context.delete(writer)
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Book")) == 4)
        #expect(try container.store.check().problems.isEmpty)
    }

    @Test func removingOneSideKeepsTheOtherSidesMembers() throws {
        let store = try TestStore(engine: .lmdb)
        try Self.fill(try store.open(Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer")],
            book: [.toOne("writer", destination: "Writer", inverse: "books")]))) { try $0.setObject($1, forKey: "writer") }
        // Book.writer goes; Writer.books (read from it until now) stays.
        let v2 = try Self.library(writer: [.toMany("books", destination: "Book")], book: [])
        let container = try ModelVersions.openChecked(store, v2)
        #expect(try Self.booksByWriter(container) == Self.expected)
        #expect(container.store.lastMigration?.steps.map(\.step) == ["relationship Writer.books"])
        container.close()
        #expect(try ModelVersions.databaseNames(store.path).filter { $0.hasPrefix("kura.ref") || $0.hasPrefix("kura.join") || $0.hasPrefix("kura.rjoin") }
                == ["kura.join.Writer.books_2", "kura.rjoin.Writer.books_2"])
        // And back: a new Book.writer as its inverse takes its entries. (The
        // schema is the first one's again: a version identifier says it is
        // newer, not the first build opening the store again.)
        let v3 = try Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer")],
            book: [.toOne("writer", destination: "Writer", inverse: "books")], version: "3")
        let again = try ModelVersions.openChecked(store, v3)
        #expect(try Self.booksByWriter(again) == Self.expected)
        let context = again.newContext()
        let book = try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "name == 'book 4'"))).first)
        #expect(try book.object(forKey: "writer")?.value(forKey: "name") == .string("writer 1"))
        #expect(try context.count(for: FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "writer.name == 'writer 0'"))) == 2)
    }

    @Test func aToManyThatBecomesAToOneInverseFailsWhenAnObjectHasSeveral() throws {
        let store = try TestStore()
        try Self.fill(try store.open(Self.library(writer: [.toMany("books", destination: "Book")], book: []))) { book, writer in
            try writer.mutableSetValue(forKey: "books").insert(book)
        }
        // Book.writer, a new to-one inverse: each book has one writer, fine.
        let v2 = try Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer")],
            book: [.toOne("writer", destination: "Writer", inverse: "books")])
        #expect(try Self.booksByWriter(ModelVersions.openChecked(store, v2)) == Self.expected)

        // A book listed by two writers can't get a to-one writer.
        let other = try TestStore()
        try Self.fill(try other.open(Self.library(writer: [.toMany("books", destination: "Book")], book: []))) { book, writer in
            try writer.mutableSetValue(forKey: "books").insert(book)
        }
        do {
            let container = try other.open(Self.library(writer: [.toMany("books", destination: "Book")], book: []))
            let context = container.newContext()
            let writers = try context.fetch(FetchRequest(entityName: "Writer"))
            let book = try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: try FetchPredicate(format: "name == 'book 0'"))).first)
            try writers[1].mutableSetValue(forKey: "books").insert(book)
            try context.save()
        }
        #expect {
            try other.open(v2)
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed, let failures = Optional(error.migrationFailures),
                  let reason = failures.first?.reason, reason.kind == .severalDestinationsForToOne else { return false }
            return reason.entity == "Book" && reason.property == "writer" && reason.objectIDs.map(\.description) == ["kura://Book/1"]
        }
    }

    @Test func anUnorderedToManyBecomesOrderedKeepingItsMembers() throws {
        let store = try TestStore()
        try Self.fill(try store.open(Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer")],
            book: [.toOne("writer", destination: "Writer", inverse: "books")]))) { try $0.setObject($1, forKey: "writer") }
        let ordered = try Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer", isOrdered: true)],
            book: [.toOne("writer", destination: "Writer", inverse: "books")])
        let container = try ModelVersions.openChecked(store, ordered)
        #expect(try Self.booksByWriter(container) == Self.expected)
    }

    @Test func aRequiredToOneOnExistingObjectsFailsNamingThoseWithout() throws {
        let store = try TestStore()
        try Self.fill(try store.open(Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer")],
            book: [.toOne("writer", destination: "Writer", inverse: "books")]))) { try $0.setObject($1, forKey: "writer") }
        let required = try Self.library(
            writer: [.toMany("books", destination: "Book", inverse: "writer")],
            book: [.toOne("writer", destination: "Writer", inverse: "books", isOptional: false)])
        #expect {
            try store.open(required)
        } throws: { error in
            guard let error = error as? KuraError, error.code == .migrationFailed, let failures = Optional(error.migrationFailures),
                  let reason = failures.first?.reason, reason.kind == .missingDestinations else { return false }
            return reason.property == "writer" && reason.count == 1 && reason.objectIDs.map(\.description) == ["kura://Book/6"]
        }
    }
}
