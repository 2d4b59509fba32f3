import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// Foundation's `#Predicate`, converted: every supported construct is
/// checked against the same predicate in the format syntax, and against
/// Swift's own evaluation of the `#Predicate` on the objects, fetched from
/// the store with indexes and without, and from unsaved objects.
@Suite struct FoundationPredicateTests {
    /// Checks `predicate` against `format` and against Swift's evaluation.
    func check(_ library: ReadingLibrary, _ predicate: Predicate<Article>, _ format: String, _ arguments: Any?...,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let converted = try FetchPredicate(predicate)
        let fromMacro = try library.urls(FetchRequest<Article>(predicate: predicate), format)
        let fromText = try library.urls(FetchRequest<Article>(predicate: try FetchPredicate(format: format, argumentArray: arguments)), format)
        let articles = try library.unsavedArticles()
        // (Swift's evaluation throws where a forced unwrap meets nil; the
        // store's answer there is no match.)
        let bySwift = Set(articles.filter { (try? predicate.evaluate($0)) ?? false }.map(\.url))
        #expect(fromMacro == fromText, "\(format) ← \(converted.predicateFormat)", sourceLocation: sourceLocation)
        #expect(fromMacro == bySwift, "\(format): Swift says \(bySwift), Kura \(fromMacro)", sourceLocation: sourceLocation)
        #expect(!fromMacro.isEmpty || format.contains("NOTHING"), "\(format) (\(converted.predicateFormat)) matched nothing: a weak check",
                sourceLocation: sourceLocation)
    }

    @Test func comparisonsLogicAndCapturedValues() throws {
        let library = try ReadingLibrary()
        let least = 4
        let day = Date(timeIntervalSinceReferenceDate: 3 * 86_400)
        let code = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!
        try check(library, #Predicate { $0.rating > 3 }, "rating > 3")
        try check(library, #Predicate { $0.rating >= least && $0.isRead }, "rating >= 4 AND isRead == YES")
        try check(library, #Predicate { $0.rating < 3 || !$0.isRead }, "rating < 3 OR NOT isRead == YES")
        try check(library, #Predicate { $0.rating == 5 }, "rating == 5")
        try check(library, #Predicate { $0.rating != 5 }, "rating != 5")
        try check(library, #Predicate { $0.rating <= 2 }, "rating <= 2")
        try check(library, #Predicate { $0.addedAt >= day }, "addedAt >= %@", day)
        try check(library, #Predicate { $0.code == code }, "code == %@", code)
        try check(library, #Predicate { $0.title == "Kura ships" }, "title == 'Kura ships'")
        try check(library, #Predicate { $0.rating > $0.remarks.count }, "rating > remarks.@count")
        try check(library, #Predicate { ($0.rating > 4) == false }, "NOT rating > 4")
    }

    @Test func optionals() throws {
        let library = try ReadingLibrary()
        try check(library, #Predicate { $0.score == nil }, "score == nil")
        try check(library, #Predicate { $0.score != nil }, "score != nil")
        try check(library, #Predicate { ($0.score ?? 0) > 1 }, "score > 1")
        try check(library, #Predicate { ($0.score ?? 10) > 4 }, "score > 4 OR score == nil")
        try check(library, #Predicate { $0.summary.flatMap { $0.count > 5 } == true }, "summary LIKE '??????*'")
        try check(library, #Predicate { $0.writer == nil }, "writer == nil")
        try check(library, #Predicate { $0.writer != nil }, "writer != nil")
        try check(library, #Predicate { $0.writer?.name == "Ann" }, "writer.name == 'Ann'")
        try check(library, #Predicate { $0.writer?.born == nil }, "writer.born == nil")
        try check(library, #Predicate { ($0.writer?.born ?? 0) > 1980 }, "writer.born > 1980")
        try check(library, #Predicate { $0.writer!.name == "Bob" }, "writer.name == 'Bob'")
    }

    @Test func strings() throws {
        let library = try ReadingLibrary()
        let empty = ""
        try check(library, #Predicate { $0.title.contains("Kura") }, "title CONTAINS 'Kura'")
        try check(library, #Predicate { $0.title.starts(with: "kura") }, "title BEGINSWITH 'kura'")
        try check(library, #Predicate { $0.title.count > 12 }, "title LIKE '?????????????*'")
        try check(library, #Predicate { $0.title.count == 10 }, "title LIKE '??????????'")
        try check(library, #Predicate { $0.title.count < 11 }, "NOT title LIKE '???????????*'")
        try check(library, #Predicate { $0.title.isEmpty }, "title == ''")
        try check(library, #Predicate { !$0.title.isEmpty }, "title != ''")
        // Swift's meaning of the empty string: part and prefix of every string.
        try check(library, #Predicate { $0.title.contains(empty) }, "TRUEPREDICATE")
        try check(library, #Predicate { $0.title.starts(with: "") }, "TRUEPREDICATE")
        try check(library, #Predicate { $0.summary?.contains("e") == true }, "summary CONTAINS 'e'")
        try check(library, #Predicate { $0.title.contains($0.writer.flatMap { $0.name } ?? "") }, "writer == nil OR title CONTAINS writer.name")
        try check(library, #Predicate { ($0.summary ?? "").count > 4 }, "summary LIKE '?????*'")
        try check(library, #Predicate { ($0.summary ?? "none").isEmpty == false }, "summary != ''")
    }

    @Test func arithmeticAndConditionals() throws {
        let library = try ReadingLibrary()
        let offset = 1
        try check(library, #Predicate { $0.rating + offset > 5 }, "rating > 4")
        try check(library, #Predicate { $0.rating * 2 >= 8 }, "rating >= 4")
        try check(library, #Predicate { $0.rating - 1 < 2 }, "rating < 3")
        try check(library, #Predicate { 10 - $0.rating > 6 }, "rating < 4")
        try check(library, #Predicate { -$0.rating < -4 }, "rating > 4")
        try check(library, #Predicate { ($0.score ?? 0) / 2 > 1 }, "score > 2")
        try check(library, #Predicate { ($0.isRead ? $0.rating : 0) > 3 }, "isRead == YES AND rating > 3")
        try check(library, #Predicate { $0.isRead ? $0.rating > 4 : $0.rating < 2 }, "(isRead == YES AND rating > 4) OR (isRead == NO AND rating < 2)")
        try check(library, #Predicate { ($0.writer.flatMap { $0.born } ?? 2000) - 1900 < 80 }, "writer.born < 1980")
        try check(library, #Predicate { $0.writer.flatMap { $0.born ?? 0 } == 0 }, "writer != nil AND writer.born == nil")
        try check(library, #Predicate { ($0.score.flatMap { $0 * 2 } ?? -10) > 5 }, "score * 2 > 5")
        try check(library, #Predicate { $0.rating + $0.remarks.count > 6 }, "rating + remarks.@count > 6")
        try check(library, #Predicate { $0.rating % 2 == 1 }, "modulus:by:(rating, 2) == 1")
        try check(library, #Predicate { $0.rating / 2 == 2 }, "rating >= 4 AND rating < 6")
        try check(library, #Predicate { ($0.score ?? 0) * 0.1 > 0.3 }, "score * 0.1 > 0.3")
        try check(library, #Predicate { $0.rating * $0.rating >= 16 }, "rating >= 4")
        try check(library, #Predicate { $0.rating * 2 > $0.remarks.count * 3 }, "rating * 2 > remarks.@count * 3")
    }

    @Test func collectionsListsAndRanges() throws {
        let library = try ReadingLibrary()
        let ratings = [1, 3, 5]
        let range = 2...4
        try check(library, #Predicate { ratings.contains($0.rating) }, "rating IN {1, 3, 5}")
        try check(library, #Predicate { [1, 2].contains($0.rating) }, "rating IN {1, 2}")
        try check(library, #Predicate { (2...4).contains($0.rating) }, "rating BETWEEN {2, 4}")
        try check(library, #Predicate { range.contains($0.rating) }, "rating BETWEEN {2, 4}")
        try check(library, #Predicate { (2..<4).contains($0.rating) }, "rating >= 2 AND rating < 4")
        try check(library, #Predicate { $0.labels.isEmpty }, "labels.@count == 0")
        try check(library, #Predicate { $0.labels.count >= 2 }, "labels.@count >= 2")
        try check(library, #Predicate { $0.remarks.contains { $0.stars >= 5 } }, "ANY remarks.stars >= 5")
        try check(library, #Predicate { $0.remarks.allSatisfy { $0.stars > 1 } }, "ALL remarks.stars > 1")
        try check(library, #Predicate { $0.labels.contains { $0.name == "kura" } }, "ANY labels.name == 'kura'")
        try check(library, #Predicate { $0.remarks.filter { $0.stars == 2 }.count == 3 }, "SUBQUERY(remarks, $r, $r.stars == 2).@count == 3")
        try check(library, #Predicate { $0.writer.flatMap { $0.articles.contains { $0.rating == 1 } } == true }, "ANY writer.articles.rating == 1")
        try check(library, #Predicate { $0.labels.contains { $0.articles.count > 2 } }, "SUBQUERY(labels, $l, $l.articles.@count > 2).@count > 0")
    }

    /// What each construct becomes, as the "Typed requests and #Predicate"
    /// article's table shows it.
    @Test func eachConstructBecomesTheTextTheArticleShows() throws {
        let name = "Ann"
        let least = 3
        let cases: [(Predicate<Article>, String)] = [
            (#Predicate { $0.rating > least && $0.isRead }, "rating > 3 AND isRead == TRUE"),
            (#Predicate { $0.writer?.name == name }, #"writer.name == "Ann""#),
            (#Predicate { $0.score == nil || $0.writer != nil }, "score == nil OR writer != nil"),
            (#Predicate { ($0.score ?? 0) > 2 }, #"score != nil AND score > 2.0 AND score != CAST("nan", "Double")"#),
            (#Predicate { $0.title.contains("Kura") }, #"title CONTAINS "Kura""#),
            (#Predicate { $0.title.starts(with: "K") }, #"title BEGINSWITH "K""#),
            (#Predicate { $0.title.count > 3 }, #"title LIKE "????*""#),
            (#Predicate { $0.title.isEmpty }, #"title == """#),
            (#Predicate { $0.rating + 1 > 5 }, "rating > 4"),
            (#Predicate { $0.rating % 2 == 1 }, "modulus:by:(rating, 2) == 1"),
            (#Predicate { ($0.score ?? 0) * 2 > 5 }, #"score != nil AND score * 2.0 > 5.0 AND score * 2.0 != CAST("nan", "Double")"#),
            (#Predicate { [1, 2].contains($0.rating) }, "rating IN {1, 2}"),
            (#Predicate { (1...3).contains($0.rating) }, "rating BETWEEN {1, 3}"),
            (#Predicate { $0.labels.contains { $0.name == "kura" } }, #"ANY labels.name == "kura""#),
            (#Predicate { $0.remarks.allSatisfy { $0.stars > 1 } }, "ALL remarks.stars > 1"),
            (#Predicate { $0.remarks.contains { $0.stars > 1 && $0.stars < 4 } }, "SUBQUERY(remarks, $x1, $x1.stars > 1 AND $x1.stars < 4).@count > 0"),
            (#Predicate { $0.remarks.filter { $0.stars == 2 }.count >= 2 }, "SUBQUERY(remarks, $x1, $x1.stars == 2).@count >= 2"),
            (#Predicate { $0.labels.isEmpty }, "labels.@count == 0"),
            (#Predicate { $0.isRead ? $0.rating > 4 : $0.rating < 2 }, "isRead == TRUE AND rating > 4 OR NOT isRead == TRUE AND rating < 2"),
        ]
        for (predicate, text) in cases {
            let converted = try FetchPredicate(predicate).predicateFormat
            #expect(converted == text, "\(converted)")
        }
    }

    @Test func aComputedPropertyIsRefusedNotReadAsTheOneItReads() throws {
        // displayTitle reads title: a probe that noted names only would take it for title.
        #expect(throws: KuraError.invalidPredicate(
            "#Predicate: \\Article.<a computed property> is not a stored property (only @Attribute and @Relationship properties are in the store)"
        )) { try FetchPredicate(#Predicate<Article> { $0.displayTitle == "x" }) }
    }

    @Test func errorsNameKeyPathsByTheirProperties() throws {
        do {
            _ = try FetchPredicate(#Predicate<Article> { $0.rating + $0.title.count > 3 })
            Issue.record("converted arithmetic with a string's count")
        } catch let error as KuraError where error.code == .invalidPredicate {
            let reason = error.reason!
            #expect(reason.contains("\\Article.rating") && reason.contains("\\Article.title"), "\(reason)")
            #expect(!reason.contains("computed 0x"), "\(reason)")
        }
    }

    /// What the store can't evaluate is refused where the request is
    /// fetched, naming the expression, never a wrong answer.
    @Test func whatTheStoreCantEvaluateIsAClearError() throws {
        let library = try ReadingLibrary()
        let refused: [(Predicate<Article>, String)] = [
            (#Predicate { $0.title.count + 1 > 3 }, "a string's count is only compared with a number"),
            (#Predicate { $0.addedAt.timeIntervalSinceReferenceDate > 0 }, "\\Date.<a property of a value> is not a stored property"),
            (#Predicate { $0.remarks[0].stars > 1 }, "can't be evaluated by the store"),
            (#Predicate { $0.remarks.first?.stars == 5 }, "first and last"),
            (#Predicate { $0.title.count > $0.rating }, "count is only compared with a number"),
        ]
        for (predicate, expected) in refused {
            #expect(throws: KuraError.self) { try FetchPredicate(predicate) }
            do {
                _ = try library.saved.fetch(FetchRequest<Article>(predicate: predicate))
                Issue.record("fetched with a predicate the store can't evaluate: \(expected)")
            } catch let error as KuraError where error.code == .invalidPredicate {
            let reason = error.reason!
                #expect(reason.contains(expected), "\(reason)")
            }
        }
    }

    /// A converted predicate plans as the text does: an index where there is one.
    @Test func aConvertedPredicateUsesTheIndexesTheTextWould() throws {
        let library = try ReadingLibrary()
        let name = "Kura ships"
        let fromMacro = try library.saved.explain(FetchRequest<Article>(predicate: #Predicate { $0.title == name }))
        let fromText = try library.saved.explain(FetchRequest<Article>(predicate: "title == 'Kura ships'"))
        #expect(fromMacro.description == fromText.description && fromMacro.indexName == "title")
        let range = try library.saved.explain(FetchRequest<Article>(predicate: #Predicate { (2...4).contains($0.rating) }))
        let rangeText = try library.saved.explain(FetchRequest<Article>(predicate: "rating BETWEEN {2, 4}"))
        #expect(range.description == rangeText.description, "\(range) / \(rangeText)")
        let offset = 1
        let solved = try library.saved.explain(FetchRequest<Article>(predicate: #Predicate { $0.rating + offset > 5 }))
        let solvedText = try library.saved.explain(FetchRequest<Article>(predicate: "rating > 4"))
        #expect(solved.description == solvedText.description, "\(solved)")
    }
}
