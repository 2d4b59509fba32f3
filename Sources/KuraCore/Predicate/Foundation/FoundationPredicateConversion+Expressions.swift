import Foundation

// How each of Foundation's predicate expressions becomes a Kura term.
// (Parts that read no variable are computed in advance instead:
// ``FoundationPredicateConversion/term(of:)``.)

extension PredicateExpressions.Value: KuraPredicateConvertible {
    static var isCapturedValue: Bool { true }

    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .constant(AnyOptional.unwrapped(value))
    }
}

extension PredicateExpressions.NilLiteral: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .constant(nil)
    }
}

extension PredicateExpressions.Variable: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        try conversion.term(for: key)
    }
}

extension PredicateExpressions.KeyPath: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let base = try conversion.term(of: root)
        if let kind {
            return try conversion.lifted(base) { try Self.collectionProperty(kind, of: $0, self) }
        }
        if case .path(let origin, let components, .composite) = base {
            // A field of a composite value: `$0.address.city`.
            guard let field = CompositeProbe.fieldPath(of: keyPath, in: Root.Output.self) else {
                throw FoundationPredicateConversion.Unsupported(reason: "\(readableKeyPath.1) is not a stored field of a composite attribute")
            }
            return .path(origin, components + [field], FoundationPredicateConversion.pathKind(of: Output.self))
        }
        guard let type = Self.objectType, let names = PropertyKeyPathNames.propertyNames(of: keyPath, root: type), names.count == 1 else {
            throw FoundationPredicateConversion.Unsupported(reason: "\(readableKeyPath.1) is not a stored property (only @Attribute and @Relationship properties are in the store)")
        }
        let name = names[0]
        let kind = FoundationPredicateConversion.pathKind(of: Output.self)
        switch base {
        case .object(let origin): return .path(origin, [name], kind)
        case .path(let origin, let components, .toOne): return .path(origin, components + [name], kind)
        default:
            throw FoundationPredicateConversion.Unsupported(reason: "\(FoundationPredicateConversion.describe(self)) reads a property of what isn't an object")
        }
    }

    /// The managed object class the key path starts from, if it does.
    private static var objectType: ManagedObject.Type? {
        Root.Output.self as? ManagedObject.Type ?? FoundationPredicateConversion.wrappedObjectType(Root.Output.self)
    }

    /// `count`, `isEmpty`, `first`, `last` of a string or a to-many.
    private static func collectionProperty(
        _ kind: CommonKeyPathKind, of base: FoundationPredicateConversion.Term, _ expression: Self
    ) throws -> FoundationPredicateConversion.Term {
        switch (kind, base) {
        case (.collectionCount, .constant(let value as any Collection)): return .constant(value.count)
        case (.collectionIsEmpty, .constant(let value as any Collection)): return .constant(value.isEmpty)
        case (.collectionCount, .path(_, _, .string)): return .length(base)
        case (.collectionIsEmpty, .path(_, _, .string)):
            return .condition(.comparison(try FoundationPredicateConversion().expression(of: base), .equal, .value(.string("")), [], .direct))
        case (.collectionCount, .path(_, _, .toMany)), (.collectionCount, .subquery): return .aggregate(.count, base)
        case (.collectionIsEmpty, .path(_, _, .toMany)), (.collectionIsEmpty, .subquery):
            let count = try FoundationPredicateConversion().expression(of: .aggregate(.count, base))
            return .condition(.comparison(count, .equal, .value(.int(0)), [], .direct))
        default:
            throw FoundationPredicateConversion.Unsupported(
                reason: "\(FoundationPredicateConversion.describe(expression)): first and last have no order in the store; use sort descriptors")
        }
    }
}

extension PredicateExpressions.KeyPath: ReadableKeyPathExpression {
    var readableKeyPath: (String, String) {
        switch kind {
        case .collectionCount?: return ("\(keyPath)", ".count")
        case .collectionIsEmpty?: return ("\(keyPath)", ".isEmpty")
        case .collectionFirst?: return ("\(keyPath)", ".first")
        case .bidirectionalCollectionLast?: return ("\(keyPath)", ".last")
        default: break
        }
        guard let type = Self.objectType else {
            let field = CompositeProbe.fieldPath(of: keyPath, in: Root.Output.self) ?? "<a property of a value>"
            return ("\(keyPath)", "\\\(Root.Output.self).\(field)")
        }
        let names = PropertyKeyPathNames.propertyNames(of: keyPath, root: type)?.joined(separator: ".") ?? "<a computed property>"
        return ("\(keyPath)", "\\\(type).\(names)")
    }
}

/// `&&` or `||` of two expressions: a chain of one of them (`a && b && c`
/// nests in Swift's types) is converted as one flat list, without a
/// level of recursion per operand, as the text's `a AND b AND c` is flat.
protocol LogicalChainLink: PredicateExpression {
    static var isConjunction: Bool { get }
    /// The types of the two operands of the link at `address`, and where they lie.
    static func operands(at address: UnsafeRawPointer) -> [(any PredicateExpression.Type, UnsafeRawPointer)]
}

extension FoundationPredicateConversion {
    /// The conditions of the chain of `link`'s operator that `link` starts,
    /// in order, each converted where it lies in `link`.
    mutating func chainConditions<Link: LogicalChainLink>(_ link: Link) throws -> [FetchPredicate.Node] {
        try withUnsafePointer(to: link) { start in
            var pending = Link.operands(at: UnsafeRawPointer(start)).reversed() as [(any PredicateExpression.Type, UnsafeRawPointer)]
            var conditions: [FetchPredicate.Node] = []
            while let (type, address) = pending.popLast() {
                // (A link of captured values is flattened too: its operands
                // are then each computed now, which gives the same answer.)
                if let inner = type as? any LogicalChainLink.Type, inner.isConjunction == Link.isConjunction {
                    pending += inner.operands(at: address).reversed()
                } else {
                    conditions.append(try condition(ofExpressionOf: type, at: address))
                }
            }
            return conditions
        }
    }

    /// The condition the expression of `type` at `address` stands for.
    private mutating func condition<Expression: PredicateExpression>(
        ofExpressionOf type: Expression.Type, at address: UnsafeRawPointer
    ) throws -> FetchPredicate.Node {
        try condition(of: address.assumingMemoryBound(to: Expression.self).pointee)
    }
}

extension LogicalChainLink {
    /// The operands of a link whose stored parts are `lhs` and `rhs`.
    static func operands<LHS: PredicateExpression, RHS: PredicateExpression>(
        at address: UnsafeRawPointer, _ lhs: KeyPath<Self, LHS>, _ rhs: KeyPath<Self, RHS>
    ) -> [(any PredicateExpression.Type, UnsafeRawPointer)] {
        guard let left = MemoryLayout<Self>.offset(of: lhs), let right = MemoryLayout<Self>.offset(of: rhs) else {
            preconditionFailure("\(Self.self)'s operands are not stored properties")
        }
        return [(LHS.self, address + left), (RHS.self, address + right)]
    }
}

extension PredicateExpressions.Conjunction: KuraPredicateConvertible, LogicalChainLink {
    static var isConjunction: Bool { true }

    static func operands(at address: UnsafeRawPointer) -> [(any PredicateExpression.Type, UnsafeRawPointer)] {
        operands(at: address, \.lhs, \.rhs)
    }

    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .condition(.and(flat: try conversion.chainConditions(self)))
    }
}

extension PredicateExpressions.Disjunction: KuraPredicateConvertible, LogicalChainLink {
    static var isConjunction: Bool { false }

    static func operands(at address: UnsafeRawPointer) -> [(any PredicateExpression.Type, UnsafeRawPointer)] {
        operands(at: address, \.lhs, \.rhs)
    }

    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .condition(.or(flat: try conversion.chainConditions(self)))
    }
}

extension PredicateExpressions.Negation: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .condition(.not(try conversion.condition(of: wrapped)))
    }
}

extension PredicateExpressions.Equal: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .condition(try conversion.compare(try conversion.term(of: lhs), .equal, try conversion.term(of: rhs), describing: self))
    }
}

extension PredicateExpressions.NotEqual: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .condition(try conversion.compare(try conversion.term(of: lhs), .notEqual, try conversion.term(of: rhs), describing: self))
    }
}

extension PredicateExpressions.Comparison: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let operation: FetchPredicate.Operator = switch op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        }
        return .condition(try conversion.compare(try conversion.term(of: lhs), operation, try conversion.term(of: rhs), describing: self))
    }
}

extension PredicateExpressions.OptionalFlatMap: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let unwrapped = try conversion.term(of: wrapped)
        conversion.bind(variable.key, to: unwrapped)
        let result = try conversion.term(of: transform)
        switch result {
        case .path, .length, .arithmetic:
            // Read through what it unwraps: nil where that is (a key path
            // through a missing destination is nil already).
            return result
        case .condition(let node):
            let defined = try conversion.compare(unwrapped, .notEqual, .constant(nil), describing: self)
            return .optionalCondition(node, defined: defined)
        default:
            let defined = try conversion.compare(unwrapped, .notEqual, .constant(nil), describing: self)
            return .conditional(defined, result, .constant(nil))
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        try conversion.term(of: inner)
    }
}

extension PredicateExpressions.NilCoalesce: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        try conversion.coalesce(try conversion.term(of: lhs), try conversion.term(of: rhs), describing: self)
    }
}

extension PredicateExpressions.Conditional: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let test = try conversion.condition(of: test)
        let then = try conversion.term(of: trueBranch)
        let otherwise = try conversion.term(of: falseBranch)
        if case .constant(let holds) = test { return holds ? then : otherwise }
        return .conditional(test, then, otherwise)
    }
}

extension PredicateExpressions.Arithmetic: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let operation: FetchPredicate.ArithmeticOperator = switch op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        }
        return try conversion.arithmetic(operation, try conversion.term(of: lhs), try conversion.term(of: rhs), describing: self)
    }
}

extension PredicateExpressions.UnaryMinus: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let value = try conversion.term(of: wrapped)
        let minusOne: Any = Output.self is any BinaryInteger.Type ? -1 : -1.0
        return try conversion.arithmetic(.multiply, value, .constant(minusOne), describing: self)
    }
}

extension PredicateExpressions.FloatDivision: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        try conversion.arithmetic(.divide, try conversion.term(of: lhs), try conversion.term(of: rhs), describing: self)
    }
}

extension PredicateExpressions.IntRemainder: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        try conversion.arithmetic(.modulus, try conversion.term(of: lhs), try conversion.term(of: rhs), describing: self)
    }
}

extension PredicateExpressions.IntDivision: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        // Truncating division: (a − a % b) / b, exact below 2⁵³.
        let dividend = try conversion.term(of: lhs)
        let divisor = try conversion.term(of: rhs)
        let remainder = try conversion.arithmetic(.modulus, dividend, divisor, describing: self)
        let whole = try conversion.arithmetic(.subtract, dividend, remainder, describing: self)
        return try conversion.arithmetic(.divide, whole, divisor, describing: self)
    }
}

extension PredicateExpressions.ClosedRange: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .range(try conversion.term(of: lower), try conversion.term(of: upper), closed: true)
    }
}

extension PredicateExpressions.Range: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .range(try conversion.term(of: lower), try conversion.term(of: upper), closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let value = try conversion.term(of: element)
        var bounds = try conversion.term(of: range)
        if case .constant(let constant) = bounds {
            guard let constant = constant as? any KuraRangeBounds else {
                throw FoundationPredicateConversion.Unsupported(reason: "\(FoundationPredicateConversion.describe(self)): only closed and half-open ranges")
            }
            bounds = constant.kuraBounds
        }
        guard case .range(let lower, let upper, let closed) = bounds else {
            throw FoundationPredicateConversion.Unsupported(reason: "\(FoundationPredicateConversion.describe(self)): only closed and half-open ranges")
        }
        if closed, lower.isKnownValue, upper.isKnownValue {
            return .condition(.comparison(
                try conversion.expression(of: value), .between,
                .list([try conversion.expression(of: lower), try conversion.expression(of: upper)]), [], .direct))
        }
        return .condition(.and(flat: [
            try conversion.compare(value, .greaterOrEqual, lower, describing: self),
            try conversion.compare(value, closed ? .lessOrEqual : .less, upper, describing: self),
        ]))
    }
}

extension FoundationPredicateConversion.Term {
    /// A value known when the request is made: a constant or a template's variable.
    var isKnownValue: Bool {
        switch self {
        case .constant, .variable: true
        default: false
        }
    }
}

/// A range captured in a predicate, by its bounds.
protocol KuraRangeBounds {
    var kuraBounds: FoundationPredicateConversion.Term { get }
}

extension ClosedRange: KuraRangeBounds {
    var kuraBounds: FoundationPredicateConversion.Term { .range(.constant(lowerBound), .constant(upperBound), closed: true) }
}

extension Range: KuraRangeBounds {
    var kuraBounds: FoundationPredicateConversion.Term { .range(.constant(lowerBound), .constant(upperBound), closed: false) }
}

extension PredicateExpressions.SequenceContains: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        let collection = try conversion.term(of: sequence)
        let member = try conversion.term(of: element)
        let conversion = conversion
        return .condition(try conversion.condition(over: collection) { collection in
            try conversion.condition(over: member) { member in
                switch collection {
                case .path(_, _, .string), .constant(is String):
                    // A string's characters: `title.contains("a" as Character)`.
                    return try conversion.stringSearch(collection, .contains, member, describing: self)
                case .constant, .variable, .path(_, _, .toMany), .path(_, _, .list), .subquery:
                    // `contains` asks `==`: NaN is in no list, and no NaN in a list matches.
                    if FoundationPredicateConversion.isNaNConstant(member) { return .constant(false) }
                    var collection = collection
                    if case .constant(let values as any Sequence) = collection, !(values is String) {
                        let elements = values.map { $0 as Any }
                        let kept = elements.filter { !FoundationPredicateConversion.isNaNConstant(.constant($0)) }
                        if kept.count < elements.count { collection = .constant(kept) }
                    }
                    let contains = FetchPredicate.Node.comparison(
                        try conversion.expression(of: member), .in, try conversion.expression(of: collection), [], .direct)
                    guard FoundationPredicateConversion.mayBeNaN(member), case .path(_, _, .list) = collection else { return contains }
                    // A NaN property's value is in no list, though a list may hold NaN.
                    return FoundationPredicateConversion.all([
                        contains, .comparison(try conversion.expression(of: member), .notEqual, .value(.double(.nan)), [], .direct)])
                default:
                    throw FoundationPredicateConversion.Unsupported(
                        reason: "\(FoundationPredicateConversion.describe(self)) searches what isn't a list or a to-many")
                }
            }
        })
    }
}

extension PredicateExpressions.SequenceContainsWhere: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        // ANY: SUBQUERY(members, $x, test).@count > 0; ANY members.key op value
        // where the test is one comparison of the member's key path.
        let matches = try conversion.subquery(of: sequence, variable: variable.key, test: test, describing: self)
        if let quantified = conversion.quantified(matches, .any) { return .condition(quantified) }
        return .condition(.comparison(try conversion.expression(of: .aggregate(.count, matches)), .greater, .value(.int(0)), [], .direct))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        // ALL: no member fails the test (true for none); ALL members.key op
        // value where the test is one comparison of the member's key path.
        let passing = try conversion.subquery(of: sequence, variable: variable.key, test: test, describing: self)
        if let quantified = conversion.quantified(passing, .all) { return .condition(quantified) }
        guard case .subquery(let members, let name, let condition) = passing else { preconditionFailure("a subquery") }
        let failing = FoundationPredicateConversion.Term.subquery(members, name, .not(condition))
        return .condition(.comparison(try conversion.expression(of: .aggregate(.count, failing)), .equal, .value(.int(0)), [], .direct))
    }
}

extension PredicateExpressions.Filter: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        try conversion.subquery(of: sequence, variable: variable.key, test: filter, describing: self)
    }
}

extension PredicateExpressions.CollectionContainsCollection: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .condition(try conversion.stringSearch(try conversion.term(of: base), .contains, try conversion.term(of: other), describing: self))
    }
}

extension PredicateExpressions.SequenceStartsWith: KuraPredicateConvertible {
    func convert(_ conversion: inout FoundationPredicateConversion) throws -> FoundationPredicateConversion.Term {
        .condition(try conversion.stringSearch(try conversion.term(of: base), .beginsWith, try conversion.term(of: prefix), describing: self))
    }
}
