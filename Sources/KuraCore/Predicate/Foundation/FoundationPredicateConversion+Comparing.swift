import Foundation

// Comparisons of converted terms, and the rewrites that give Swift's
// expressions a meaning the store can evaluate: `??`, `?:`, arithmetic on
// one property, a string's count, string searches with Swift's meaning of
// the empty string.
extension FoundationPredicateConversion {
    /// `left op right` as a predicate.
    func compare(_ left: Term, _ operation: FetchPredicate.Operator, _ right: Term,
                 describing expression: any PredicateExpression) throws -> FetchPredicate.Node {
        if case .conditional = left {
            return try condition(over: left) { try compare($0, operation, right, describing: expression) }
        }
        if case .conditional = right {
            return try condition(over: right) { try compare(left, operation, $0, describing: expression) }
        }
        switch (left, right) {
        case (.constant(let a), .constant(let b)):
            if let holds = Self.folded(a, operation, b) { return .constant(holds) }
        case (.constant, .arithmetic), (.variable, .arithmetic), (_, .length), (.constant, .condition), (.constant, .optionalCondition):
            guard let mirrored = operation.mirrored else { break }
            return try compare(right, mirrored, left, describing: expression)
        case (.length(let term), .constant(nil)):
            // `x.count` is nil where x is.
            return try compare(term, operation, right, describing: expression)
        case (.arithmetic(let arithmetic, let a, let b), .constant(let value)):
            if let solved = try solved(a, arithmetic, b, operation, value, describing: expression) { return solved }
        case (.length, .constant(let value)):
            guard let count = value as? Int else { break }
            return try lengthCondition(left, operation, count)
        case (.optionalCondition(let node, let defined), .constant(let value as Bool)) where operation == .equal || operation == .notEqual:
            let holds = Self.all([defined, value ? node : .not(node)])
            return operation == .equal ? holds : Self.not(holds)
        case (.caseInsensitiveOrder(let a, let b), .constant(let value as ComparisonResult)) where operation == .equal || operation == .notEqual:
            // a.caseInsensitiveCompare(b) == .orderedAscending  ⟺  a <[c] b
            let order: FetchPredicate.Operator = switch value {
            case .orderedAscending: .less
            case .orderedSame: .equal
            case .orderedDescending: .greater
            }
            let holds = FetchPredicate.Node.comparison(try self.expression(of: a), order, try self.expression(of: b), [.caseInsensitive], .direct)
            return operation == .equal ? holds : Self.not(holds)
        case (.condition(let node), .constant(let value as Bool)) where operation == .equal || operation == .notEqual:
            return (value == (operation == .equal)) ? node : Self.not(node)
        case (.condition, .constant(nil)), (.subquery, .constant(nil)), (.aggregate, .constant(nil)), (.object, .constant(nil)):
            // What is never nil.
            if operation == .equal || operation == .notEqual { return .constant(operation == .notEqual) }
        default:
            break
        }
        do {
            let comparison = FetchPredicate.Node.comparison(try self.expression(of: left), operation, try self.expression(of: right), [], .direct)
            return try withSwiftNaN(comparison, left, operation, right)
        } catch let unsupported as Unsupported {
            throw Unsupported(reason: "\(Self.describe(expression)): \(unsupported.reason)")
        }
    }

    // MARK: NaN

    /// `comparison` (`left op right`) with Swift's meaning of NaN: it
    /// compares false with everything, itself included, and `!=` true. The
    /// store orders NaN as a value (equal to itself, above every number:
    /// what sorting and indexes need), so where a side can be NaN and the
    /// store's answer would differ, the comparison is guarded with
    /// `side != NaN` (which the store answers false for NaN alone), and a
    /// comparison with a NaN known now is decided now.
    func withSwiftNaN(_ comparison: FetchPredicate.Node, _ left: Term, _ operation: FetchPredicate.Operator,
                      _ right: Term) throws -> FetchPredicate.Node {
        guard [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(operation) else { return comparison }
        if Self.isNaNConstant(left) || Self.isNaNConstant(right) { return .constant(operation == .notEqual) }
        // `x == NaN` holds for NaN alone in the store, `x != NaN` for all else.
        func nan(_ term: Term, _ test: FetchPredicate.Operator) throws -> FetchPredicate.Node {
            .comparison(try expression(of: term), test, .value(.double(.nan)), [], .direct)
        }
        // A template's variable can be given NaN where it is compared with a floating-point side.
        var (leftMay, rightMay) = (Self.mayBeNaN(left), Self.mayBeNaN(right))
        if case .variable = left, rightMay { leftMay = true }
        if case .variable = right, leftMay { rightMay = true }
        switch operation {
        // One NaN side already compares unequal to a number; two are equal to the store.
        case .equal: return leftMay && rightMay ? Self.all([comparison, try nan(left, .notEqual)]) : comparison
        case .notEqual: return leftMay && rightMay ? Self.any([comparison, try nan(left, .equal)]) : comparison
        // NaN is above every number to the store: only a NaN on the greater side is wrongly true.
        case .greater, .greaterOrEqual: return leftMay ? Self.all([comparison, try nan(left, .notEqual)]) : comparison
        default: return rightMay ? Self.all([comparison, try nan(right, .notEqual)]) : comparison
        }
    }

    /// True for a `Double` or `Float` property, or arithmetic that can give
    /// NaN (anything but integers).
    static func mayBeNaN(_ term: Term) -> Bool {
        switch term {
        case .path(_, _, .floating), .path(_, _, .float): true
        case .arithmetic: !givesIntegers(term)
        default: false
        }
    }

    static func isNaNConstant(_ term: Term) -> Bool {
        switch term {
        case .constant(let value as Double): value.isNaN
        case .constant(let value as Float): value.isNaN
        default: false
        }
    }

    /// Whether `a op b` holds, for two values known now; `nil` when the
    /// store's comparison is to decide (strings, dates…).
    static func folded(_ a: Any?, _ operation: FetchPredicate.Operator, _ b: Any?) -> Bool? {
        switch (a, b) {
        case (nil, nil): return operation == .equal || operation == .notEqual ? operation == .equal : false
        case (nil, _), (_, nil): return operation == .equal || operation == .notEqual ? operation == .notEqual : false
        case (let a as Bool, let b as Bool):
            return operation == .equal || operation == .notEqual ? (a == b) == (operation == .equal) : nil
        default:
            guard let a = number(a), let b = number(b) else { return nil }
            return holds(order(a, b), operation)
        }
    }

    // MARK: ?? and ?:

    /// `transform` of a term that may be `c ? a : b` (what `??` becomes
    /// too), applied in each branch: `(c ? a : b) × 2` is `c ? a × 2 : b × 2`.
    func lifted(_ term: Term, _ transform: (Term) throws -> Term) throws -> Term {
        guard case .conditional(let test, let then, let otherwise) = term else { return try transform(term) }
        return .conditional(test, try lifted(then, transform), try lifted(otherwise, transform))
    }

    /// The condition `body` makes of a term that may be `c ? a : b`, made
    /// in each branch: `(c ? a : b) > 1` is `(c AND a > 1) OR (NOT c AND b > 1)`.
    func condition(over term: Term, _ body: (Term) throws -> FetchPredicate.Node) throws -> FetchPredicate.Node {
        guard case .conditional(let test, let then, let otherwise) = term else { return try body(term) }
        return Self.any([
            Self.all([test, try condition(over: then, body)]),
            Self.all([Self.not(test), try condition(over: otherwise, body)]),
        ])
    }

    /// `value ?? fallback`: `value != nil ? value : fallback`.
    func coalesce(_ value: Term, _ fallback: Term, describing expression: any PredicateExpression) throws -> Term {
        switch value {
        case .constant(nil): return fallback
        case .constant: return value
        case .optionalCondition(let node, let defined): return .conditional(defined, .condition(node), fallback)
        default: return .conditional(try compare(value, .notEqual, .constant(nil), describing: expression), value, fallback)
        }
    }

    // MARK: Simplifying

    /// The AND of `nodes`, without what is known now.
    static func all(_ nodes: [FetchPredicate.Node]) -> FetchPredicate.Node {
        if nodes.contains(where: { if case .constant(false) = $0 { true } else { false } }) { return .constant(false) }
        return .and(flat: nodes.filter { if case .constant(true) = $0 { false } else { true } })
    }

    /// The OR of `nodes`, without what is known now.
    static func any(_ nodes: [FetchPredicate.Node]) -> FetchPredicate.Node {
        if nodes.contains(where: { if case .constant(true) = $0 { true } else { false } }) { return .constant(true) }
        return .or(flat: nodes.filter { if case .constant(false) = $0 { false } else { true } })
    }

    static func not(_ node: FetchPredicate.Node) -> FetchPredicate.Node {
        if case .constant(let value) = node { return .constant(!value) }
        return .not(node)
    }

    /// `string CONTAINS part` or `string BEGINSWITH part`, meaning what
    /// Swift's `contains` and `starts(with:)` mean: the empty string is
    /// part and prefix of every string (NSPredicate's operators match no
    /// object for it).
    func stringSearch(_ string: Term, _ operation: FetchPredicate.Operator, _ part: Term,
                      describing expression: any PredicateExpression) throws -> FetchPredicate.Node {
        try condition(over: string) { string in
            try condition(over: part) { part in
                try plainStringSearch(string, operation, part, describing: expression)
            }
        }
    }

    private func plainStringSearch(_ string: Term, _ operation: FetchPredicate.Operator, _ part: Term,
                                   describing expression: any PredicateExpression) throws -> FetchPredicate.Node {
        let part: Term = if case .constant(let character as Character) = part { .constant(String(character)) } else { part }
        if case .constant(let text as String) = string, case .constant(let fixed as String) = part {
            return .constant(operation == .beginsWith ? text.starts(with: fixed) : text.contains(fixed))
        }
        let search = FetchPredicate.Node.comparison(try self.expression(of: string), operation, try self.expression(of: part), [], .direct)
        switch part {
        case .variable(let name):
            // An empty string is part of every string in Swift, and of none
            // in the store: the value given decides, so it must be known now.
            throw Unsupported(reason: "\(Self.describe(expression)): the string searched for can't be a template's variable ($\(name)); "
                + "capture the value in a #Predicate of its own instead")
        case .constant(let value as String) where value.isEmpty:
            return try compare(string, .notEqual, .constant(nil), describing: expression)
        case .constant:
            return search
        default:
            return Self.any([try compare(part, .equal, .constant(""), describing: expression), search])
        }
    }

    /// `string.count op count`, as `LIKE` patterns of `?` (one character
    /// each, as Swift counts them): `count > 2` is `LIKE "???*"`.
    private func lengthCondition(_ string: Term, _ operation: FetchPredicate.Operator, _ count: Int) throws -> FetchPredicate.Node {
        guard case .length(let path) = string else { preconditionFailure("a length term") }
        guard count <= Self.longestCountedString else {
            throw Unsupported(reason: "a string's count is compared with numbers up to \(Self.longestCountedString)")
        }
        let property = try self.expression(of: path)
        func atLeast(_ n: Int) -> FetchPredicate.Node {
            n <= 0 ? .comparison(property, .notEqual, .value(nil), [], .direct)
                : .comparison(property, .like, .value(.string(String(repeating: "?", count: n) + "*")), [], .direct)
        }
        func exactly(_ n: Int) -> FetchPredicate.Node {
            n < 0 ? .constant(false) : .comparison(property, .like, .value(.string(String(repeating: "?", count: n))), [], .direct)
        }
        let defined = FetchPredicate.Node.comparison(property, .notEqual, .value(nil), [], .direct)
        switch operation {
        case .equal: return exactly(count)
        case .notEqual: return .and(flat: [defined, .not(exactly(count))])
        case .greater: return atLeast(count + 1)
        case .greaterOrEqual: return atLeast(count)
        case .less: return .and(flat: [defined, .not(atLeast(count))])
        case .lessOrEqual: return .and(flat: [defined, .not(atLeast(count + 1))])
        default: throw Unsupported(reason: "a string's count is compared with ==, !=, <, <=, > or >=")
        }
    }

    /// The most characters a count is compared with (each is a `?` of a pattern).
    static let longestCountedString = 10_000

    /// `ANY members.key op value` (or `ALL`) for a subquery whose test is
    /// one comparison of a property of its member with what doesn't read
    /// the member: the same meaning, in the form the planner searches
    /// through relationships with. `nil` for any other subquery. (Only one
    /// property: through another to-many, `ALL` would quantify its members too.)
    func quantified(_ subquery: Term, _ quantifier: FetchPredicate.Quantifier) -> FetchPredicate.Node? {
        guard case .subquery(.path(let base, let components, .toMany), let name, let test) = subquery,
              case .comparison(.variableKeyPath(name, let memberPath), let operation, let right, let options, .direct) = test,
              !memberPath.contains(".")
        else { return nil }
        var readsMember = false
        FetchPredicate.Node.comparison(.value(nil), .equal, right, [], .direct).forEachExpression { expression in
            switch expression {
            case .variable(name), .variableKeyPath(name, _): readsMember = true
            default: break
            }
        }
        guard !readsMember else { return nil }
        let path = (components + [memberPath]).joined(separator: ".")
        let left: FetchPredicate.Expression = switch base {
        case .root: .key(path)
        case .bound(let outer): .variableKeyPath(outer, path)
        }
        return .comparison(left, operation, right, options, quantifier)
    }

    /// The members of a to-many `sequence` that pass `test`, `test` reading
    /// the member as `variable`.
    mutating func subquery(
        of sequence: any PredicateExpression, variable: PredicateExpressions.VariableID, test: any PredicateExpression,
        describing expression: any PredicateExpression
    ) throws -> Term {
        let members = try term(of: sequence)
        switch members {
        case .path(_, _, .toMany), .subquery: break
        default:
            throw Unsupported(reason: "\(Self.describe(expression)) tests the members of what isn't a to-many relationship")
        }
        let name = newVariableName()
        bind(variable, to: .object(.bound(name)))
        let condition = try self.condition(of: test)
        return .subquery(members, name, condition)
    }

    // MARK: Values

    /// A number of any Swift numeric type, as a `Double`.
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let number as Double: number
        case let number as Float: Double(number)
        case let number as Decimal: NSDecimalNumber(decimal: number).doubleValue
        case let number as any BinaryInteger: Double(number)
        case let number as any BinaryFloatingPoint: Double(number)
        default: nil
        }
    }

    static func order(_ a: Double, _ b: Double) -> Int { a < b ? -1 : (a == b ? 0 : 1) }

    static func holds(_ order: Int, _ operation: FetchPredicate.Operator) -> Bool {
        switch operation {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        default: false
        }
    }


    /// What a key path of `type` ends at.
    static func pathKind(of type: Any.Type) -> PathKind {
        if let relationship = type as? any RelationshipValue.Type { return relationship.isToMany ? .toMany : .toOne }
        let value = AnyOptional.unwrappedType(type)
        if value == String.self { return .string }
        if value is any AttributeList.Type { return .list }
        if value is any BinaryInteger.Type { return .integer }
        if CompositeFields.registered(value) != nil && !(value is any AttributeValueConvertible.Type) { return .composite }
        if value == Double.self { return .floating }
        if value is any BinaryFloatingPoint.Type { return .float }
        if value == Decimal.self { return .inexact }
        return .value
    }

    /// The class of `type` when it is an optional managed object (`Author?`).
    static func wrappedObjectType(_ type: Any.Type) -> ManagedObject.Type? {
        (type as? any RelationshipValue.Type).map { $0.destinationType }
    }
}

extension RelationshipValue {
    /// ``Destination``, as a value.
    static var destinationType: ManagedObject.Type { Destination.self }
}
