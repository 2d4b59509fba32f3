import Foundation
import Kura
import KuraTestSupport
import Testing

@Suite struct KeyPathPredicateTests {
    @Test func keyPathOperatorsBuildTheSameTreeAsTheFormatSyntax() throws {
        #expect((\News.sortOrder > 3).predicate == (try FetchPredicate(format: "sortOrder > 3")))
        #expect((\News.sortOrder >= 1 && \News.title != "x").predicate == (try FetchPredicate(format: "sortOrder >= 1 AND title != 'x'")))
        #expect((\News.imageURL == nil || !(\News.sortOrder < 0)).predicate == (try FetchPredicate(format: "imageURL == nil OR NOT sortOrder < 0")))
        #expect(KeyPathPredicate.compare(\News.title, .beginsWith, "Ku", options: .caseInsensitive).predicate
            == (try FetchPredicate(format: "title BEGINSWITH[c] 'Ku'")))
        #expect(KeyPathPredicate.in(\News.sortOrder, [1, 2]).predicate == (try FetchPredicate(format: "sortOrder IN {1, 2}")))
        #expect(KeyPathPredicate.between(\News.sortOrder, 1, 9).predicate == (try FetchPredicate(format: "sortOrder BETWEEN {1, 9}")))
        #expect((\News.dateCreated <= Date(timeIntervalSinceReferenceDate: 5)).predicate
            == (try FetchPredicate(format: "dateCreated <= %@", Date(timeIntervalSinceReferenceDate: 5))))
    }

    @Test func keyPathSortDescriptorsNameTheAttribute() {
        #expect(FetchSortDescriptor(\News.dateUpdated, ascending: false) == FetchSortDescriptor(key: "dateUpdated", ascending: false))
        #expect(News.fetchRequest().sorted(by: \News.sortOrder).sortDescriptors == [FetchSortDescriptor(key: "sortOrder")])
    }

    @Test func keyPathPredicatesFetch() throws {
        let store = try TestStore()
        let context = try store.open(.news()).newContext()
        for order in 0..<10 {
            let news = News(context: context)
            news.sortOrder = order
        }
        try context.save()
        let found = try News.findAll(in: context, matching: \News.sortOrder >= 7, sortedBy: [FetchSortDescriptor(\News.sortOrder, ascending: false)])
        #expect(found.map(\.sortOrder) == [9, 8, 7])
    }

    /// A key path of a computed property can't name a stored one: it is an
    /// error where the request is fetched (operators and descriptors can't
    /// throw), never a trap and never the property it reads.
    @Test func aComputedPropertyIsAnErrorWhereTheRequestIsFetched() throws {
        let library = try ReadingLibrary()
        let requests: [FetchRequest<Article>] = [
            FetchRequest(predicate: \Article.displayTitle == "KURA SHIPS"),
            FetchRequest<Article>().sorted(by: \Article.displayTitle),
            FetchRequest(predicate: #Predicate { $0.rating > 1 }, sortBy: [SortDescriptor(\.displayTitle)]),
            FetchRequest<Article>().prefetching(\Article.displayTitle),
        ]
        for request in requests {
            #expect {
                _ = try library.saved.fetch(request)
            } throws: { error in
                "\(error)".contains("not a stored property")
            }
        }
    }
}
