/// Two comparisons the compiler turns into something other than a value
/// comparison: a test of the entity (`entity == 'Video'`, a constant per
/// member of a family) and a test of a list attribute's elements
/// (`ANY tags == 'swift'`).
extension PredicateCompiler {
    /// A test of a list attribute's elements (``AttributeDescription/elementType``):
    /// `ANY`/`ALL`/`NONE tags op value`, `tags op value` (as `ANY`, as for a
    /// to-many), `value IN tags`, and `tags CONTAINS value` (membership, as
    /// NSPredicate's `CONTAINS` on a collection; `ANY tags CONTAINS 'x'`
    /// searches each string). `tags == nil` tests the list itself. `nil`
    /// when the comparison has no list attribute.
    mutating func listTest(
        _ left: FetchPredicate.Expression, _ operation: FetchPredicate.Operator, _ right: FetchPredicate.Expression,
        _ options: FetchPredicate.ComparisonOptions, _ quantifier: FetchPredicate.Quantifier
    ) throws -> CompiledNode? {
        guard case .evaluated = origin, scopes.isEmpty else { return nil }
        func list(_ expression: FetchPredicate.Expression) -> (number: Int, elementType: AttributeType)? {
            guard case .key(let key) = expression, let number = entity.attributeNumber(named: key),
                  let elementType = entity.attributes[number].elementType else { return nil }
            return (number, elementType)
        }
        var operation = operation
        var quantifier = quantifier
        var other = right
        let found: (number: Int, elementType: AttributeType)
        if let onLeft = list(left) {
            found = onLeft
            if quantifier == .direct {
                if case .value(nil) = right, operation == .equal || operation == .notEqual { return nil }
                if operation == .contains { operation = .equal }
                quantifier = .any
            }
        } else if let onRight = list(right), operation == .in, quantifier == .direct {
            found = onRight
            other = left
            operation = .equal
            quantifier = .any
        } else {
            return nil
        }
        let typedOther = try typed(other)
        if case .path = typedOther.operand {
            throw KuraError.invalidPredicate(
                "the elements of \(entity.name).\(entity.attributes[found.number].name) are compared with values or attributes of the same object")
        }
        let element = AttributeDescription(name: entity.attributes[found.number].name, type: found.elementType, isOptional: true)
        var comparison = CompiledComparison(
            left: .attribute(found.number), operation: operation, right: typedOther.operand, options: [],
            pattern: nil, likePattern: nil, regularExpression: nil, quantifier: quantifier, followsRelationships: false)
        comparison.right = try coerceGraph(comparison.right, to: element, operation: operation, isLeft: false)
        if found.elementType.isTextual { comparison.options = options.subtracting(.normalized) }
        comparison.listElementType = found.elementType
        try comparison.preparePatterns()
        return .comparison(comparison)
    }

    /// `entity == 'Video'` (or `entity.name`, `!=`, `IN {…}`, either side),
    /// for an entity with no property called `entity`: a constant for the
    /// entity compiled for (true when it is named, exactly: its sub-entities
    /// are not). A fetch across sub-entities compiles its predicate for each
    /// of them, so each gets its answer. `nil` when the comparison is no
    /// such test.
    func entityTest(
        _ left: FetchPredicate.Expression, _ operation: FetchPredicate.Operator, _ right: FetchPredicate.Expression
    ) throws -> CompiledNode? {
        guard case .evaluated = origin, scopes.isEmpty,
              entity.attributeNumber(named: "entity") == nil, entity.relationship(named: "entity") == nil else { return nil }
        func isEntityKey(_ expression: FetchPredicate.Expression) -> Bool {
            if case .key(let key) = expression { return key == "entity" || key == "entity.name" }
            return false
        }
        let named: FetchPredicate.Expression
        if isEntityKey(left) { named = right } else if isEntityKey(right), operation != .in { named = left } else { return nil }
        func name(_ expression: FetchPredicate.Expression) throws -> String {
            guard case .value(.string(let name)?) = expression else {
                throw KuraError.invalidPredicate("entity is compared with an entity's name, as a string ('Video')")
            }
            // Any member of the family: a fetch across sub-entities compiles
            // the predicate for each of them.
            let family = entity.family?.members.map(\.entity.name) ?? [entity.name]
            guard family.contains(name) else {
                throw KuraError.invalidPredicate(
                    "entity == '\(name)': \(name) is not \(entity.name)\(family.count > 1 ? " or an entity of its family" : "")")
            }
            return name
        }
        switch operation {
        case .equal: return .constant(try name(named) == entity.name)
        case .notEqual: return .constant(try name(named) != entity.name)
        case .in:
            guard case .list(let elements) = named else { return nil }
            return .constant(try elements.map(name).contains(entity.name))
        default:
            throw KuraError.invalidPredicate("entity can be compared with ==, != or IN, not \(operation.rawValue)")
        }
    }
}
