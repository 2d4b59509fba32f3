import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// Arithmetic in predicates (`+ - * /`, `modulus:by:`): parsed, written
/// back, and evaluated by the store as Swift computes the same numbers.
@Suite struct PredicateArithmeticTests {
    @Test func arithmeticParsesWithPrecedenceAndWritesBackTheSame() throws {
        let cases: [(String, String)] = [
            ("rating + 1 > 5", "rating + 1 > 5"),
            ("rating + score * 2 > 5", "rating + score * 2 > 5"),
            ("(rating + score) * 2 > 5", "(rating + score) * 2 > 5"),
            ("rating - (score - 1) < 3", "rating - (score - 1) < 3"),
            ("rating - score - 1 < 3", "rating - score - 1 < 3"),
            ("rating / 2 * 3 == 6", "rating / 2 * 3 == 6"),
            ("rating - -1 == 2", "rating - -1 == 2"),
            ("-rating < -4", "0 - rating < -4"),
            ("modulus:by:(rating, 2) == 1", "modulus:by:(rating, 2) == 1"),
            ("modulus:by:(rating + 1, remarks.@count) == 0", "modulus:by:(rating + 1, remarks.@count) == 0"),
            ("((rating + 1)) > 2 AND (rating < 9)", "rating + 1 > 2 AND rating < 9"),
            ("(rating > 1 OR rating < 0) AND rating * 2 != 4", "(rating > 1 OR rating < 0) AND rating * 2 != 4"),
            ("rating + $bonus > 5", "rating + $bonus > 5"),
        ]
        for (text, canonical) in cases {
            let predicate = try FetchPredicate(format: text)
            #expect(predicate.predicateFormat == canonical, "\(text)")
            #expect(try FetchPredicate(format: canonical) == predicate, "\(canonical)")
        }
        let tree = try FetchPredicate(format: "a + b * c > 1")
        guard case .comparison(.arithmetic(.add, .key("a"), .arithmetic(.multiply, .key("b"), .key("c"))), .greater, _, _, _) = tree.root else {
            Issue.record("* binds tighter than +: \(tree.root)")
            return
        }
    }

    @Test func badArithmeticTextSaysWhere() throws {
        for (text, position) in [("rating + > 5", 9), ("(rating + 1 > 5", 15), ("modulus:by:(rating) == 1", 18), ("rating * ", 9)] {
            #expect {
                try FetchPredicate(format: text)
            } throws: { error in
                (error as? PredicateSyntaxError)?.position == position
            }
        }
    }

    /// Each predicate against Swift computing the same numbers on the objects.
    @Test func theStoreComputesWhatSwiftComputes() throws {
        let library = try ReadingLibrary()
        let articles = try library.unsavedArticles()
        let cases: [(String, (Article) -> Bool)] = [
            ("rating + 1 > 5", { $0.rating + 1 > 5 }),
            ("rating + remarks.@count > 6", { $0.rating + $0.remarks.count > 6 }),
            ("rating * 2 > remarks.@count * 3", { $0.rating * 2 > $0.remarks.count * 3 }),
            ("score * 2 > rating", { article in article.score.map { $0 * 2 > Double(article.rating) } ?? false }),
            ("modulus:by:(rating, 2) == 1", { $0.rating % 2 == 1 }),
            ("modulus:by:(rating, 0) == nil", { _ in true }),
            ("rating / 2 == 2.5", { Double($0.rating) / 2 == 2.5 }),
            ("rating / 0 > 1", { $0.rating > 0 }),
            ("score / 2 < 1", { $0.score.map { $0 / 2 < 1 } ?? false }),
            ("score - 1 == nil", { $0.score == nil }),
            ("writer.born + 30 < 2010", { $0.writer?.born.map { $0 + 30 < 2010 } ?? false }),
            ("0 - rating < -4", { -$0.rating < -4 }),
            ("remarks.@sum.stars - rating >= 2", { $0.remarks.map(\.stars).reduce(0, +) - $0.rating >= 2 }),
            ("SUBQUERY(remarks, $r, $r.stars + 1 > 5).@count > 0", { $0.remarks.contains { $0.stars + 1 > 5 } }),
        ]
        for (text, swift) in cases {
            let found = try library.urls(FetchRequest<Article>(predicate: try FetchPredicate(format: text)), text)
            let expected = Set(articles.filter(swift).map(\.url))
            #expect(found == expected, "\(text)")
            #expect(!found.isEmpty, "\(text) matches nothing: a weak check")
        }
    }

    @Test func integersOverflowIntoDoublesAndDivisionIsReal() {
        #expect(FetchPredicate.ArithmeticOperator.add.apply(.int(2), .int(3)) == .int(5))
        #expect(FetchPredicate.ArithmeticOperator.add.apply(.int(.max), .int(1)) == .double(Double(Int64.max) + 1))
        #expect(FetchPredicate.ArithmeticOperator.multiply.apply(.int(.min), .int(-1)) == .double(-Double(Int64.min)))
        #expect(FetchPredicate.ArithmeticOperator.divide.apply(.int(7), .int(2)) == .double(3.5))
        #expect(FetchPredicate.ArithmeticOperator.divide.apply(.int(1), .int(0)) == .double(.infinity))
        #expect(FetchPredicate.ArithmeticOperator.modulus.apply(.int(-7), .int(3)) == .int(-1))
        #expect(FetchPredicate.ArithmeticOperator.modulus.apply(.int(7), .int(0)) == nil)
        #expect(FetchPredicate.ArithmeticOperator.modulus.apply(.double(7.5), .int(2)) == .double(1.5))
        #expect(FetchPredicate.ArithmeticOperator.subtract.apply(.int(1), nil) == nil)
        #expect(FetchPredicate.ArithmeticOperator.add.apply(.string("1"), .int(1)) == nil)
    }

    @Test func aTemplateVariableInArithmeticIsANumber() throws {
        let library = try ReadingLibrary()
        let template = try FetchPredicate(format: "rating + $bonus > 5")
        let request = FetchRequest<Article>(predicate: try template.withSubstitutionVariables(["bonus": 2]))
        #expect(try library.urls(request, "bonus 2").count == 4)
        let model = try ManagedObjectModel.readingList()
        try model.setFetchRequestTemplate(FetchRequest<Article>(predicate: template), forName: "boosted")
        #expect(throws: KuraError.self) {
            _ = try model.fetchRequestFromTemplate(withName: "boosted", substitutionVariables: ["bonus": "two"], as: Article.self)
        }
    }

    @Test func arithmeticOnWhatIsNotANumberIsRefusedNamingIt() throws {
        let library = try ReadingLibrary()
        let refused: [(String, String)] = [
            ("title + 1 > 2", "Article.title is String"),
            ("rating + 'x' > 2", "not String"),
            ("writer + 1 > 2", "not objects of Writer"),
            ("rating + remarks.stars > 2", "a to-many key path gives several"),
            ("rating + 1 == 'x'", "not String"),
        ]
        for (text, expected) in refused {
            do {
                _ = try library.saved.fetch(FetchRequest<Article>(predicate: try FetchPredicate(format: text)))
                Issue.record("\(text) was fetched")
            } catch {
                #expect("\(error)".contains(expected), "\(text): \(error)")
            }
        }
    }

    @Test func arithmeticNestedPastTheLimitIsRefusedWithoutExhaustingTheStack() throws {
        let deep = Array(repeating: "rating", count: 5_000).joined(separator: " + ") + " > 1"
        #expect(throws: (any Error).self) {
            let predicate = try FetchPredicate(format: deep)
            _ = try predicate.compiled(for: EntityDescription(Article.self))
        }
        let negated = String(repeating: "-", count: 200_000) + "rating > 1"
        #expect(throws: PredicateSyntaxError.self) { try FetchPredicate(format: negated) }
        let parenthesized = String(repeating: "(", count: 500) + "rating" + String(repeating: ")", count: 500) + " > 1"
        #expect(throws: PredicateSyntaxError.self) { try FetchPredicate(format: parenthesized) }
        var tree = FetchPredicate.Expression.key("rating")
        for _ in 0..<1_000 { tree = .arithmetic(.add, tree, .value(.int(1))) }
        let built = FetchPredicate.comparison(tree, .greater, .value(.int(1)))
        let library = try ReadingLibrary()
        #expect(throws: KuraError.self) { _ = try library.saved.fetch(FetchRequest<Article>(predicate: built)) }
    }
}
