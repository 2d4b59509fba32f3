/// A condition on an object's attributes, as in Core Data's `NSPredicate`:
/// parsed from the same format syntax, or built in Swift.
///
/// ```swift
/// let recent = try FetchPredicate(format: "sortOrder > %@ AND title BEGINSWITH[c] %@", 3, "kura")
/// let byID: FetchPredicate = "objectId == $objectId"                 // a template, with a variable
/// let typed = \News.sortOrder > 3 && \News.imageURL != nil       // the same tree from key paths
/// print(typed.predicateFormat)                                   // sortOrder > 3 AND imageURL != nil
/// ```
///
/// A predicate is a value (an indirect enum inside), `Sendable` and
/// `Hashable`; ``predicateFormat`` writes it back as text that parses to the
/// same predicate. Fetches check it against the entity before reading any
/// data, so an unknown key or a string compared with a number is an error
/// that names the key.
///
/// The grammar, operators and value semantics are listed in the
/// "Predicates" article; in short: `==`/`=`, `!=`/`<>`, `<`, `<=`/`=<`, `>`,
/// `>=`/`=>`, `BETWEEN {a, b}`, `IN {…}`/`IN %@`, `BEGINSWITH`, `ENDSWITH`,
/// `CONTAINS`, `LIKE` (`*` and `?`), `MATCHES` (an ICU regular expression
/// matching the whole string), each with `[c]`, `[d]` or `[cd]`;
/// `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses; `$VARIABLE`, `%@`, `%K`;
/// string, number, boolean and `nil` literals; `TRUEPREDICATE` and
/// `FALSEPREDICATE`.
public struct FetchPredicate: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    let root: Node
    /// Set for a predicate that can't be used: a string literal that
    /// doesn't parse, or a tree built in code that nests deeper than
    /// ``maximumNesting``. The error is thrown when the predicate is first
    /// used (registered in a template or fetched).
    let problem: Problem?
    /// How deep the predicate's text nests (parentheses, `NOT`s, lists,
    /// `SUBQUERY`s), as ``predicateFormat`` writes it: what the parser limits.
    let nesting: Int

    enum Problem: Sendable, Hashable {
        case syntax(PredicateSyntaxError)
        case tooDeep
        /// A Foundation `Predicate` with a part the store can't evaluate.
        case unconvertible(String)
    }

    /// The deepest a predicate may nest, written as text or built in code:
    /// parentheses, `NOT`s, lists and `SUBQUERY`s, counted as its text
    /// (``predicateFormat``) nests them. Parsing, formatting, compiling and
    /// evaluating recurse; the limit keeps any predicate from exhausting
    /// the stack. A deeper one, from text, is a ``PredicateSyntaxError``;
    /// built in code (`!`, ``and(_:)``, ``comparison(_:_:_:options:quantifier:)``…),
    /// it is a predicate that throws ``KuraError/invalidPredicate(_:)`` where
    /// it is used, and the deep tree is never made.
    public static let maximumNesting = 100

    init(_ root: Node, problem: Problem? = nil) {
        if let problem {
            self.init(root: root, problem: problem, nesting: 0)
        } else {
            self.init(root, nesting: root.nesting)
        }
    }

    /// A predicate whose nesting is known: `nesting` is the root's.
    private init(_ root: Node, nesting: Int) {
        if nesting > Self.maximumNesting {
            self.init(root: .constant(false), problem: .tooDeep, nesting: 0)
        } else {
            self.init(root: root, problem: nil, nesting: nesting)
        }
    }

    private init(root: Node, problem: Problem?, nesting: Int) {
        self.root = root
        self.problem = problem
        self.nesting = nesting
    }

    /// The first problem of `predicates`, which a predicate made of them has too.
    private static func problem(of predicates: [FetchPredicate]) -> Problem? {
        predicates.lazy.compactMap(\.problem).first
    }

    /// Parses `format`, NSPredicate's syntax, replacing each `%@` (a value)
    /// and `%K` (a key) with the next argument.
    ///
    /// Arguments may be `String`, any integer, `Double`, `Float`, `Decimal`,
    /// `Bool`, `Date`, `UUID`, `Data`, `URL`, ``AttributeValue``, `nil`, or an
    /// array of those (for `IN %@`).
    ///
    /// - Throws: ``PredicateSyntaxError``, which says where the text went
    ///   wrong and what was expected there.
    public init(format: String, _ arguments: Any?...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses `format` with an array of arguments; see ``init(format:_:)``.
    public init(format: String, argumentArray arguments: [Any?]) throws {
        var parser = PredicateParser(format: format, arguments: arguments)
        self.init(try parser.parse())
    }

    /// Parses a literal: `let p: FetchPredicate = "sortOrder > 3"`.
    ///
    /// A literal that doesn't parse doesn't stop the program: the syntax
    /// error is thrown where the predicate is first used (when a template is
    /// registered, or a fetch runs). Use ``init(format:_:)`` to get it at once.
    public init(stringLiteral format: String) {
        var parser = PredicateParser(format: format, arguments: [])
        do {
            self.init(try parser.parse())
        } catch {
            self.init(.constant(false), problem: .syntax(error))
        }
    }

    /// Throws the syntax error of a literal that didn't parse, or the
    /// error of a predicate built too deep.
    func checkSyntax() throws {
        switch problem {
        case nil: return
        case .syntax(let error): throw error
        case .tooDeep:
            throw KuraError.invalidPredicate("the predicate nests more than \(Self.maximumNesting) levels deep")
        case .unconvertible(let reason):
            throw KuraError.invalidPredicate(reason)
        }
    }

    /// The predicate as text, in a canonical form that parses back to an
    /// equal predicate.
    public var predicateFormat: String {
        switch problem {
        case nil: return PredicateFormatter.format(root)
        case .syntax(let error): return error.format
        case .tooDeep: return "(a predicate nested more than \(Self.maximumNesting) levels deep)"
        case .unconvertible(let reason): return "(\(reason))"
        }
    }

    public var description: String { predicateFormat }

    public static func == (lhs: FetchPredicate, rhs: FetchPredicate) -> Bool {
        lhs.root == rhs.root && lhs.problem == rhs.problem
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(root)
    }

    /// The names of the `$variables` the predicate uses (a `SUBQUERY`'s own
    /// variable is not one: it names the member being tested).
    public var variableNames: Set<String> {
        var names = Set<String>()
        root.collectVariables(into: &names, bound: [])
        return names
    }
}

// MARK: The tree

extension FetchPredicate {
    /// One side of a comparison.
    ///
    /// A comparison whose expressions nest (lists, `SUBQUERY`s, arithmetic) deeper than
    /// ``FetchPredicate/maximumNesting`` is refused where it is used.
    public indirect enum Expression: Sendable, Hashable {
        /// An attribute or relationship of the evaluated object, by name, or a
        /// key path through relationships (`author.name`, `tags.name`).
        case key(String)
        /// A constant; `nil` is no value.
        case value(AttributeValue?)
        /// An object, by the string form of its ID (`kura://Author/3`), as a
        /// `%@` argument of a ``ManagedObject`` or an ``ObjectID`` gives;
        /// written `CAST("kura://Author/3", "ObjectID")`.
        case object(String)
        /// `SELF`: the evaluated object itself.
        case evaluatedObject
        /// A `$variable`: replaced by ``FetchPredicate/withSubstitutionVariables(_:)``,
        /// or, inside a `SUBQUERY`, the element being tested.
        case variable(String)
        /// A key path from a `SUBQUERY`'s element: `$c.score`.
        case variableKeyPath(String, String)
        /// A list of expressions: `{1, 2, 3}`, for `IN` and `BETWEEN`.
        case list([Expression])
        /// A collection operator over a to-many: `tags.@count`,
        /// `comments.@sum.score`, `SUBQUERY(…).@count`; the key path after
        /// the operator names the members' attribute.
        case aggregate(Aggregate, Expression, String?)
        /// The members of a collection that match a predicate in which the
        /// variable names the member: `SUBQUERY(comments, $c, $c.score > 3)`.
        case subquery(Expression, String, FetchPredicate)
        /// Arithmetic on two numbers: `rating + 1`, `price * quantity`,
        /// `modulus:by:(rating, 2)`. Either side may be a key path, an
        /// aggregate, a value or a variable; the result is `nil` where
        /// either side is.
        case arithmetic(ArithmeticOperator, Expression, Expression)
    }

    /// An arithmetic operator of an ``Expression/arithmetic(_:_:_:)``.
    ///
    /// Integers stay integers (`+`, `-`, `*` and `modulus:by:` of two
    /// integers give an integer, unless it overflows 64 bits: then a
    /// `Double`); `/` gives a `Double`, as NSExpression's `divide:by:`
    /// does. `Double`s compute as Swift computes them (`1 / 0` is
    /// infinity); what is not a number (`0 / 0`, an integer `modulus:by:`
    /// zero) gives `nil`, which matches no comparison but `== nil`.
    /// `Float`s and `Decimal`s compute as `Double`s.
    public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
        /// `a + b`
        case add = "+"
        /// `a - b`
        case subtract = "-"
        /// `a * b`
        case multiply = "*"
        /// `a / b`
        case divide = "/"
        /// `modulus:by:(a, b)`: the remainder of `a / b`, with the sign
        /// of `a` (Swift's `%` and `truncatingRemainder(dividingBy:)`).
        case modulus = "modulus:by:"

        /// Binds tighter: `*`, `/` (and the function `modulus:by:`) than `+`, `-`.
        var precedence: Int {
            switch self {
            case .add, .subtract: 1
            case .multiply, .divide: 2
            case .modulus: 3
            }
        }
    }

    /// A collection operator (`@count`, `@sum`, `@avg`, `@min`, `@max`).
    public enum Aggregate: String, Sendable, Hashable, CaseIterable {
        /// `@count`: how many members.
        case count
        /// `@sum`: the sum of the members' values (0 for none).
        case sum
        /// `@avg`: their average (`nil` for none).
        case avg
        /// `@min`: the least (`nil` for none).
        case min
        /// `@max`: the greatest (`nil` for none).
        case max
    }

    /// How a comparison treats a to-many key path on its left: `ANY` (or
    /// `SOME`: some member matches; also what a to-many key path without a
    /// modifier means), `ALL` (every member matches; true for none), `NONE`
    /// (no member matches).
    public enum Quantifier: String, Sendable, Hashable, CaseIterable {
        /// No modifier.
        case direct = ""
        /// `ANY` / `SOME`.
        case any = "ANY"
        /// `ALL`.
        case all = "ALL"
        /// `NONE`.
        case none = "NONE"
    }

    /// How two expressions are compared.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==`
        case equal = "=="
        /// `!=`
        case notEqual = "!="
        /// `<`
        case less = "<"
        /// `<=`
        case lessOrEqual = "<="
        /// `>`
        case greater = ">"
        /// `>=`
        case greaterOrEqual = ">="
        /// `BETWEEN {low, high}`, both ends included
        case between = "BETWEEN"
        /// `IN {…}`: equal to one of the values
        case `in` = "IN"
        /// `BEGINSWITH`
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`
        case endsWith = "ENDSWITH"
        /// `CONTAINS`
        case contains = "CONTAINS"
        /// `LIKE`, with `*` and `?` wildcards, whole string
        case like = "LIKE"
        /// `MATCHES`: an ICU regular expression, whole string
        case matches = "MATCHES"

        /// True for the operators that only apply to strings.
        public var isStringOperator: Bool {
            switch self {
            case .beginsWith, .endsWith, .contains, .like, .matches: true
            default: false
            }
        }

        /// The operator that holds with the sides swapped (`a < b` ⟺ `b > a`);
        /// nil for the operators that aren't symmetric that way.
        var mirrored: Operator? {
            switch self {
            case .equal, .notEqual: self
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .greater: .less
            case .greaterOrEqual: .lessOrEqual
            default: nil
            }
        }
    }

    /// `[c]` and `[d]`: how strings are compared.
    public struct ComparisonOptions: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `[c]`: ignore case (Unicode case folding: "STRASSE" equals "straße").
        public static let caseInsensitive = ComparisonOptions(rawValue: 1)
        /// `[d]`: ignore diacritics ("deja" equals "déjà").
        public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
        /// `[n]`: Foundation's hint that both strings are already normalized.
        /// Kept so the predicate formats as it was written; it changes no
        /// result, because Kura always compares strings by their NFC form.
        public static let normalized = ComparisonOptions(rawValue: 4)
    }

    indirect enum Node: Sendable, Hashable {
        case constant(Bool)
        case not(Node)
        case and([Node])
        case or([Node])
        case comparison(Expression, Operator, Expression, ComparisonOptions, Quantifier)

        /// Calls `body` with every expression in the tree: lists' elements,
        /// aggregates' collections and subqueries' parts included.
        func forEachExpression(_ body: (Expression) -> Void) {
            func visit(_ expression: Expression) {
                body(expression)
                switch expression {
                case .list(let elements): elements.forEach(visit)
                case .aggregate(_, let collection, _): visit(collection)
                case .subquery(let collection, _, let predicate):
                    visit(collection)
                    predicate.root.forEachExpression(body)
                case .arithmetic(_, let left, let right):
                    visit(left)
                    visit(right)
                default: break
                }
            }
            switch self {
            case .constant: break
            case .not(let node): node.forEachExpression(body)
            case .and(let nodes), .or(let nodes): nodes.forEach { $0.forEachExpression(body) }
            case .comparison(let left, _, let right, _, _):
                visit(left)
                visit(right)
            }
        }
    }
}

extension FetchPredicate.Node {
    /// How deep the tree's text nests (see ``FetchPredicate/nesting``).
    /// Recursive: used on trees whose depth is bounded already (parsed, or
    /// made from predicates that were).
    var nesting: Int {
        switch self {
        case .constant: 0
        case .not(let inner):
            switch inner {
            case .and, .or: inner.nesting + 2
            default: inner.nesting + 1
            }
        case .and(let nodes):
            nodes.map { node in
                if case .or = node { return node.nesting + 1 }
                return node.nesting
            }.max() ?? 0
        case .or(let nodes): nodes.map(\.nesting).max() ?? 0
        case .comparison(let left, _, let right, _, _): max(left.nesting, right.nesting)
        }
    }
}

extension FetchPredicate.Expression {
    /// How deep the expression's text nests: lists and `SUBQUERY`s. Measured
    /// without recursion: an expression is a value anyone can build, as deep as they like.
    var nesting: Int {
        var deepest = 0
        var pending: [(FetchPredicate.Expression, Int)] = [(self, 0)]
        while let (expression, depth) = pending.popLast() {
            deepest = max(deepest, depth)
            switch expression {
            case .list(let elements):
                deepest = max(deepest, depth + 1)
                for element in elements { pending.append((element, depth + 1)) }
            case .aggregate(_, let collection, _):
                pending.append((collection, depth))
            case .subquery(let collection, _, let predicate):
                deepest = max(deepest, depth + 1 + predicate.nesting)
                pending.append((collection, depth + 1))
            case .arithmetic(_, let left, let right):
                deepest = max(deepest, depth + 1)
                pending.append((left, depth + 1))
                pending.append((right, depth + 1))
            case .key, .value, .object, .evaluatedObject, .variable, .variableKeyPath:
                break
            }
            if deepest > FetchPredicate.maximumNesting { return deepest }
        }
        return deepest
    }

    /// The problem of a predicate inside the expression (a `SUBQUERY`'s), if any.
    var problem: FetchPredicate.Problem? {
        var pending = [self]
        var visited = 0
        while let expression = pending.popLast() {
            visited += 1
            switch expression {
            case .list(let elements): pending.append(contentsOf: elements)
            case .aggregate(_, let collection, _): pending.append(collection)
            case .subquery(let collection, _, let predicate):
                if let problem = predicate.problem { return problem }
                pending.append(collection)
            case .arithmetic(_, let left, let right): pending.append(contentsOf: [left, right])
            case .key, .value, .object, .evaluatedObject, .variable, .variableKeyPath: break
            }
        }
        return nil
    }
}

extension FetchPredicate.Node {
    /// The free `$variables`: those no enclosing `SUBQUERY` binds.
    func collectVariables(into names: inout Set<String>, bound: Set<String>) {
        func visit(_ expression: FetchPredicate.Expression) {
            switch expression {
            case .variable(let name), .variableKeyPath(let name, _):
                if !bound.contains(name) { names.insert(name) }
            case .list(let elements): elements.forEach(visit)
            case .aggregate(_, let collection, _): visit(collection)
            case .subquery(let collection, let variable, let predicate):
                visit(collection)
                predicate.root.collectVariables(into: &names, bound: bound.union([variable]))
            case .arithmetic(_, let left, let right):
                visit(left)
                visit(right)
            case .key, .value, .object, .evaluatedObject: break
            }
        }
        switch self {
        case .constant: break
        case .not(let node): node.collectVariables(into: &names, bound: bound)
        case .and(let nodes), .or(let nodes): for node in nodes { node.collectVariables(into: &names, bound: bound) }
        case .comparison(let left, _, let right, _, _):
            visit(left)
            visit(right)
        }
    }
}

// MARK: Building

extension FetchPredicate {
    /// `TRUEPREDICATE`: every object.
    public static let `true` = FetchPredicate(.constant(true))
    /// `FALSEPREDICATE`: no object.
    public static let `false` = FetchPredicate(.constant(false))

    /// A comparison: `left op[options] right`.
    ///
    /// ```swift
    /// FetchPredicate.comparison(.key("title"), .beginsWith, .value(.string("Ku")), options: .caseInsensitive)
    /// ```
    public static func comparison(
        _ left: Expression, _ operator: Operator, _ right: Expression, options: ComparisonOptions = [],
        quantifier: Quantifier = .direct
    ) -> FetchPredicate {
        let nesting = max(left.nesting, right.nesting)
        // (An expression is the caller's value; a deep one is measured
        // without recursion, and refused before any walk recurses into it.)
        guard nesting <= maximumNesting else { return FetchPredicate(.constant(false), problem: .tooDeep) }
        if let problem = left.problem ?? right.problem { return FetchPredicate(.constant(false), problem: problem) }
        return FetchPredicate(.comparison(left, `operator`, right, options, quantifier), nesting: nesting)
    }

    /// True when every one of `predicates` is (`TRUEPREDICATE` for none).
    public static func and(_ predicates: [FetchPredicate]) -> FetchPredicate {
        if let problem = problem(of: predicates) { return FetchPredicate(.constant(false), problem: problem) }
        // Every predicate's tree is flat already: one level is merged.
        // An OR inside an AND is written in parentheses.
        let nesting = predicates.map { predicate in
            if case .or = predicate.root { return predicate.nesting + 1 }
            return predicate.nesting
        }.max() ?? 0
        return FetchPredicate(Node.and(flat: predicates.map(\.root)), nesting: nesting)
    }

    /// True when any of `predicates` is (`FALSEPREDICATE` for none).
    public static func or(_ predicates: [FetchPredicate]) -> FetchPredicate {
        if let problem = problem(of: predicates) { return FetchPredicate(.constant(false), problem: problem) }
        return FetchPredicate(Node.or(flat: predicates.map(\.root)), nesting: predicates.map(\.nesting).max() ?? 0)
    }

    /// True when `predicate` is not.
    public static func not(_ predicate: FetchPredicate) -> FetchPredicate {
        if let problem = predicate.problem { return FetchPredicate(.constant(false), problem: problem) }
        // `NOT x`, or `NOT (x)` for an AND or an OR.
        let parenthesized: Bool
        switch predicate.root {
        case .and, .or: parenthesized = true
        default: parenthesized = false
        }
        return FetchPredicate(.not(predicate.root), nesting: predicate.nesting + (parenthesized ? 2 : 1))
    }

    /// Both predicates.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .and([lhs, rhs]) }
    /// Either predicate.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .or([lhs, rhs]) }
    /// The negation.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate { .not(predicate) }
}

extension FetchPredicate.Node {
    /// The AND of nodes that are flat already: merges one level only, so the
    /// parser builds a flat tree in linear time.
    static func and(flat nodes: [FetchPredicate.Node]) -> FetchPredicate.Node {
        let merged = nodes.flatMap { node -> [FetchPredicate.Node] in
            if case .and(let inner) = node { return inner }
            return [node]
        }
        if merged.isEmpty { return .constant(true) }
        return merged.count == 1 ? merged[0] : .and(merged)
    }

    /// The OR of nodes that are flat already; see ``and(flat:)``.
    static func or(flat nodes: [FetchPredicate.Node]) -> FetchPredicate.Node {
        let merged = nodes.flatMap { node -> [FetchPredicate.Node] in
            if case .or(let inner) = node { return inner }
            return [node]
        }
        if merged.isEmpty { return .constant(false) }
        return merged.count == 1 ? merged[0] : .or(merged)
    }
}
