import Kura
@_spi(Fuzzing) import KuraCore

/// The predicate parser, formatter, compiler and evaluator.
///
/// Properties: a refused string gets a ``PredicateSyntaxError`` whose
/// position lies inside it; an accepted one formats to text that parses back
/// to the same predicate and formats the same again; compiling against an
/// entity either works or throws; a compiled predicate and its negation
/// never agree on a row.
public struct PredicateFuzzTarget: FuzzTarget {
    public init() {}

    public var name: String { "predicate" }

    public var seeds: [[UInt8]] {
        [
            "flag == YES", "count > 5 AND count <= 100", "name BEGINSWITH[cd] 'Ku' OR name ENDSWITH \"ra\"",
            "NOT (ratio < 1.5 || weight >= -2)", "count BETWEEN {1, 10}", "name IN {'a', 'b', \"c\"}",
            "name LIKE 'K?r*'", "name MATCHES '^[a-z]+$'", "name CONTAINS[c] $text", "count == $count AND id == $id",
            "date > CAST(1234.5, \"NSDate\")", "price == CAST(\"1.25\", \"NSDecimalNumber\")", "#count != nil",
            "TRUEPREDICATE", "FALSEPREDICATE", "link == CAST(\"https://example.com/1\", \"NSURL\")",
            "ratio == CAST(\"nan\", \"Double\") OR ratio > 1e308", "count == 0x7FFFFFFFFFFFFFFF OR count == -9223372036854775808",
            "name == 'it\\'s \\u00e9\\n\\t\\\\'", "(a == 1 OR (b == 2 AND (c == 3 OR NOT d == 4)))",
            "small >= medium", "blob == nil AND id != nil", "name ==[d] 'é' && !(flag == NO)",
        ].map { Array($0.utf8) }
    }

    public var dictionary: [[UInt8]] {
        (FuzzingEntryPoints.predicateKeywords.sorted() + FuzzModels.attributeNames + [
            "(", ")", "{", "}", ",", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "&&", "||", "!",
            "[c]", "[d]", "[cd]", "'", "\"", "\\", "\\u", "\\u00e9", "$", "$x", "%@", "%K", "%d", "#", "-", ".",
            "0", "1", "-1", "1.5", "1e308", "1e-400", "0x", "0xFF", "99999999999999999999", "CAST(", "\"NSDate\"",
            "\"NSDecimalNumber\"", "\"NSURL\"", "\"NSUUID\"", "\"NSData\"", "\"Float\"", "\"Double\"", " ", "\u{301}", "蔵",
            "'*'", "'?'", "'['", "'(a'", "'\\\\'",
        ]).map { Array($0.utf8) }
    }

    public func generate(using generator: inout SplitMix64) -> [UInt8]? {
        var grammar = PredicateGenerator(generator: generator)
        defer { generator = grammar.generator }
        return Array(grammar.predicate().utf8)
    }

    private static let rows = FuzzModels.rows(count: 4, seed: 7)

    public func run(_ input: [UInt8]) throws(FuzzFailure) -> Bool {
        let text = String(decoding: input, as: UTF8.self)
        let predicate: FetchPredicate
        do {
            predicate = try FetchPredicate(format: text)
        } catch let error as PredicateSyntaxError {
            guard (0...text.unicodeScalars.count).contains(error.position), !error.message.isEmpty else {
                throw FuzzFailure("syntax error at \(error.position) outside the \(text.unicodeScalars.count) scalars: \(error)")
            }
            return false
        } catch {
            throw FuzzFailure("parsing threw a non-syntax error: \(error)")
        }

        let format = predicate.predicateFormat
        let reparsed: FetchPredicate
        do {
            reparsed = try FetchPredicate(format: format)
        } catch {
            throw FuzzFailure("the formatted predicate \(format) does not parse: \(error)")
        }
        guard reparsed == predicate else { throw FuzzFailure("\(format) parses to a different predicate") }
        guard reparsed.predicateFormat == format else {
            throw FuzzFailure("formatting is not stable: \(format) then \(reparsed.predicateFormat)")
        }

        var substituted = predicate
        if !predicate.variableNames.isEmpty {
            do {
                substituted = try predicate.withSubstitutionVariables(
                    Dictionary(uniqueKeysWithValues: predicate.variableNames.map { ($0, 1 as Any) }))
            } catch {
                return true
            }
        }
        for row in Self.rows {
            guard let matches = try? FuzzingEntryPoints.evaluate(substituted, on: row, of: FuzzModels.thing) else { return true }
            let negated = try? FuzzingEntryPoints.evaluate(!substituted, on: row, of: FuzzModels.thing)
            guard negated == !matches else {
                throw FuzzFailure("\(format) and its negation give \(matches) and \(String(describing: negated))")
            }
        }
        return true
    }
}
