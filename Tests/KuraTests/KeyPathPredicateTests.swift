import Foundation
import Kura
import Testing

@Suite struct KeyPathPredicateTests {
    @Test func keyPathOperatorsBuildTheSameTreeAsTheFormatSyntax() throws {
        #expect((\News.sortOrder > 3) == (try FetchPredicate(format: "sortOrder > 3")))
        #expect((\News.sortOrder >= 1 && \News.title != "x") == (try FetchPredicate(format: "sortOrder >= 1 AND title != 'x'")))
        #expect((\News.imageURL == nil || !(\News.sortOrder < 0)) == (try FetchPredicate(format: "imageURL == nil OR NOT sortOrder < 0")))
        #expect(FetchPredicate.compare(\News.title, .beginsWith, "Ku", options: .caseInsensitive)
            == (try FetchPredicate(format: "title BEGINSWITH[c] 'Ku'")))
        #expect(FetchPredicate.in(\News.sortOrder, [1, 2]) == (try FetchPredicate(format: "sortOrder IN {1, 2}")))
        #expect(FetchPredicate.between(\News.sortOrder, 1, 9) == (try FetchPredicate(format: "sortOrder BETWEEN {1, 9}")))
        #expect((\News.dateCreated <= Date(timeIntervalSinceReferenceDate: 5))
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
}
