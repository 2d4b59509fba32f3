import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

@Suite struct PredicateFormattingTests {
    static func randomValue(_ g: inout SplitMix64) -> AttributeValue? {
        switch Int.random(in: 0..<13, using: &g) {
        case 0: return nil
        case 1: return .bool(.random(using: &g))
        case 2: return .int([Int64.min, -1, 0, 7, Int64.max, Int64.random(in: -1000...1000, using: &g)].randomElement(using: &g)!)
        case 3: return .double([0.5, -0.0, 1e300, -2.25, .infinity, -.infinity, .nan, 1e-7, Double.random(in: -10...10, using: &g)].randomElement(using: &g)!)
        case 4: return .float([1.5, -0.1, .infinity].randomElement(using: &g)!)
        case 5: return .decimal(Decimal(string: ["0", "1.25", "-3.000001", "12345678901234567890"].randomElement(using: &g)!)!)
        case 6: return .string(["", "plain", "it's", "q\"uote", "back\\slash", "new\nline", "tab\t", "\u{1}", "é", "e\u{301}", "\u{301}lead", "🚀", "$x", "%@", "AND"].randomElement(using: &g)!)
        case 7: return .date(Date(timeIntervalSinceReferenceDate: [0, -1e9, 123.456, 1e9].randomElement(using: &g)!))
        case 8: return .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        case 9: return .data(Data([0, 1, 255].prefix(Int.random(in: 0...3, using: &g))))
        case 10: return .url(URL(string: ["https://kura.dev/a?b=c", "file:///tmp/x"].randomElement(using: &g)!)!)
        case 11: return .int(Int64.random(in: Int64.min...Int64.max, using: &g))
        default: return .string(String(repeating: "x", count: Int.random(in: 0...5, using: &g)))
        }
    }

    static func randomExpression(_ g: inout SplitMix64, allowList: Bool, arithmetic: Int = 2) -> FetchPredicate.Expression {
        switch Int.random(in: 0..<(allowList ? 6 : 5), using: &g) {
        case 0: return .key(["title", "sortOrder", "in", "AND", "_x1", "déjà", "n2"].randomElement(using: &g)!)
        case 1: return .variable(["objectId", "v", "x_2"].randomElement(using: &g)!)
        case 2, 3: return .value(randomValue(&g))
        case 4 where arithmetic > 0:
            return .arithmetic(
                FetchPredicate.ArithmeticOperator.allCases.randomElement(using: &g)!,
                randomExpression(&g, allowList: false, arithmetic: arithmetic - 1),
                randomExpression(&g, allowList: false, arithmetic: arithmetic - 1))
        case 4: return .value(randomValue(&g))
        default: return .list((0..<Int.random(in: 0...3, using: &g)).map { _ in randomExpression(&g, allowList: false) })
        }
    }

    static func randomPredicate(_ g: inout SplitMix64, depth: Int) -> FetchPredicate {
        let choice = depth <= 0 ? Int.random(in: 0..<2, using: &g) : Int.random(in: 0..<6, using: &g)
        switch choice {
        case 0:
            var options: FetchPredicate.ComparisonOptions = []
            if Bool.random(using: &g) { options.insert(.caseInsensitive) }
            if Bool.random(using: &g) { options.insert(.diacriticInsensitive) }
            return .comparison(randomExpression(&g, allowList: true), FetchPredicate.Operator.allCases.randomElement(using: &g)!,
                               randomExpression(&g, allowList: true), options: options)
        case 1: return Bool.random(using: &g) ? .true : .false
        case 2: return .not(randomPredicate(&g, depth: depth - 1))
        case 3, 4: return .and((0..<Int.random(in: 2...3, using: &g)).map { _ in randomPredicate(&g, depth: depth - 1) })
        default: return .or((0..<Int.random(in: 2...3, using: &g)).map { _ in randomPredicate(&g, depth: depth - 1) })
        }
    }

    @Test func formattingThenParsingGivesTheSamePredicateForThousandsOfRandomPredicates() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<5000 {
            let predicate = Self.randomPredicate(&generator, depth: 3)
            let text = predicate.predicateFormat
            let parsed = try FetchPredicate(format: text)
            #expect(parsed == predicate, "\(text)")
            #expect(parsed.predicateFormat == text)
        }
    }

    @Test func theCanonicalFormIsReadable() throws {
        let predicate = try FetchPredicate(format: "a = 1 and (b <> 'x' or not c beginswith[c] \"y\") && d between {1,2}")
        #expect(predicate.predicateFormat == "a == 1 AND (b != \"x\" OR NOT c BEGINSWITH[c] \"y\") AND d BETWEEN {1, 2}")
        #expect(FetchPredicate.comparison(.key("in"), .equal, .value(.float(1.5))).predicateFormat == "#in == CAST(\"1.5\", \"Float\")")
    }

    /// Found by the fuzzer (predicate input 12604, seed 20261122): a date
    /// literal too large for a double became `CAST(inf, "NSDate")`, which
    /// did not parse back.
    @Test func keyPathComponentsThatAreNotWordsAreEscapedOneByOne() throws {
        // Found by kura-fuzz (predicate, seed 1, inputs 84331 and 300172): the whole path was escaped,
        // which reads back as `#parent`, a dot and a number.
        for format in ["parent.#99999999999999999999in > 3", "parent.#1e308in ENDSWITH 'x'", "#in.#2nd == 1", "a.#ANY.b == nil"] {
            let parsed = try FetchPredicate(format: format)
            #expect(try FetchPredicate(format: parsed.predicateFormat) == parsed, "\(parsed.predicateFormat)")
        }
        #expect(try FetchPredicate(format: "parent.#2nd == 1").predicateFormat == "parent.#2nd == 1")
    }

    @Test func datesThatAreNotFiniteFormatToTextThatParsesBack() throws {
        let parsed = try FetchPredicate(format: "date > CAST(1234.1e3085, \"NSDate\")")
        #expect(parsed.predicateFormat == "date > CAST(\"inf\", \"NSDate\")")
        #expect(try FetchPredicate(format: parsed.predicateFormat) == parsed)
        for seconds in [Double.infinity, -.infinity, .nan] {
            let predicate = FetchPredicate.comparison(.key("date"), .less, .value(.date(Date(timeIntervalSinceReferenceDate: seconds))))
            #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate, "\(predicate.predicateFormat)")
        }
    }
}
