import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite struct ManagedObjectTests {
    static func noteModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [
                AttributeDescription(name: "text", type: .string),
                AttributeDescription(name: "rank", type: .int16, defaultValue: .int(1)),
                AttributeDescription(name: "score", type: .double, isOptional: true),
                AttributeDescription(name: "link", type: .url, isOptional: true),
            ], indexes: [.index("rank")]),
        ])
    }

    @Test func anEntityWithoutAClassWorksThroughTheDynamicAPI() throws {
        let store = try TestStore()
        let container = try store.open(Self.noteModel())
        let context = container.newContext()
        let note = try context.insertNewObject(forEntityName: "Note")
        #expect(type(of: note) == ManagedObject.self)
        #expect(try note.value(forKey: "rank") == .int(1))
        try note.setValue("hello", forKey: "text")
        try note.setValue(3, forKey: "score")                 // an integer fits a Double attribute
        try note.setValue(.string("https://kura.dev/a"), forKey: "link")   // a string fits a URL attribute
        #expect(try note.value(forKey: "score") == .double(3))
        #expect(try note.value(forKey: "link", as: URL?.self) == URL(string: "https://kura.dev/a"))
        try context.save()
        let again = try container.newContext().fetch(FetchRequest(entityName: "Note"))[0]
        #expect(try again.value(forKey: "text", as: String.self) == "hello")
        #expect(try again.value(forKey: "rank", as: Int16.self) == 1)
    }

    @Test func wrongKeysAndTypesAreClearErrors() throws {
        let store = try TestStore()
        let container = try store.open(Self.noteModel())
        let context = container.newContext()
        let note = try context.insertNewObject(forEntityName: "Note")
        #expect(throws: KuraError.unknownAttribute(entity: "Note", key: "txt")) { try note.value(forKey: "txt") }
        #expect(throws: KuraError.unknownAttribute(entity: "Note", key: "txt")) { try note.setValue("x", forKey: "txt") }
        #expect(throws: KuraError.typeMismatch(entity: "Note", key: "text", expected: .string, found: "Int")) {
            try note.setValue(5, forKey: "text")
        }
        #expect(throws: KuraError.typeMismatch(entity: "Note", key: "rank", expected: .int16, found: "Int")) {
            try note.setValue(70_000, forKey: "rank")
        }
        #expect(throws: KuraError.self) { try note.value(forKey: "rank", as: String.self) }
        #expect(throws: KuraError.unknownEntity("Nope")) { try context.insertNewObject(forEntityName: "Nope") }
        #expect(try note.value(forKey: "rank") == .int(1), "a refused value changes nothing")
    }

    @Test func typedPropertiesReadAndWriteTheObjectsValues() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.imageURL = "https://example.com/a.png"
        news.sortOrder = -5
        #expect(try news.value(forKey: "imageURL") == .string("https://example.com/a.png"))
        try news.setValue(9, forKey: "sortOrder")
        #expect(news.sortOrder == 9)
        news.imageURL = nil
        #expect(try news.value(forKey: "imageURL") == nil)
        #expect(news.description.contains("sortOrder: 9"))
    }

    @Test func aDetachedObjectCanBeReadButNotChanged() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        let context = container.newContext()
        let news = News(context: context)
        news.title = "kept"
        try context.save()
        context.reset()
        #expect(news.managedObjectContext == nil)
        #expect(news.title == "kept")
        #expect(throws: KuraError.objectDetached(news.objectID)) { try news.setValue("no", forKey: "title") }
    }

    @Test func objectsOfAContextThatIsGoneAreDetached() throws {
        let store = try TestStore()
        let container = try store.open(.news())
        var news: News?
        do {
            let context = container.newContext()
            news = News(context: context)
            try context.save()
        }
        let orphan = try #require(news)
        #expect(orphan.managedObjectContext == nil)
        #expect(throws: KuraError.objectDetached(orphan.objectID)) { try orphan.setValue("x", forKey: "title") }
    }
}
