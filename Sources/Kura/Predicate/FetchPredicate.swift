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
    /// Set for a string literal that doesn't parse: the error is thrown when
    /// the predicate is first used (registered in a template or fetched).
    let syntaxError: PredicateSyntaxError?

    init(_ root: Node, syntaxError: PredicateSyntaxError? = nil) {
        self.root = root
        self.syntaxError = syntaxError
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
            self.init(.constant(false), syntaxError: error)
        }
    }

    /// Throws the syntax error of a literal that didn't parse.
    func checkSyntax() throws {
        if let syntaxError { throw syntaxError }
    }

    /// The predicate as text, in a canonical form that parses back to an
    /// equal predicate.
    public var predicateFormat: String {
        if let syntaxError { return syntaxError.format }
        return PredicateFormatter.format(root)
    }

    public var description: String { predicateFormat }

    public static func == (lhs: FetchPredicate, rhs: FetchPredicate) -> Bool {
        lhs.root == rhs.root && lhs.syntaxError == rhs.syntaxError
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
        FetchPredicate(.comparison(left, `operator`, right, options, quantifier))
    }

    /// True when every one of `predicates` is (`TRUEPREDICATE` for none).
    public static func and(_ predicates: [FetchPredicate]) -> FetchPredicate {
        FetchPredicate(Node.and(predicates.map(\.root)).flattened)
    }

    /// True when any of `predicates` is (`FALSEPREDICATE` for none).
    public static func or(_ predicates: [FetchPredicate]) -> FetchPredicate {
        FetchPredicate(Node.or(predicates.map(\.root)).flattened)
    }

    /// True when `predicate` is not.
    public static func not(_ predicate: FetchPredicate) -> FetchPredicate {
        FetchPredicate(.not(predicate.root))
    }

    /// Both predicates.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .and([lhs, rhs]) }
    /// Either predicate.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .or([lhs, rhs]) }
    /// The negation.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate { .not(predicate) }
}

extension FetchPredicate.Node {
    /// Nested ANDs (ORs) merged into one, single-element ones unwrapped:
    /// the shape the parser produces, so built and parsed trees compare equal.
    /// Linear in the size of the tree.
    var flattened: FetchPredicate.Node {
        switch self {
        case .and(let nodes): Self.and(flat: nodes.map(\.flattened))
        case .or(let nodes): Self.or(flat: nodes.map(\.flattened))
        case .not(let node): .not(node.flattened)
        case .constant, .comparison: self
        }
    }

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
