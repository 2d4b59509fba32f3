/// Random predicates from the grammar: every operator, option, literal
/// kind, list, variable and nesting, over known and unknown keys.
struct PredicateGenerator {
    var generator: SplitMix64

    private static let keys = FuzzModels.attributeNames + [
        "missing", "#count", "#in", "é", "parent.name", "parent.parent.count", "children.name", "owner", "SELF",
        "children.@count", "children.@sum.count", "children.@max.date", "parent.#in", "$v.name",
        "SUBQUERY(children, $c, $c.count > 1).@count", "SUBQUERY(children, $c, name == 'x' AND $c.flag == YES)",
    ]
    private static let operators = ["==", "=", "!=", "<>", "<", "<=", ">", ">=", "=>", "=<", "BETWEEN", "IN",
                                    "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "like", "In"]
    private static let strings = ["''", "'Kura'", "\"蔵\"", "'e\\u0301'", "'K*'", "'?u*a'", "'[a-z]+'", "'('", "'\\\\'",
                                  "'%'", "\"it\\'s\"", "'\\n\\t'", "'.*'", "'a|b'", "'*\\\\*'"]
    private static let casts = ["CAST(0, \"NSDate\")", "CAST(-1e9, \"NSDate\")", "CAST(\"1.5\", \"NSDecimalNumber\")",
                                "CAST(\"x\", \"NSDecimalNumber\")", "CAST(\"nan\", \"Double\")", "CAST(\"-inf\", \"Double\")",
                                "CAST(\"2.5\", \"Float\")", "CAST(\"00000000-0000-4000-8000-000000000000\", \"UUID\")",
                                "CAST(\"AQID\", \"NSData\")", "CAST(\"https://example.com/1?q=2\", \"NSURL\")",
                                "CAST(\"\", \"NSURL\")", "CAST(1, \"Nope\")"]

    private mutating func pick(_ choices: [String]) -> String { choices.randomElement(using: &generator)! }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }

    mutating func value(depth: Int = 0) -> String {
        switch Int.random(in: 0..<11, using: &generator) {
        case 0: return String(Int64.random(in: -100...100, using: &generator))
        case 1: return pick(["0", "-0", "9223372036854775807", "-9223372036854775808", "0x7f", "1e308", "-1e-308", "1.5", "2.5e3"])
        case 2, 3: return pick(Self.strings)
        case 4: return pick(["TRUE", "FALSE", "YES", "NO", "nil", "NULL"])
        case 5: return pick(Self.casts)
        case 6: return "$" + pick(["v", "count", "name", "x_1"])
        case 7 where depth < 2:
            return "{" + (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(depth: depth + 1) }.joined(separator: ", ") + "}"
        case 8: return pick(["%@", "SELF", "CAST(\"kura://Thing/1\", \"ObjectID\")", "CAST(\"kura://Thing/t2\", \"ObjectID\")"])
        default: return pick(Self.keys)
        }
    }

    mutating func comparison() -> String {
        let options = chance(20) ? pick(["[c]", "[d]", "[cd]", "[dc]", "[n]", "[cdn]"]) : ""
        let quantifier = chance(15) ? pick(["ANY ", "SOME ", "ALL ", "NONE ", "any "]) : ""
        return "\(quantifier)\(pick(Self.keys)) \(pick(Self.operators))\(options) \(value())"
    }

    mutating func predicate(depth: Int = 0) -> String {
        guard depth < 5, chance(55) else {
            return chance(5) ? pick(["TRUEPREDICATE", "FALSEPREDICATE"]) : comparison()
        }
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return "\(pick(["NOT ", "!", "not "]))\(predicate(depth: depth + 1))"
        case 1: return "(\(predicate(depth: depth + 1)))"
        default:
            let joiner = pick([" AND ", " OR ", " && ", " || ", " and "])
            return (0..<Int.random(in: 2...4, using: &generator)).map { _ in predicate(depth: depth + 1) }.joined(separator: joiner)
        }
    }
}
