@_spi(Reflection) import Swift
import Foundation
import Synchronization

extension FetchPredicate {
    /// Foundation's `Predicate` (what `#Predicate` builds) as Kura's
    /// predicate: the same tree the format syntax gives, so it runs through
    /// the planner, indexes, relationships and unsaved changes as the text does.
    ///
    /// ```swift
    /// let name = "Ann"
    /// let predicate = try FetchPredicate(#Predicate<Article> { $0.rating > 3 && $0.author?.name == name })
    /// print(predicate.predicateFormat)   // rating > 3 AND author.name == "Ann"
    /// ```
    ///
    /// The "Typed requests and #Predicate" article lists what converts and
    /// into what. Where Swift's meaning and NSPredicate's differ, a converted
    /// predicate means what the Swift code says: `title.contains("")` is
    /// true, as Swift's `contains` answers (Kura's `CONTAINS ''` matches nothing).
    ///
    /// - Throws: ``KuraError/invalidPredicate(_:)`` naming the part that has
    ///   no meaning in the store (a regular expression, an index into an
    ///   array, arithmetic of two properties, a cast…): never a predicate
    ///   that answers something else.
    public init<Root: ManagedObject>(_ predicate: Predicate<Root>) throws {
        try self.init(converting: predicate.expression, root: predicate.variable.key, variables: [])
    }

    /// The predicate `expression` stands for, `root` reading the evaluated
    /// object and each of `variables` a template's `$variable`.
    init(converting expression: any PredicateExpression, root: PredicateExpressions.VariableID,
         variables: [(PredicateExpressions.VariableID, String)]) throws {
        var conversion = FoundationPredicateConversion()
        conversion.bind(root, to: .object(.root))
        for (variable, name) in variables { conversion.bind(variable, to: .variable(name)) }
        do {
            self.init(try conversion.condition(of: expression))
        } catch let unsupported as FoundationPredicateConversion.Unsupported {
            throw KuraError.invalidPredicate(unsupported.description)
        }
        try checkSyntax()
    }

    /// A predicate that throws `error` where it is used (a request's
    /// initializer can't throw).
    init(unconvertible error: any Error) {
        let reason: String
        if let error = error as? KuraError, error.code == .invalidPredicate || error.code == .invalidFetchRequest,
           let text = error.reason {
            reason = text
        } else {
            reason = "\(error)"
        }
        self.init(.constant(false), problem: .unconvertible(reason))
    }
}

/// The state of converting one Foundation `Predicate`: what each of its
/// variables stands for, and the names given to `SUBQUERY` variables.
struct FoundationPredicateConversion {
    /// What a variable of the predicate stands for: the evaluated object, a
    /// `SUBQUERY`'s member, or (inside `flatMap`) the value it unwraps.
    private var bindings: [PredicateExpressions.VariableID: Term] = [:]
    private var nextVariable = 1
    /// How many expressions enclose the one being converted (chains of
    /// `&&` or `||` count once: they are flat, as in the text).
    private var depth = 0

    /// How deep the conversion recurses before it stops: the text's limit
    /// (``FetchPredicate/maximumNesting``, which the converted predicate is
    /// held to exactly) and room for the key path and comparison below the
    /// innermost nesting. It keeps a hostile predicate from exhausting the stack.
    static let maximumDepth = FetchPredicate.maximumNesting + 16

    /// The object a key path starts from.
    enum Base: Equatable {
        /// The object being evaluated (`SELF`).
        case root
        /// A `SUBQUERY`'s member, by variable name.
        case bound(String)
    }

    /// What a part of the predicate computes, on the way to a Kura tree.
    indirect enum Term {
        /// A condition: a predicate.
        case condition(FetchPredicate.Node)
        /// A `Bool?` from `flatMap` over a condition: `value` where `defined`
        /// holds, else `nil`.
        case optionalCondition(FetchPredicate.Node, defined: FetchPredicate.Node)
        /// A Swift value, computed now (captured values, constants, what
        /// they make together).
        case constant(Any?)
        /// A template's `$variable`: a value given when a request is made.
        case variable(String)
        /// An object (the evaluated one, or a subquery's member).
        case object(Base)
        /// Properties from an object: to-ones, then an attribute or a relationship.
        case path(Base, [String], PathKind)
        /// The members of a to-many that match a condition.
        case subquery(Term, String, FetchPredicate.Node)
        /// A collection operator over a to-many path or a subquery.
        case aggregate(FetchPredicate.Aggregate, Term)
        /// How many characters a string property has.
        case length(Term)
        /// Arithmetic on two numbers.
        case arithmetic(FetchPredicate.ArithmeticOperator, Term, Term)
        /// `condition ? then : otherwise` (and `value ?? fallback`, as
        /// `value != nil ? value : fallback`).
        case conditional(FetchPredicate.Node, Term, Term)
        /// `lower...upper` or `lower..<upper`.
        case range(Term, Term, closed: Bool)
        /// `left.caseInsensitiveCompare(right)`: a `ComparisonResult`.
        case caseInsensitiveOrder(Term, Term)
    }

    /// What a key path ends at.
    enum PathKind {
        case value
        /// A Swift integer.
        case integer
        /// A `Double`: the store computes with it as Swift does.
        case floating
        /// A `Decimal`, which the store computes with as a `Double`.
        case inexact
        /// A `Float`: like ``inexact``, and NaN compares as in Swift.
        case float
        case string
        case toOne
        case toMany
        /// A list attribute (`[String]`): `contains` tests its elements.
        case list
        /// A composite attribute (see ``Composite``): its fields are read.
        case composite
    }

    /// An error naming the expression that has no meaning in the store.
    struct Unsupported: Error, CustomStringConvertible {
        let reason: String
        var isTooDeep = false
        var description: String { isTooDeep ? reason : "#Predicate: \(reason)" }

        init(reason: String) {
            self.reason = reason
        }

        /// A predicate nested deeper than text may be, with the text's message.
        static var tooDeep: Unsupported {
            var error = Unsupported(reason: "the predicate nests more than \(FetchPredicate.maximumNesting) levels deep")
            error.isTooDeep = true
            return error
        }
    }

    mutating func bind(_ variable: PredicateExpressions.VariableID, to term: Term) {
        bindings[variable] = term
    }

    func term(for variable: PredicateExpressions.VariableID) throws -> Term {
        guard let term = bindings[variable] else { throw Unsupported(reason: "a variable bound outside the predicate") }
        return term
    }

    /// A new name for a `SUBQUERY`'s variable.
    mutating func newVariableName() -> String {
        defer { nextVariable += 1 }
        return "x\(nextVariable)"
    }

    // MARK: Converting expressions

    /// The term `expression` computes: when it reads no variable, its
    /// value, computed now by Swift; else through its conversion.
    ///
    /// Generic, not over `any PredicateExpression`: a Foundation expression
    /// holds its parts inline, so putting a part in an existential copies
    /// the whole subtree (recursively, through the runtime's value
    /// witnesses: quadratic work in a long `&&` chain, and the stack of a
    /// small thread overflowed). A part is passed where it lies instead,
    /// and converted there (``KuraPredicateConvertible/convert(at:_:)``).
    mutating func term<Expression: PredicateExpression>(of expression: Expression) throws -> Term {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw Unsupported.tooDeep }
        // One cast per part, which every part that reads a variable needs:
        // a captured value (`== id`), the usual leaf, is then read where it
        // lies, not looked up as a type and evaluated through Foundation.
        let convertible = Expression.self as? any KuraPredicateConvertible.Type
        if let convertible, convertible.isCapturedValue {
            return try withUnsafePointer(to: expression) { try convertible.convert(at: UnsafeRawPointer($0), &self) }
        }
        if !Self.readsVariable(Expression.self), let value = try? expression.evaluate(PredicateBindings()) as Any {
            return .constant(AnyOptional.unwrapped(value))
        }
        guard let convertible else {
            throw Unsupported(reason: "\(Self.describe(expression)) can't be evaluated by the store")
        }
        return try withUnsafePointer(to: expression) { try convertible.convert(at: UnsafeRawPointer($0), &self) }
    }

    /// The predicate `expression` stands for (a condition, or a Boolean property).
    mutating func condition<Expression: PredicateExpression>(of expression: Expression) throws -> FetchPredicate.Node {
        try condition(from: try term(of: expression), describing: expression)
    }

    func condition(from term: Term, describing expression: some PredicateExpression) throws -> FetchPredicate.Node {
        switch term {
        case .condition(let node): return node
        case .optionalCondition(let node, let defined): return .and([defined, node])
        case .constant(let value as Bool): return .constant(value)
        case .path(_, _, .value), .path(_, _, .integer):
            return .comparison(try self.expression(of: term), .equal, .value(.bool(true)), [], .direct)
        case .conditional:
            return try condition(over: term) { try condition(from: $0, describing: expression) }
        default:
            throw Unsupported(reason: "\(Self.describe(expression)) is not a condition the store can test")
        }
    }

    /// The Kura expression of a term that is a value, an object, a key path,
    /// an aggregate or a subquery.
    func expression(of term: Term) throws -> FetchPredicate.Expression {
        switch term {
        case .constant(let value): return try Self.constant(value)
        case .variable(let name): return .variable(name)
        case .object(.root): return .evaluatedObject
        case .object(.bound(let name)): return .variable(name)
        case .path(.root, let components, _): return .key(components.joined(separator: "."))
        case .path(.bound(let name), let components, _): return .variableKeyPath(name, components.joined(separator: "."))
        case .aggregate(let aggregate, let collection):
            return .aggregate(aggregate, try expression(of: collection), nil)
        case .subquery(let collection, let name, let node):
            return .subquery(try expression(of: collection), name, FetchPredicate(node))
        case .condition, .optionalCondition:
            throw Unsupported(reason: "a condition used as a value (compare it with true or false in code instead)")
        case .length:
            throw Unsupported(reason: "a string's count is only compared with a number")
        case .arithmetic(let operation, let left, let right):
            return .arithmetic(operation, try expression(of: left), try expression(of: right))
        case .conditional:
            throw Unsupported(reason: "?? and ?: are only compared with a value")
        case .range:
            throw Unsupported(reason: "a range is only tested with contains")
        case .caseInsensitiveOrder:
            throw Unsupported(reason: "caseInsensitiveCompare is only compared with a ComparisonResult")
        }
    }

    /// Whether an expression of `type` reads a variable (the evaluated
    /// object, a template's, a closure's): whether a `Variable` expression
    /// is among its parts. (Evaluating can't tell: an unbound optional
    /// variable evaluates to `nil`.) The type holds the tree's shape, so
    /// the answer is told from the types of its stored parts, read from
    /// the runtime's field records (no value copied, no type name
    /// printed), walked with a list rather than by recursion, and kept for
    /// every type met: each type is looked at once per process.
    static func readsVariable(_ type: Any.Type) -> Bool {
        if let known = variableReaders.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        var found: [ObjectIdentifier: Bool] = [:]
        func known(_ type: Any.Type) -> Bool? {
            found[ObjectIdentifier(type)] ?? variableReaders.withLock { $0[ObjectIdentifier(type)] }
        }
        func parts(of type: Any.Type) -> [Any.Type] {
            var parts: [Any.Type] = []
            _ = _forEachField(of: type, options: []) { _, _, field, _ in
                if field is any PredicateExpression.Type { parts.append(field) }
                return true
            }
            return parts
        }
        // Depth first, each type answered once its parts are.
        var pending: [(type: Any.Type, partsAnswered: Bool)] = [(type, false)]
        while let (next, partsAnswered) = pending.popLast() {
            if known(next) != nil { continue }
            if next is any PredicateVariableExpression.Type {
                found[ObjectIdentifier(next)] = true
            } else if partsAnswered {
                found[ObjectIdentifier(next)] = parts(of: next).contains { known($0) == true }
            } else {
                pending.append((next, true))
                for part in parts(of: next) where known(part) == nil { pending.append((part, false)) }
            }
        }
        variableReaders.withLock { $0.merge(found) { old, _ in old } }
        return found[ObjectIdentifier(type)] ?? false
    }

    private static let variableReaders = Mutex<[ObjectIdentifier: Bool]>([:])

    /// A Swift value as a Kura constant: attribute values, objects and
    /// object IDs, enums by their raw values, arrays and sets of those.
    static func constant(_ value: Any?) throws -> FetchPredicate.Expression {
        guard let value = value.map(AnyOptional.unwrapped) ?? nil else { return .value(nil) }
        // The usual constant first: each case below is a cast.
        if let string = value as? String { return .value(.string(string)) }
        switch value {
        case let object as ManagedObject: return .object(object.objectID.uriRepresentation)
        case let id as ObjectID: return .object(id.uriRepresentation)
        case let character as Character: return .value(.string(String(character)))
        case let text as Substring: return .value(.string(String(text)))
        case let string as String: return .value(.string(string))
        // An array is a list of values (`[1, 2].contains(…)`), though a
        // list attribute's type stores one whole.
        case let sequence as any Sequence where value is any AttributeList:
            return .list(try sequence.map { try constant($0) })
        case let convertible as any AttributeValueConvertible: return .value(convertible.comparisonValue)
        case let raw as any RawRepresentable: return try constant(raw.rawValue)
        case let sequence as any Sequence:
            return .list(try sequence.map { try constant($0) })
        default:
            if let expression = try? PredicateArguments.expression(from: value) { return expression }
            throw Unsupported(reason: "the value \(value) (\(type(of: value))) is not one a store keeps")
        }
    }

    /// An expression as people can find it in their code: Foundation's
    /// description, its key paths by property name (`\Article.rating`).
    static func describe(_ expression: any PredicateExpression) -> String {
        var text = String(describing: expression)
        for (raw, readable) in keyPathNames(in: expression) {
            text = text.replacingOccurrences(of: raw, with: readable)
        }
        return text.count > 200 ? String(text.prefix(197)) + "…" : text
    }

    /// The key paths of `expression` and its parts: each one's description
    /// and its readable form.
    private static func keyPathNames(in expression: any PredicateExpression) -> [(String, String)] {
        var found: [(String, String)] = []
        if let keyPath = expression as? any ReadableKeyPathExpression { found.append(keyPath.readableKeyPath) }
        for child in Mirror(reflecting: expression).children {
            if let part = child.value as? any PredicateExpression { found += keyPathNames(in: part) }
        }
        return found
    }
}

/// Foundation's `Variable` expression, whatever its output type.
protocol PredicateVariableExpression {}

extension PredicateExpressions.Variable: PredicateVariableExpression {}

/// A key path expression, which can say which property it reads.
protocol ReadableKeyPathExpression {
    /// Its key path's description, and the key path by property names.
    var readableKeyPath: (String, String) { get }
}

/// A Foundation predicate expression Kura converts (see
/// ``FoundationPredicateConversion``). The conformances are conditional:
/// an expression converts when every part of it does.
protocol KuraPredicateConvertible: PredicateExpression {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term
    /// True for Foundation's `Value`, a constant the predicate captured.
    static var isCapturedValue: Bool { get }
}

extension KuraPredicateConvertible {
    static var isCapturedValue: Bool { false }

    /// Converts the expression of this type at `address`, where it lies
    /// (see ``FoundationPredicateConversion/term(of:)``).
    static func convert(at address: UnsafeRawPointer, _ conversion: inout FoundationPredicateConversion) throws
        -> FoundationPredicateConversion.Term {
        try address.assumingMemoryBound(to: Self.self).pointee.convert(&conversion)
    }
}
