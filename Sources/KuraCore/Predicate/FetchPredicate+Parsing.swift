import Foundation

/// A predicate's text that doesn't parse: where, and what was expected there.
///
/// ```swift
/// do {
///     _ = try FetchPredicate(format: "sortOrder > ")
/// } catch let error as PredicateSyntaxError {
///     print(error)               // expected a value after '>' at position 12
///     print(error.caretDiagram)  // sortOrder >
///                                //             ^
/// }
/// ```
public struct PredicateSyntaxError: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// The text that was parsed.
    public let format: String
    /// Where the problem is: the offset in characters from the start (0-based).
    public let position: Int
    /// What is wrong or what was expected, for a person.
    public let message: String

    /// An error at `position` (in Unicode scalars) of `format`.
    public init(format: String, position: Int, message: String) {
        self.format = format
        self.position = position
        self.message = message
    }

    public var description: String {
        "\(message) at position \(position)"
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// The text on one line and a caret under the position on the next.
    public var caretDiagram: String {
        let line = format.replacingOccurrences(of: "\n", with: " ")
        return line + "\n" + String(repeating: " ", count: max(0, position)) + "^"
    }
}

/// Reads NSPredicate's format syntax into a predicate tree.
struct PredicateParser {
    enum Token: Equatable {
        case word(String)            // identifiers and keywords
        case escapedKey(String)      // #key: a key spelled like a keyword
        case string(String)
        case number(String)
        case variable(String)
        case argument(String)        // %@, %K, %d, …
        case symbol(String)
        case end
    }

    struct Located {
        let token: Token
        let position: Int
    }

    let format: String
    /// Unicode scalars, not Characters: a combining mark after a quote must
    /// not merge with it.
    let characters: [Unicode.Scalar]
    var tokens: [Located] = []
    var current = 0
    var arguments: [Any?]
    var nextArgument = 0
    /// How many parentheses, NOTs and lists enclose the current token.
    var depth = 0

    /// The deepest nesting a predicate may have. Parsing, formatting and
    /// evaluating recurse; a limit keeps a hostile string from exhausting the
    /// stack.
    static let maximumNesting = 100

    /// Words that are operators or literals; a key spelled like one needs `#`.
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "FALSE", "YES", "NO", "NIL", "NULL",
        "ANY", "ALL", "NONE", "SOME", "SELF", "CAST", "FIRST", "LAST", "SIZE", "SUBQUERY", "FUNCTION",
    ]

    init(format: String, arguments: [Any?]) {
        self.format = format
        self.characters = Array(format.unicodeScalars)
        self.arguments = arguments
    }

    mutating func parse() throws(PredicateSyntaxError) -> FetchPredicate.Node {
        try tokenize()
        let node = try parseOr()
        guard case .end = peek.token else {
            throw error("expected AND, OR or the end of the predicate, found \(describe(peek.token))", at: peek.position)
        }
        if nextArgument < arguments.count {
            throw error("\(arguments.count) arguments were given but only \(nextArgument) are used", at: characters.count)
        }
        return node
    }

    // MARK: Errors

    /// Enters one more level of nesting; call `depth -= 1` when leaving it.
    mutating func enterNesting(at position: Int) throws(PredicateSyntaxError) {
        depth += 1
        guard depth <= Self.maximumNesting else {
            throw error("the predicate nests more than \(Self.maximumNesting) levels deep", at: position)
        }
    }

    func error(_ message: String, at position: Int) -> PredicateSyntaxError {
        PredicateSyntaxError(format: format, position: position, message: message)
    }

    func describe(_ token: Token) -> String {
        switch token {
        case .word(let word): "'\(word)'"
        case .escapedKey(let key): "'#\(key)'"
        case .string(let text): "the string \"\(text)\""
        case .number(let text): "'\(text)'"
        case .variable(let name): "'$\(name)'"
        case .argument(let text): "'\(text)'"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end"
        }
    }

    // MARK: Predicates

    mutating func parseOr() throws(PredicateSyntaxError) -> FetchPredicate.Node {
        var nodes = [try parseAnd()]
        while isKeyword(peek.token, "OR") || isSymbol(peek.token, "||") {
            _ = advance()
            nodes.append(try parseAnd())
        }
        return nodes.count == 1 ? nodes[0] : FetchPredicate.Node.or(flat: nodes)
    }

    mutating func parseAnd() throws(PredicateSyntaxError) -> FetchPredicate.Node {
        var nodes = [try parseNot()]
        while isKeyword(peek.token, "AND") || isSymbol(peek.token, "&&") {
            _ = advance()
            nodes.append(try parseNot())
        }
        return nodes.count == 1 ? nodes[0] : FetchPredicate.Node.and(flat: nodes)
    }

    mutating func parseNot() throws(PredicateSyntaxError) -> FetchPredicate.Node {
        if isKeyword(peek.token, "NOT") || isSymbol(peek.token, "!") {
            try enterNesting(at: advance().position)
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(PredicateSyntaxError) -> FetchPredicate.Node {
        let start = peek
        if isSymbol(start.token, "(") {
            // A predicate in parentheses, or a comparison that starts with
            // arithmetic in them (`(rating + 1) * 2 > 5`): an operator after
            // the closing parenthesis says which.
            if !isOperator(after: current) { return try parseGroup(at: start) }
            return try parseComparison(startingAt: start, quantifier: .direct)
        }
        if isKeyword(start.token, "TRUEPREDICATE") {
            _ = advance()
            return .constant(true)
        }
        if isKeyword(start.token, "FALSEPREDICATE") {
            _ = advance()
            return .constant(false)
        }
        var quantifier = FetchPredicate.Quantifier.direct
        for (word, modifier) in [("ANY", .any), ("SOME", .any), ("ALL", .all), ("NONE", .none)] as [(String, FetchPredicate.Quantifier)]
            where isKeyword(start.token, word) {
            _ = advance()
            quantifier = modifier
        }
        return try parseComparison(startingAt: start, quantifier: quantifier)
    }

    /// Whether the token after the parenthesis closing the one at `open`
    /// is an arithmetic or comparison operator.
    func isOperator(after open: Int) -> Bool {
        var level = 0
        var position = open
        while position < tokens.count {
            if isSymbol(tokens[position].token, "(") { level += 1 }
            if isSymbol(tokens[position].token, ")") {
                level -= 1
                if level == 0 { break }
            }
            position += 1
        }
        guard position + 1 < tokens.count else { return false }
        let next = tokens[position + 1].token
        if isSymbol(next, "+", "-", "*", "/", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>") { return true }
        if case .word(let word) = next {
            return FetchPredicate.Operator.allCases.contains { $0.rawValue == word.uppercased() && $0.rawValue.first!.isLetter }
        }
        return false
    }

    /// `( predicate )`, at its `(`.
    mutating func parseGroup(at start: Located) throws(PredicateSyntaxError) -> FetchPredicate.Node {
        try enterNesting(at: advance().position)
        defer { depth -= 1 }
        let node = try parseOr()
        guard isSymbol(peek.token, ")") else {
            throw error("expected ')' to close the '(' at position \(start.position), found \(describe(peek.token))", at: peek.position)
        }
        _ = advance()
        return node
    }

    /// `left op right`, its quantifier read.
    mutating func parseComparison(
        startingAt start: Located, quantifier: FetchPredicate.Quantifier
    ) throws(PredicateSyntaxError) -> FetchPredicate.Node {
        if case .end = peek.token {
            throw error("expected a comparison such as key == value, found the end", at: peek.position)
        }
        let left = try parseExpression(after: nil)
        let (operation, options, operatorToken) = try parseOperator(after: start)
        let right = try parseExpression(after: operatorToken)
        return .comparison(left, operation, right, options, quantifier)
    }

    mutating func parseOperator(after left: Located) throws(PredicateSyntaxError) -> (FetchPredicate.Operator, FetchPredicate.ComparisonOptions, Located) {
        let token = advance()
        var operation: FetchPredicate.Operator?
        switch token.token {
        case .symbol(let symbol):
            switch symbol {
            case "==", "=": operation = .equal
            case "!=", "<>": operation = .notEqual
            case "<": operation = .less
            case "<=", "=<": operation = .lessOrEqual
            case ">": operation = .greater
            case ">=", "=>": operation = .greaterOrEqual
            default: break
            }
        case .word(let word):
            operation = FetchPredicate.Operator.allCases.first { $0.rawValue == word.uppercased() && $0.rawValue.first!.isLetter }
        default:
            break
        }
        guard let operation else {
            throw error("expected an operator such as ==, <, IN or BEGINSWITH, found \(describe(token.token))", at: token.position)
        }
        var options: FetchPredicate.ComparisonOptions = []
        if isSymbol(peek.token, "[") {
            let open = advance()
            guard case .word(let letters) = peek.token,
                  letters.lowercased().allSatisfy({ $0 == "c" || $0 == "d" || $0 == "n" }) else {
                throw error("expected c, d, n or a combination such as cd inside [ ]", at: peek.position)
            }
            _ = advance()
            if letters.lowercased().contains("c") { options.insert(.caseInsensitive) }
            if letters.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
            if letters.lowercased().contains("n") { options.insert(.normalized) }
            guard isSymbol(peek.token, "]") else {
                throw error("expected ']' to close the '[' at position \(open.position)", at: peek.position)
            }
            _ = advance()
        }
        return (operation, options, token)
    }

    // MARK: Expressions

    /// An operand, or arithmetic of operands: `+` and `-` bind less
    /// tightly than `*` and `/`, each left to right.
    mutating func parseExpression(after operatorToken: Located?) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        var sum = try parseProduct(after: operatorToken)
        while isSymbol(peek.token, "+", "-") {
            let located = advance()
            let operation: FetchPredicate.ArithmeticOperator = isSymbol(located.token, "+") ? .add : .subtract
            sum = try arithmetic(operation, sum, try parseProduct(after: located), at: located)
        }
        return sum
    }

    /// `left op right`, refused where it would nest deeper than a predicate may.
    func arithmetic(
        _ operation: FetchPredicate.ArithmeticOperator, _ left: FetchPredicate.Expression, _ right: FetchPredicate.Expression,
        at located: Located
    ) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        let expression = FetchPredicate.Expression.arithmetic(operation, left, right)
        guard depth + expression.nesting <= Self.maximumNesting else {
            throw error("the predicate nests more than \(Self.maximumNesting) levels deep", at: located.position)
        }
        return expression
    }

    mutating func parseProduct(after operatorToken: Located?) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        var product = try parseFactor(after: operatorToken)
        while isSymbol(peek.token, "*", "/") {
            let located = advance()
            let operation: FetchPredicate.ArithmeticOperator = isSymbol(located.token, "*") ? .multiply : .divide
            product = try arithmetic(operation, product, try parseFactor(after: located), at: located)
        }
        return product
    }

    /// An operand, `-operand`, `(arithmetic)` or `modulus:by:(a, b)`.
    mutating func parseFactor(after operatorToken: Located?) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        let located = peek
        if isSymbol(located.token, "-"), current + 1 < tokens.count, case .number = tokens[current + 1].token {
            return try parseOperand(after: operatorToken)  // a negative number
        }
        if isSymbol(located.token, "-") {
            try enterNesting(at: advance().position)
            defer { depth -= 1 }
            return try arithmetic(.subtract, .value(.int(0)), try parseFactor(after: located), at: located)
        }
        if isSymbol(located.token, "(") {
            try enterNesting(at: advance().position)
            defer { depth -= 1 }
            let inner = try parseExpression(after: located)
            guard isSymbol(peek.token, ")") else {
                throw error("expected ')' to close the '(' at position \(located.position), found \(describe(peek.token))", at: peek.position)
            }
            _ = advance()
            return inner
        }
        if case .word("modulus:by:") = located.token {
            _ = advance()
            guard isSymbol(peek.token, "(") else { throw error("expected '(' after modulus:by:", at: peek.position) }
            try enterNesting(at: advance().position)
            defer { depth -= 1 }
            let dividend = try parseExpression(after: located)
            guard isSymbol(peek.token, ",") else { throw error("expected ',' between modulus:by:'s numbers", at: peek.position) }
            let comma = advance()
            let divisor = try parseExpression(after: comma)
            guard isSymbol(peek.token, ")") else { throw error("expected ')' to close modulus:by:(", at: peek.position) }
            _ = advance()
            return try arithmetic(.modulus, dividend, divisor, at: located)
        }
        return try parseOperand(after: operatorToken)
    }

    mutating func parseOperand(after operatorToken: Located?) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        let located = advance()
        switch located.token {
        case .word(let word):
            switch word.uppercased() {
            case "TRUE", "YES": return .value(.bool(true))
            case "FALSE", "NO": return .value(.bool(false))
            case "NIL", "NULL": return .value(nil)
            case "CAST": return try parseCast(at: located.position)
            case "SELF":
                if isSymbol(peek.token, ".") {
                    _ = advance()
                    return try parseKeyPath(startingWith: try keyComponent(), at: located.position)
                }
                return .evaluatedObject
            case "SUBQUERY": return try parseSubquery(at: located.position)
            default:
                if Self.keywords.contains(word.uppercased()) {
                    throw error("expected a key or a value, found \(describe(located.token)) (write #\(word) for a key of that name)", at: located.position)
                }
                return try parseKeyPath(startingWith: word, at: located.position)
            }
        case .escapedKey(let key):
            return try parseKeyPath(startingWith: key, at: located.position)
        case .string(let text):
            return .value(.string(text))
        case .number(let text):
            return .value(try number(text, at: located.position))
        case .symbol("-"):
            let numberToken = advance()
            guard case .number(let text) = numberToken.token else {
                throw error("expected a number after '-'", at: numberToken.position)
            }
            return .value(try number("-" + text, at: located.position))
        case .variable(let name):
            guard isSymbol(peek.token, ".") else { return .variable(name) }
            _ = advance()
            // `$c.score`, or with a collection operator: `$p.comments.@count`,
            // `$p.comments.@sum.score`.
            switch try parseKeyPath(startingWith: try keyComponent(), at: located.position) {
            case .key(let path):
                return .variableKeyPath(name, path)
            case .aggregate(let aggregate, .key(let path), let memberPath):
                return .aggregate(aggregate, .variableKeyPath(name, path), memberPath)
            default:
                throw error("expected a key path after $\(name).", at: located.position)
            }
        case .argument(let specifier):
            return try argument(specifier, at: located.position)
        case .symbol("{"):
            try enterNesting(at: located.position)
            defer { depth -= 1 }
            var elements: [FetchPredicate.Expression] = []
            if isSymbol(peek.token, "}") {
                _ = advance()
                return .list([])
            }
            while true {
                elements.append(try parseExpression(after: located))
                if isSymbol(peek.token, ",") {
                    _ = advance()
                } else if isSymbol(peek.token, "}") {
                    _ = advance()
                    return .list(elements)
                } else {
                    throw error("expected ',' or '}' in the list that starts at position \(located.position), found \(describe(peek.token))", at: peek.position)
                }
            }
        default:
            if let operatorToken {
                throw error("expected a value after \(describe(operatorToken.token)), found \(describe(located.token))", at: located.position)
            }
            throw error("expected a key or a value, found \(describe(located.token))", at: located.position)
        }
    }

    /// The next key of a key path, after a `.`.
    mutating func keyComponent() throws(PredicateSyntaxError) -> String {
        let next = advance()
        switch next.token {
        case .word(let word) where !Self.keywords.contains(word.uppercased()): return word
        case .escapedKey(let key): return key
        default: throw error("expected a key after '.', found \(describe(next.token))", at: next.position)
        }
    }

    /// `first.second…`, with at most one collection operator:
    /// `tags.@count`, `comments.@sum.score`.
    mutating func parseKeyPath(startingWith first: String, at position: Int) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        var components = [first]
        while isSymbol(peek.token, ".") {
            _ = advance()
            if isSymbol(peek.token, "@") {
                return try parseAggregate(of: .key(components.joined(separator: ".")))
            }
            components.append(try keyComponent())
        }
        return .key(components.joined(separator: "."))
    }

    /// `@op` and the members' key path after it, the `.` before it read.
    mutating func parseAggregate(of collection: FetchPredicate.Expression) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        let at = advance()
        let name = advance()
        guard case .word(let word) = name.token, let aggregate = FetchPredicate.Aggregate(rawValue: word.lowercased()) else {
            throw error("expected @count, @sum, @avg, @min or @max", at: at.position)
        }
        var path: [String] = []
        while isSymbol(peek.token, ".") {
            _ = advance()
            path.append(try keyComponent())
        }
        if aggregate != .count && path.isEmpty {
            throw error("@\(word) needs the members' attribute after it, such as @\(word).score", at: at.position)
        }
        return .aggregate(aggregate, collection, path.isEmpty ? nil : path.joined(separator: "."))
    }

    /// `SUBQUERY(collection, $variable, predicate)`, then an optional
    /// collection operator (`.@count`).
    mutating func parseSubquery(at position: Int) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        guard isSymbol(peek.token, "(") else { throw error("expected '(' after SUBQUERY", at: peek.position) }
        try enterNesting(at: advance().position)
        defer { depth -= 1 }
        let collection = try parseExpression(after: nil)
        guard isSymbol(peek.token, ",") else { throw error("expected ',' after SUBQUERY's collection", at: peek.position) }
        _ = advance()
        let variableToken = advance()
        guard case .variable(let variable) = variableToken.token else {
            throw error("expected a $variable for SUBQUERY's members", at: variableToken.position)
        }
        guard isSymbol(peek.token, ",") else { throw error("expected ',' after SUBQUERY's variable", at: peek.position) }
        _ = advance()
        let predicate = try parseOr()
        guard isSymbol(peek.token, ")") else {
            throw error("expected ')' to close SUBQUERY, found \(describe(peek.token))", at: peek.position)
        }
        _ = advance()
        let subquery = FetchPredicate.Expression.subquery(collection, variable, FetchPredicate(predicate))
        if isSymbol(peek.token, ".") {
            _ = advance()
            guard isSymbol(peek.token, "@") else { throw error("expected a collection operator such as @count", at: peek.position) }
            return try parseAggregate(of: subquery)
        }
        return subquery
    }

    func number(_ text: String, at position: Int) throws(PredicateSyntaxError) -> AttributeValue {
        let negative = text.hasPrefix("-")
        let digits = negative ? String(text.dropFirst()) : text
        if digits.lowercased().hasPrefix("0x") {
            guard let magnitude = UInt64(digits.dropFirst(2), radix: 16),
                  let value = negative ? (magnitude == UInt64(Int64.max) + 1 ? Int64.min : Int64(exactly: magnitude).map { -$0 })
                                       : Int64(exactly: magnitude) else {
                throw error("the number \(text) is not a valid 64-bit integer", at: position)
            }
            return .int(value)
        }
        if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            guard let value = Double(text) else { throw error("the number \(text) is not valid", at: position) }
            return .double(value)
        }
        guard let value = Int64(text) else {
            throw error("the number \(text) does not fit in a 64-bit integer", at: position)
        }
        return .int(value)
    }

    /// `CAST(value, "Type")`: how the formatter writes dates, floats,
    /// decimals, UUIDs, data, URLs and non-finite doubles. A date may also
    /// be ISO 8601 text (`ExactDate`).
    mutating func parseCast(at position: Int) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        guard isSymbol(peek.token, "(") else { throw error("expected '(' after CAST", at: peek.position) }
        _ = advance()
        // A literal only: CAST never nests.
        let valueToken = peek
        let inner: FetchPredicate.Expression
        switch valueToken.token {
        case .string, .number, .symbol("-"): inner = try parseExpression(after: nil)
        default: throw error("CAST needs a string or number", at: valueToken.position)
        }
        guard isSymbol(peek.token, ",") else { throw error("expected ',' in CAST", at: peek.position) }
        _ = advance()
        guard case .string(let typeName) = advance().token else {
            throw error("expected a type name such as \"NSDate\" in CAST", at: valueToken.position)
        }
        guard isSymbol(peek.token, ")") else { throw error("expected ')' to close CAST", at: peek.position) }
        _ = advance()
        guard case .value(let value?) = inner else {
            throw error("CAST needs a string or number", at: valueToken.position)
        }
        let text: String? = if case .string(let string) = value { string } else { nil }
        let number = value.numericValue
        var result: AttributeValue?
        switch typeName {
        case "NSDate", "Date":
            // Seconds since 2001 (NSPredicate's form), or ISO 8601 text.
            if let text, Double(text) == nil {
                guard let date = ExactDate.parse(text) else {
                    throw error("'\(text)' is not a date: write ISO 8601 such as \"2026-11-23T08:30:00Z\", "
                        + "\"2026-11-23T08:30:00.250+01:00\" or \"2026-11-23\", or seconds since 2001", at: valueToken.position)
                }
                result = .date(date)
            } else {
                result = (text.flatMap(Double.init) ?? number).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
            }
        case "Float": result = (text.flatMap(Float.init) ?? number.map(Float.init)).map(AttributeValue.float)
        case "Double", "NSNumber": result = (text.flatMap(Double.init) ?? number).map(AttributeValue.double)
        case "NSDecimalNumber", "Decimal":
            result = (text.flatMap { Decimal(string: $0) } ?? number.map { Decimal($0) }).map(AttributeValue.decimal)
        case "UUID", "NSUUID": result = text.flatMap(UUID.init(uuidString:)).map(AttributeValue.uuid)
        case "NSData", "Data": result = text.flatMap { Data(base64Encoded: $0) }.map(AttributeValue.data)
        case "NSURL", "URL": result = text.flatMap(URL.init(string:)).map(AttributeValue.url)
        case "NSString", "String": result = text.map(AttributeValue.string)
        case "ObjectID", "NSManagedObjectID":
            guard let text, text.hasPrefix("kura://") else {
                throw error("an ObjectID is written as a string such as \"kura://Author/3\"", at: valueToken.position)
            }
            return .object(text)
        default:
            throw error("CAST to \"\(typeName)\" is not supported", at: position)
        }
        guard let result else { throw error("the value can't be read as \(typeName)", at: valueToken.position) }
        return .value(result)
    }

    /// A `%K` argument: a key, or a key path whose components are names
    /// (with at most one collection operator), as if it had been written.
    func keyArgument(_ key: String, at position: Int) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        let components = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if components.count == 1 {
            guard Self.isIdentifier(key) else {
                throw error("%K is '\(key)', which is not a key (letters, digits and _)", at: position)
            }
            return .key(key)
        }
        guard components.allSatisfy({ Self.isIdentifier($0) || ($0.hasPrefix("@") && FetchPredicate.Aggregate(rawValue: String($0.dropFirst())) != nil) }),
              components.filter({ $0.hasPrefix("@") }).count <= 1, !components[0].hasPrefix("@") else {
            throw error("%K is '\(key)', which is not a key path (names joined by '.', at most one @count, @sum…)", at: position)
        }
        guard let at = components.firstIndex(where: { $0.hasPrefix("@") }) else { return .key(key) }
        let aggregate = FetchPredicate.Aggregate(rawValue: String(components[at].dropFirst()))!
        let rest = components[(at + 1)...]
        if aggregate != .count && rest.isEmpty {
            throw error("%K is '\(key)': @\(aggregate.rawValue) needs the members' attribute after it", at: position)
        }
        return .aggregate(aggregate, .key(components[..<at].joined(separator: ".")), rest.isEmpty ? nil : rest.joined(separator: "."))
    }

    mutating func argument(_ specifier: String, at position: Int) throws(PredicateSyntaxError) -> FetchPredicate.Expression {
        guard nextArgument < arguments.count else {
            throw error("\(specifier) has no argument: \(arguments.count) given", at: position)
        }
        let value = arguments[nextArgument]
        nextArgument += 1
        if specifier == "%K" {
            guard let key = value as? String else {
                throw error("%K needs a String key, got \(value.map { "\(type(of: $0))" } ?? "nil")", at: position)
            }
            return try keyArgument(key, at: position)
        }
        do {
            return try PredicateArguments.expression(from: value)
        } catch {
            throw self.error("argument \(nextArgument) can't be used in a predicate: \(error)", at: position)
        }
    }
}
