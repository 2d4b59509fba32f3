import Foundation
import Kura
import KuraTestSupport
import Testing

/// `kura history` and `kura diff`: a store's model versions, and what a
/// migration would do, seen from the tool.
@Suite struct InspectMigrationTests {
    /// The book store, migrated once to version "2" (Book gains `pages`,
    /// Shelf is gone).
    static func newerModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(versionIdentifier: "2", entities: [
            EntityDescription(name: "Book", attributes: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "year", type: .int32),
                AttributeDescription(name: "price", type: .double, isOptional: true),
                AttributeDescription(name: "isbn", type: .string),
                AttributeDescription(name: "pages", type: .int32, isOptional: true),
            ], indexes: [.unique("isbn"), .index("year")]),
        ])
    }

    @Test func diffListsWhatAMigrationToAnotherStoresModelWouldDoAndChangesNothing() throws {
        let store = try BookStore()
        let newer = store.directory.file("newer.kura")
        try PersistentContainer(path: newer, model: Self.newerModel()).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let diff = try KuraTool.run(["diff", store.path, "--model", newer])
        #expect(diff.status == 0, "\(diff.error)")
        #expect(diff.output.contains("Book"))
        #expect(diff.output.contains("Book.year changes from Int16 to Int32"))
        #expect(diff.output.contains("Book.pages is added"))
        #expect(diff.output.contains("entity Shelf is removed"))
        #expect(diff.output.contains("model only") && diff.output.contains("reads objects"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
        let same = try KuraTool.run(["diff", store.path, "--model", store.path])
        #expect(same.output == "no migration needed\n")
    }

    @Test func historyShowsTheModelVersionsTheStoreHad() throws {
        let store = try BookStore()
        try PersistentContainer(path: store.path, model: Self.newerModel()).close()
        let history = try KuraTool.run(["history", store.path])
        #expect(history.status == 0, "\(history.error)")
        let lines = history.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("model version 2, fingerprint ") == true)
        #expect(lines.contains { $0.contains("created") })
        #expect(lines.contains { $0.contains(" 2 ") && $0.contains("migrated") })
        let json = try KuraTool.run(["history", "--json", store.path])
        #expect(json.output.split(separator: "\n").count == 2)
        #expect(json.output.contains("\"change\":\"migrated\"") && json.output.contains("\"version\":\"2\""))
    }

    @Test func historyListsTheRecordedSaves() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tracked.kura")
        var options = StoreOptions()
        options.tracksHistory = true
        let container = try PersistentContainer(path: path, model: Self.newerModel(), options: options)
        let context = container.newContext()
        context.transactionAuthor = "importer"
        for number in 0..<3 {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(.string("isbn-\(number)"), forKey: "isbn")
            try book.setValue(.string("Book \(number)"), forKey: "title")
            try book.setValue(.int(1990), forKey: "year")
        }
        try context.save()
        container.close()
        let history = try KuraTool.run(["history", path])
        #expect(history.output.contains("saves recorded: 1"), "\(history.output)")
        let row = try #require(history.output.split(separator: "\n").first { $0.hasPrefix("#1") })
        #expect(row.contains("importer") && row.hasSuffix("3        0        0"), "\(row)")
    }
}
