import Foundation

// Comparisons of converted terms, and the rewrites that give Swift's
// expressions a meaning the store can evaluate: `??`, `?:`, arithmetic on
// one property, a string's count, string searches with Swift's meaning of
// the empty string.
extension FoundationPredicateConversion {
    /// `left op right` as a predicate.
    func compare(_ left: Term, _ operation: FetchPredicate.Operator, _ right: Term,
                 describing expression: any PredicateExpression) throws -> FetchPredicate.Node {
        switch (left, right) {
        case (.coalesce(let value, let fallback), _):
            // (value != nil AND value op right) OR (value == nil AND fallback op right)
            let defined = try compare(value, .notEqual, .constant(nil), describing: expression)
            return .or(flat: [
                .and(flat: [defined, try compare(value, operation, right, describing: expression)]),
                .and(flat: [.not(defined), try compare(fallback, operation, right, describing: expression)]),
            ])
        case (_, .coalesce), (_, .conditional), (_, .linear), (_, .length):
            guard let mirrored = Self.mirrored(operation) else { break }
            return try compare(right, mirrored, left, describing: expression)
        case (.conditional(let test, let then, let otherwise), _):
            return .or(flat: [
                .and(flat: [test, try compare(then, operation, right, describing: expression)]),
                .and(flat: [.not(test), try compare(otherwise, operation, right, describing: expression)]),
            ])
        case (.linear(let term, let scale, let offset), .constant(let value)):
            // scale × term + offset op value  ⟺  term op' (value − offset) / scale
            guard let number = Self.number(value) else { break }
            if scale == 0 { return .constant(Self.holds(Self.order(offset, number), operation)) }
            let bound = (number - offset) / scale
            let flipped = scale < 0 ? Self.mirrored(operation) ?? operation : operation
            return try compare(term, flipped, .constant(bound), describing: expression)
        case (.length(let string), .constant(let value)):
            guard let count = value as? Int else { break }
            return try lengthCondition(string, operation, count)
        case (.optionalCondition(let node, let defined), .constant(let value as Bool)) where operation == .equal || operation == .notEqual:
            let holds: FetchPredicate.Node = .and(flat: [defined, value ? node : .not(node)])
            return operation == .equal ? holds : .not(holds)
        case (.condition(let node), .constant(let value as Bool)) where operation == .equal || operation == .notEqual:
            return (value == (operation == .equal)) ? node : .not(node)
        default:
            break
        }
        return .comparison(try self.expression(of: left), operation, try self.expression(of: right), [], .direct)
    }

    /// `string CONTAINS part` or `string BEGINSWITH part`, meaning what
    /// Swift's `contains` and `starts(with:)` mean: the empty string is
    /// part and prefix of every string (NSPredicate's operators match no
    /// object for it).
    func stringSearch(_ string: Term, _ operation: FetchPredicate.Operator, _ part: Term,
                      describing expression: any PredicateExpression) throws -> FetchPredicate.Node {
        let search = FetchPredicate.Node.comparison(try self.expression(of: string), operation, try self.expression(of: part), [], .direct)
        switch part {
        case .constant(let value as String) where value.isEmpty:
            return try compare(string, .notEqual, .constant(nil), describing: expression)
        case .constant(let value as Character):
            return .comparison(try self.expression(of: string), operation, .value(.string(String(value))), [], .direct)
        case .constant:
            return search
        default:
            return .or(flat: [try compare(part, .equal, .constant(""), describing: expression), search])
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

    /// `left + right` (`sign` 1) or `left − right` (`sign` −1), where at
    /// most one side reads a property.
    func linear(_ left: Term, plus right: Term, sign: Double, describing expression: any PredicateExpression) throws -> Term {
        switch (left, right) {
        case (_, .constant(let value)):
            guard let number = Self.number(value) else { break }
            let (term, scale, offset) = try linearParts(left, describing: expression)
            return .linear(term, scale: scale, offset: offset + sign * number)
        case (.constant(let value), _):
            guard let number = Self.number(value) else { break }
            let (term, scale, offset) = try linearParts(right, describing: expression)
            return .linear(term, scale: sign * scale, offset: number + sign * offset)
        default:
            break
        }
        throw Unsupported(reason: "\(Self.describe(expression)): arithmetic of two properties has no meaning in the store")
    }

    /// `left × right`, where one side is a number.
    func linear(_ left: Term, times right: Term, describing expression: any PredicateExpression) throws -> Term {
        let (value, factor): (Term, Double)
        if case .constant(let constant) = right, let number = Self.number(constant) {
            (value, factor) = (left, number)
        } else if case .constant(let constant) = left, let number = Self.number(constant) {
            (value, factor) = (right, number)
        } else {
            throw Unsupported(reason: "\(Self.describe(expression)): a property can only be multiplied by a number")
        }
        let (term, scale, offset) = try linearParts(value, describing: expression)
        return .linear(term, scale: scale * factor, offset: offset * factor)
    }

    private func linearParts(_ term: Term, describing expression: any PredicateExpression) throws -> (Term, Double, Double) {
        switch term {
        case .linear(let inner, let scale, let offset): return (inner, scale, offset)
        case .path, .aggregate: return (term, 1, 0)
        default: throw Unsupported(reason: "\(Self.describe(expression)): arithmetic on what isn't a number property")
        }
    }

    /// The members of a to-many `sequence` that pass `test` (or fail it,
    /// `negated`), `test` reading the member as `variable`.
    mutating func subquery(
        of sequence: any PredicateExpression, variable: PredicateExpressions.VariableID, test: any PredicateExpression,
        negated: Bool, describing expression: any PredicateExpression
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
        return .subquery(members, name, negated ? .not(condition) : condition)
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

    static func mirrored(_ operation: FetchPredicate.Operator) -> FetchPredicate.Operator? {
        switch operation {
        case .equal, .notEqual: operation
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }

    /// What a key path of `type` ends at.
    static func pathKind(of type: Any.Type) -> PathKind {
        if type == String.self || type == String?.self { return .string }
        if let relationship = type as? any RelationshipValue.Type { return relationship.isToMany ? .toMany : .toOne }
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
