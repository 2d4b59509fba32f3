import Foundation
@testable import KuraCore
import Kura
import Testing

enum Mood: String, Codable, Sendable, AttributeValueConvertible {
    case happy, calm, sad
}

final class Recipe: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var tags: [String] = []
    @Attribute var ratings: [Int] = []
    @Attribute var moods: [Mood] = []
    @Attribute var notes: [String]?
}

/// Lists of scalars as attributes (`[String]`, `[Int]`, `[Mood]`): stored as
/// JSON arrays, their elements tested by predicates one by one.
@Suite struct ListAttributeTests {
    static let recipes: [(String, [String], [Int], [Mood], [String]?)] = [
        ("ramen", ["japanese", "soup", "noodles"], [5, 4], [.happy], ["slow"]),
        ("miso", ["japanese", "soup"], [3], [.calm], nil),
        ("pasta", ["italian", "noodles"], [4, 4, 5], [.happy, .calm], []),
        ("salad", [], [], [], nil),
        ("Soba", ["Japanese", "noodles"], [2, 5], [.sad], ["cold"]),
    ]

    static func filled(function: String = #function) throws -> (EngineStore, PersistentContainer) {
        let store = try EngineStore(.underTest, function: function)
        let container = try store.open(ManagedObjectModel(Recipe.self))
        let context = container.newContext()
        for (title, tags, ratings, moods, notes) in recipes {
            let recipe = Recipe(context: context)
            recipe.title = title
            recipe.tags = tags
            recipe.ratings = ratings
            recipe.moods = moods
            recipe.notes = notes
        }
        try context.save()
        return (store, container)
    }

    static func titles(_ context: ManagedObjectContext, _ format: String, _ arguments: Any?...) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Recipe", predicate: try FetchPredicate(format: format, argumentArray: arguments)))
            .map { try $0.value(forKey: "title", as: String.self) }.sorted()
    }

    @Test func aListIsAnAttributeOfItsElementsType() throws {
        let entity = try EntityDescription(Recipe.self)
        #expect(entity.attribute(named: "tags")?.elementType == .string)
        #expect(entity.attribute(named: "ratings")?.elementType == .int64)
        #expect(entity.attribute(named: "moods")?.elementType == .string)
        #expect(entity.attribute(named: "notes")?.isOptional == true)
        #expect(entity.attribute(named: "tags")?.description == "tags: [String] = " + "\(AttributeValue.data(Data("[]".utf8)))")
        #expect(throws: KuraError.self) {
            try EntityDescription(name: "Bad", attributes: [AttributeDescription(name: "x", type: .string, elementType: .string)])
        }
    }

    @Test func valuesSurviveAReopen() throws {
        let (store, container) = try Self.filled()
        let again = try store.reopen(container, ManagedObjectModel(Recipe.self))
        let ramen = try #require(try again.newContext().first(FetchRequest<Recipe>(predicate: \.title == "ramen")))
        #expect(ramen.tags == ["japanese", "soup", "noodles"] && ramen.ratings == [5, 4] && ramen.moods == [.happy])
        #expect(ramen.notes == ["slow"])
        // The model read back from the store knows the list.
        if store.engine != .memory { again.close() }
        let plain = try PersistentContainer(store: store.description())
        #expect(plain.model.entity(named: "Recipe")?.attribute(named: "tags")?.elementType == .string)
        #expect(try Self.titles(plain.newContext(), "ANY tags == 'soup'") == ["miso", "ramen"])
    }

    @Test func predicatesTestTheElements() throws {
        let (store, container) = try Self.filled()
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        #expect(try Self.titles(context, "ANY tags == 'soup'") == ["miso", "ramen"])
        #expect(try Self.titles(context, "tags == 'soup'") == ["miso", "ramen"])
        #expect(try Self.titles(context, "'noodles' IN tags") == ["Soba", "pasta", "ramen"])
        #expect(try Self.titles(context, "tags CONTAINS 'japanese'") == ["miso", "ramen"])
        #expect(try Self.titles(context, "ANY tags CONTAINS[c] 'JAP'") == ["Soba", "miso", "ramen"])
        #expect(try Self.titles(context, "ANY tags ==[c] 'japanese'") == ["Soba", "miso", "ramen"])
        #expect(try Self.titles(context, "ALL ratings >= 4") == ["pasta", "ramen", "salad"])
        #expect(try Self.titles(context, "NONE tags == 'soup'") == ["Soba", "pasta", "salad"])
        #expect(try Self.titles(context, "ANY ratings > 4 AND NOT (ANY tags == 'soup')") == ["Soba", "pasta"])
        #expect(try Self.titles(context, "ANY ratings IN {2, 3}") == ["Soba", "miso"])
        #expect(try Self.titles(context, "ANY moods == 'calm'") == ["miso", "pasta"])
        #expect(try Self.titles(context, "notes == nil") == ["miso", "salad"])
        #expect(try Self.titles(context, "ANY notes == 'cold'") == ["Soba"])
        #expect(try Self.titles(context, "ANY tags == %@", "soup") == ["miso", "ramen"])
        #expect(throws: KuraError.self) { try Self.titles(context, "ANY ratings == 'five'") }
        // A template's variable stands for an element.
        let model = try ManagedObjectModel(Recipe.self)
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "Recipe", predicate: "$tag IN tags", sortDescriptors: [FetchSortDescriptor(key: "title")]),
            forName: "tagged")
        let again = try store.reopen(container, model)
        let tagged = try model.fetchRequestFromTemplate(withName: "tagged", substitutionVariables: ["tag": "noodles"])
        #expect(try again.newContext().fetch(tagged).map { try $0.value(forKey: "title", as: String.self) } == ["Soba", "pasta", "ramen"])
    }

    @Test func foundationPredicateContainsSearchesAList() throws {
        let (store, container) = try Self.filled()
        defer { withExtendedLifetime(store) {} }
        let tag = "soup"
        let request = FetchRequest<Recipe>(predicate: #Predicate<Recipe> { $0.tags.contains(tag) })
        #expect(try container.newContext().fetch(request).map(\.title).sorted() == ["miso", "ramen"])
    }

    @Test func unsavedChangesAreTestedAsTheyAre() throws {
        let (store, container) = try Self.filled()
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let miso = try #require(try context.first(FetchRequest<Recipe>(predicate: \.title == "miso")))
        miso.tags = ["japanese"]
        let curry = Recipe(context: context)
        curry.title = "curry"
        curry.tags = ["soup", "spicy"]
        #expect(try Self.titles(context, "ANY tags == 'soup'") == ["curry", "ramen"])
        let all = try context.fetch(FetchRequest<Recipe>())
        #expect(all.filter { $0.tags.contains("soup") }.map(\.title).sorted() == ["curry", "ramen"])
    }
}
