import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// Values of several types for evaluating predicates.
final class Sample: ManagedObject {
    @Attribute var name: String?
    @Attribute var small: Int16 = 0
    @Attribute var large: Int64 = 0
    @Attribute var ratio: Double?
    @Attribute var weight: Float = 0
    @Attribute var price: Decimal?
    @Attribute var when: Date?
    @Attribute var flag: Bool = false
    @Attribute var id: UUID?
    @Attribute var link: URL?
}

@Suite struct PredicateEvaluationTests {
    let store: TestStore
    let context: ManagedObjectContext
    let sample: Sample

    init() throws {
        store = try TestStore()
        context = try store.open(ManagedObjectModel(Sample.self)).newContext()
        sample = Sample(context: context)
        sample.name = "Déjà Vu Straße"
        sample.small = 3
        sample.large = 3_000_000_000
        sample.ratio = 2.5
        sample.weight = 1.5
        sample.price = Decimal(string: "9.99")
        sample.when = Date(timeIntervalSinceReferenceDate: 1000)
        sample.id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        sample.link = URL(string: "https://kura.dev/docs")
    }

    func matches(_ format: String, _ arguments: Any?...) throws -> Bool {
        let predicate = try FetchPredicate(format: format, argumentArray: arguments)
        return try predicate.compiled(for: sample.entity).evaluate(on: sample)
    }

    @Test func nilEqualsOnlyNilAndIsNeverOrdered() throws {
        sample.ratio = nil
        #expect(try matches("ratio == nil"))
        #expect(try !matches("ratio != nil"))
        #expect(try !matches("ratio < 5") && !matches("ratio >= 5"))
        #expect(try !matches("ratio BETWEEN {0, 10}"))
        #expect(try matches("ratio IN {1, nil}"))
        #expect(try matches("name != nil"))
    }

    @Test func numbersOfDifferentWidthsAndTypesCompareByValue() throws {
        #expect(try matches("small == 3.0") && matches("small == 3") && matches("small < 3.5"))
        #expect(try matches("large > 2147483647") && matches("large == 3e9"))
        #expect(try matches("ratio == 2.5 AND ratio < small AND ratio < %@", Float(2.75)))
        #expect(try matches("weight == 1.5 AND price > 9.98 AND price < 10"))
        #expect(try matches("price == %@", Decimal(string: "9.990")!))
        #expect(try matches("flag == NO AND flag == 0 AND flag != 1"))
    }

    @Test func datesUUIDsAndURLsCompare() throws {
        #expect(try matches("when == %@", Date(timeIntervalSinceReferenceDate: 1000)))
        #expect(try matches("when > CAST(999, \"NSDate\") AND when < %@", Date(timeIntervalSinceReferenceDate: 1001)))
        #expect(try matches("id == 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'"))
        #expect(try matches("link BEGINSWITH 'https://' AND link == %@", URL(string: "https://kura.dev/docs")!))
    }

    @Test func caseAndDiacriticOptionsFoldUnicode() throws {
        #expect(try !matches("name BEGINSWITH 'deja'"))
        #expect(try !matches("name BEGINSWITH[c] 'deja'"))
        #expect(try matches("name BEGINSWITH[cd] 'deja'"))
        #expect(try matches("name BEGINSWITH[d] 'Deja'"))
        #expect(try matches("name ENDSWITH[c] 'STRASSE'"), "case folding maps ß to ss")
        #expect(try matches("name CONTAINS[cd] 'VU'"))
        #expect(try matches("name ==[cd] 'deja vu strasse'"))
        #expect(try matches("name ==[c] 'DÉJÀ VU STRASSE'"))
        #expect(try matches("name == 'De\u{301}ja\u{300} Vu Straße'"), "canonically equivalent strings are equal")
    }

    @Test func likeMatchesWildcardsOverTheWholeString() throws {
        #expect(try matches("name LIKE 'D*Stra?e'"))
        #expect(try matches("name LIKE[cd] 'deja*'"))
        #expect(try !matches("name LIKE 'Déjà'"))
        #expect(try matches("name LIKE '*'"))
        #expect(try !matches("name LIKE 'D?'"))
    }

    @Test func matchesIsARegularExpressionOverTheWholeString() throws {
        #expect(try matches("name MATCHES 'D.j. Vu .*'"))
        #expect(try !matches("name MATCHES 'Vu'"), "MATCHES must match the whole string")
        #expect(try matches("name MATCHES[c] 'déjà.*'"))
        #expect {
            _ = try FetchPredicate(format: "name MATCHES 'D(.j'").compiled(for: sample.entity)
        } throws: { error in
            if let error = error as? KuraError, error.code == .invalidRegularExpression { return error.name == "D(.j" }
            return false
        }
    }

    @Test func aMatchesPatternIsCompiledOncePerProcessAndOptions() throws {
        // Long on purpose: corelibs Foundation leaks on every compile of a
        // pattern over 256 UTF-16 units, so compiling once is what bounds it.
        let pattern = "(?:" + String(repeating: "ab|", count: 100) + "z)+"
        let first = try RegularExpression.compiled(pattern, caseInsensitive: false)
        let again = try RegularExpression.compiled(pattern, caseInsensitive: false)
        let folded = try RegularExpression.compiled(pattern, caseInsensitive: true)
        #expect(first.expression === again.expression)
        #expect(first.expression !== folded.expression)
        #expect(first.matches("abz") && !first.matches("ABZ") && folded.matches("ABZ"))
        #expect(throws: KuraError.self) { try RegularExpression.compiled("a)(b", caseInsensitive: false) }
    }

    @Test func inAndBetweenUseTheirLists() throws {
        #expect(try matches("small IN {1, 2, 3}") && !matches("small IN {}"))
        #expect(try matches("small IN %@", [Int16(3)]))
        #expect(try matches("name IN[c] {'x', 'déjà vu straße'}"))
        #expect(try matches("small BETWEEN {3, 3}") && !matches("small BETWEEN {4, 9}"))
        #expect(try matches("name BETWEEN {'A', 'E'}"))
    }

    @Test func logicalOperatorsCombine() throws {
        #expect(try matches("small == 3 AND (flag == YES OR large > 0) AND NOT name == nil"))
        #expect(try matches("TRUEPREDICATE") && !matches("FALSEPREDICATE"))
        #expect(try matches("3 == small AND 5 > small"), "constants on the left are turned around")
        #expect(try matches("1 < 2") && !matches("'a' == 'b'"))
    }

    @Test func badPredicatesAreErrorsNamingTheKeyBeforeAnyDataIsRead() throws {
        let entity = sample.entity
        func compile(_ format: String) throws { _ = try FetchPredicate(format: format).compiled(for: entity) }
        #expect(throws: KuraError.unknownAttribute(entity: "Sample", key: "nmae")) { try compile("nmae == 'x'") }
        #expect(throws: KuraError.typeMismatch(entity: "Sample", key: "small", expected: .int16, found: "String \"three\"")) {
            try compile("small == 'three'")
        }
        #expect(throws: KuraError.typeMismatch(entity: "Sample", key: "name", expected: .string, found: "Int 3")) {
            try compile("name == 3")
        }
        #expect(throws: KuraError.invalidPredicate("BEGINSWITH needs a String attribute; Sample.small is Int16")) {
            try compile("small BEGINSWITH '3'")
        }
        #expect(throws: KuraError.invalidPredicate("BETWEEN needs a list of two values, {lower, upper}; it has 3")) {
            try compile("small BETWEEN {1, 2, 3}")
        }
        #expect(throws: KuraError.invalidPredicate("IN needs a list of values, such as {1, 2}")) { try compile("small IN 3") }
        #expect(throws: KuraError.missingSubstitutionVariable("x")) { try compile("small == $x") }
        #expect(throws: KuraError.invalidPredicate("Sample.name (String) can't be compared with Sample.small (Int16)")) {
            try compile("name == small")
        }
    }
}
