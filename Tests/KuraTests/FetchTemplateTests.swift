import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// Templates whose variables have Swift types: registered with a request
/// or a `#Predicate` of several inputs, used with values in order.
@Suite struct FetchTemplateTests {
    @Test func aTypedTemplateFindsWhatTheDictionaryOneFinds() throws {
        var byURL: FetchTemplate<Article, String>!
        var byWriter: FetchTemplate<Article, Int, String>!
        let library = try ReadingLibrary { model in
            byURL = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "url == $url"), forName: "byURL", variables: ("url", String.self))
            // Declared in another order than the predicate names them.
            byWriter = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "writer.name == $name AND rating >= $least"), forName: "byWriter",
                variables: ("least", Int.self), ("name", String.self))
        }
        let context = library.container.newContext()
        let found: [Article] = try context.fetch(byURL, "https://example.com/3")
        #expect(found.map(\.title) == ["Databases 101"])
        let good = try context.fetch(byWriter, 4, "Ann")
        let untyped = try context.fetch(try library.container.model.fetchRequestFromTemplate(
            withName: "byWriter", substitutionVariables: ["name": "Ann", "least": 4], as: Article.self))
        #expect(Set(good.map(\.url)) == Set(untyped.map(\.url)) && good.count == 2)
        #expect(byWriter.variableNames == ["least", "name"])
        #expect(library.container.model.templateVariables(forName: "byWriter")?.map(\.name) == ["least", "name"])
    }

    @Test func aUniqueLookupFindsWhatTheRequestFindsWithUnsavedChangesChildrenAndAnotherModel() throws {
        var byURL: FetchTemplate<Article, String>!
        var byURLSorted: FetchTemplate<Article, String>!
        var byCode: FetchTemplate<Article, UUID?>!
        let library = try ReadingLibrary { model in
            byURL = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "url == $url"), forName: "byURL", variables: ("url", String.self))
            // A sort keeps the template off the direct lookup.
            byURLSorted = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "url == $url").sorted(by: "title"), forName: "byURLSorted",
                variables: ("url", String.self))
            byCode = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "code == $code"), forName: "byCode", variables: ("code", UUID?.self))
        }
        func urls(_ context: ManagedObjectContext, _ template: FetchTemplate<Article, String>, _ url: String) throws -> [String] {
            let direct = try context.fetch(template, url).map(\.url)
            #expect(direct == (try context.fetch(try template.request(url)).map(\.url)), "\(url)")
            return direct
        }
        let context = library.container.newContext()
        let url = "https://example.com/3"
        #expect(try urls(context, byURL, url) == [url])
        #expect(try urls(context, byURLSorted, url) == [url])
        #expect(try urls(context, byURL, "nowhere").isEmpty)
        // The object found is the context's: fetched again, the same instance.
        #expect(try context.fetch(byURL, url).first === context.fetch(byURL, url).first)
        // Unsaved changes of the entity: a changed URL, a deleted object, an insert.
        let article = try #require(try context.fetch(byURL, url).first)
        article.url = "https://example.com/moved"
        #expect(try urls(context, byURL, url).isEmpty)
        #expect(try urls(context, byURL, "https://example.com/moved") == ["https://example.com/moved"])
        context.delete(article)
        #expect(try urls(context, byURL, "https://example.com/moved").isEmpty)
        let inserted = Article(context: context)
        inserted.url = "https://example.com/new"
        #expect(try urls(context, byURL, "https://example.com/new") == ["https://example.com/new"])
        // A child context sees its parent's changes.
        let child = context.newChildContext()
        #expect(try urls(child, byURL, "https://example.com/new") == ["https://example.com/new"])
        // A nil value finds the objects without one (not through the index).
        #expect(try context.fetch(byCode, nil).count == (try context.fetch(FetchRequest<Article>(predicate: "code == nil")).count))
        // A template of another model's entity reads this store, as its request does.
        let other = try TestStore(function: "\(#function)-other")
        let otherContainer = try other.open(try ManagedObjectModel.readingList())
        #expect(try otherContainer.newContext().fetch(byURL, url).isEmpty)
    }

    @Test func listsObjectsAndOptionalsAreDeclaredByTheirSwiftTypes() throws {
        var byURLs: FetchTemplate<Article, [String]>!
        var byWriter: FetchTemplate<Article, Writer?>!
        var scoreAbove: FetchTemplate<Article, Double?>!
        let library = try ReadingLibrary { model in
            byURLs = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "url IN $urls"), forName: "byURLs", variables: ("urls", [String].self))
            byWriter = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "writer == $writer"), forName: "byWriterObject", variables: ("writer", Writer?.self))
            scoreAbove = try model.setFetchRequestTemplate(
                FetchRequest<Article>(predicate: "score > $least"), forName: "scoreAbove", variables: ("least", Double?.self))
        }
        let context = library.container.newContext()
        #expect(try context.fetch(byURLs, ["https://example.com/1", "https://example.com/2", "nowhere"]).count == 2)
        let ann = try #require(try context.fetch(FetchRequest<Writer>(predicate: \Writer.name == "Ann")).first)
        #expect(Set(try context.fetch(byWriter, ann).map(\.title)) == ["Kura ships", "kura internals", "Kura + Swift"])
        #expect(try context.fetch(byWriter, nil).map(\.title) == [""])
        #expect(try context.fetch(scoreAbove, 4).count == 2)
        #expect(try context.fetch(scoreAbove, nil).isEmpty)
    }

    @Test func aDeclarationThatDoesNotFitIsRefusedAndNothingIsRegistered() throws {
        let model = try ManagedObjectModel.readingList()
        let cases: [(String, () throws -> Void)] = [
            ("can't be a Int", {
                _ = try model.setFetchRequestTemplate(
                    FetchRequest<Article>(predicate: "url == $url"), forName: "t1", variables: ("url", Int.self))
            }),
            ("$least is in the predicate but not declared", {
                _ = try model.setFetchRequestTemplate(
                    FetchRequest<Article>(predicate: "url == $url AND rating > $least"), forName: "t2", variables: ("url", String.self))
            }),
            ("$extra is declared but not in the predicate", {
                _ = try model.setFetchRequestTemplate(
                    FetchRequest<Article>(predicate: "url == $url"), forName: "t3", variables: ("url", String.self), ("extra", Int.self))
            }),
            ("objects of Writer", {
                _ = try model.setFetchRequestTemplate(
                    FetchRequest<Article>(predicate: "writer == $writer"), forName: "t4", variables: ("writer", Label.self))
            }),
            ("a list", {
                _ = try model.setFetchRequestTemplate(
                    FetchRequest<Article>(predicate: "url IN $urls"), forName: "t5", variables: ("urls", String.self))
            }),
            ("a number", {
                _ = try model.setFetchRequestTemplate(
                    FetchRequest<Article>(predicate: "rating + $bonus > 5"), forName: "t6", variables: ("bonus", String.self))
            }),
        ]
        for (expected, register) in cases {
            #expect {
                try register()
            } throws: { error in
                "\(error)".contains(expected)
            }
        }
        #expect(model.fetchRequestTemplatesByName.isEmpty)
    }

    @Test func aPredicateOfSeveralInputsIsATemplate() throws {
        var byURL: FetchTemplate<Article, String>!
        var byWriter: FetchTemplate<Article, String?, Int>!
        var inRange: FetchTemplate<Article, Int, Int, Bool>!
        let library = try ReadingLibrary { model in
            byURL = try model.setFetchRequestTemplate(#Predicate<Article, String> { $0.url == $1 }, forName: "byURL")
            byWriter = try model.setFetchRequestTemplate(
                #Predicate<Article, String?, Int> { article, name, least in article.writer?.name == name && article.rating >= least },
                sortBy: [SortDescriptor(\.rating, order: .reverse)], forName: "byWriter", variables: "name", "least")
            inRange = try model.setFetchRequestTemplate(
                #Predicate<Article, Int, Int, Bool> { article, low, high, read in (low...high).contains(article.rating) && article.isRead == read },
                forName: "inRange", variables: "low", "high", "read")
        }
        let context = library.container.newContext()
        #expect(try context.fetch(byURL, "https://example.com/2").map(\.title) == ["Linux tips"])
        #expect(try context.fetch(byWriter, "Ann", 3).map(\.rating) == [5, 4, 3])
        let name = "Ann"
        let captured = try context.fetch(FetchRequest<Article>(predicate: #Predicate { $0.writer?.name == name && $0.rating >= 3 }))
        #expect(Set(try context.fetch(byWriter, "Ann", 3).map(\.url)) == Set(captured.map(\.url)))
        #expect(Set(try context.fetch(inRange, 2, 4, true).map(\.title)) == ["Linux tips", "Résumé writing"])
        let model = library.container.model
        #expect(model.fetchRequestTemplate(forName: "byURL")?.predicate?.predicateFormat == "url == $1")
        #expect(model.fetchRequestTemplate(forName: "inRange")?.predicate?.predicateFormat == "rating BETWEEN {$low, $high} AND isRead == $read")
        // The dictionary form works with the same names.
        #expect(try context.fetch(try model.fetchRequestFromTemplate(withName: "byURL", substitutionVariables: ["1": "https://example.com/2"])).count == 1)
    }

    @Test func anObjectIsAVariableOfAPredicate() throws {
        var byWriter: FetchTemplate<Article, Writer?>!
        let library = try ReadingLibrary { model in
            byWriter = try model.setFetchRequestTemplate(#Predicate<Article, Writer?> { $0.writer == $1 }, forName: "byWriter", variables: "writer")
        }
        let context = library.container.newContext()
        let bob = try #require(try context.fetch(FetchRequest<Writer>(predicate: \Writer.name == "Bob")).first)
        #expect(Set(try context.fetch(byWriter, bob).map(\.title)) == ["Linux tips", "Databases 101"])
        #expect(try context.fetch(byWriter, nil).map(\.title) == [""])
    }

    @Test func aVariableSearchedForInAStringIsRefusedSayingWhy() throws {
        let model = try ManagedObjectModel.readingList()
        #expect {
            _ = try model.setFetchRequestTemplate(#Predicate<Article, String> { $0.title.contains($1) }, forName: "search")
        } throws: { error in
            "\(error)".contains("can't be a template's variable")
        }
    }

    @Test func aTypedTemplateOfAnotherClassDoesNotRegister() throws {
        let model = try ManagedObjectModel.readingList()
        #expect(throws: KuraError.self) {
            _ = try model.setFetchRequestTemplate(
                FetchRequest(entityName: "Article", predicate: "url == $url").retyped() as FetchRequest<Writer>,
                forName: "wrong", variables: ("url", String.self))
        }
        #expect(model.fetchRequestTemplate(forName: "wrong") == nil)
    }
}

extension FetchRequest where Object == ManagedObject {
    /// This untyped request as a request of `Other`, unchecked (the way a
    /// mistaken cast would make one).
    func retyped<Other: ManagedObject>() -> FetchRequest<Other> { FetchRequest<Other>(retyping: self) }
}
