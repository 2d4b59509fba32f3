import Foundation

extension FetchPredicate {
    /// Checks the predicate against `entity` and compiles it.
    ///
    /// - Parameter allowingVariables: True for templates: `$variables` stay,
    ///   and what each must be is recorded. Otherwise a variable is
    ///   ``KuraError/missingSubstitutionVariable(_:)``.
    /// - Throws: ``PredicateSyntaxError`` for a literal that didn't parse;
    ///   ``KuraError/unknownAttribute(entity:key:)``,
    ///   ``KuraError/typeMismatch(entity:key:expected:found:)``,
    ///   ``KuraError/invalidPredicate(_:)``,
    ///   ``KuraError/invalidRegularExpression(pattern:reason:)``.
    func compiled(for entity: EntityDescription, allowingVariables: Bool = false) throws -> CompiledPredicate {
        try checkSyntax()
        var compiler = PredicateCompiler(entity: entity, allowsVariables: allowingVariables)
        let root = try compiler.compile(root)
        return CompiledPredicate(entity: entity, root: root, variables: compiler.variables)
    }
}

extension FetchPredicate {
    /// A property of dictionary results, as an operand: a key path (or an
    /// aggregate) from an object of `entity`.
    static func propertyOperand(_ property: String, of entity: EntityDescription) throws -> Operand {
        var parser = PredicateParser(format: "%K == nil", arguments: [property])
        guard case .comparison(let expression, _, _, _, _) = try parser.parse() else {
            throw KuraError.invalidPredicate("'\(property)' is not a key path")
        }
        var compiler = PredicateCompiler(entity: entity, allowsVariables: false)
        let operand = try compiler.propertyOperand(expression)
        return operand
    }
}

/// Compiles a predicate for an entity (see ``FetchPredicate/compiled(for:allowingVariables:)``).
struct PredicateCompiler {
    /// The entity of the fetch.
    let rootEntity: EntityDescription
    let allowsVariables: Bool
    var variables: [String: VariableRequirement] = [:]
    /// The object plain keys are read from: the evaluated one, or inside a
    /// `SUBQUERY` its member.
    var origin = CompiledPath.Origin.evaluated
    var entity: EntityDescription
    /// The variables of enclosing `SUBQUERY`s, by depth, with their members' entity.
    var scopes: [(name: String, entity: EntityDescription)] = []

    init(entity: EntityDescription, allowsVariables: Bool) {
        self.rootEntity = entity
        self.entity = entity
        self.allowsVariables = allowsVariables
    }

    mutating func compile(_ node: FetchPredicate.Node) throws -> CompiledNode {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try compile(inner))
        case .and(let nodes): return .and(try nodes.map { try compile($0) })
        case .or(let nodes): return .or(try nodes.map { try compile($0) })
        case .comparison(let left, let operation, let right, let options, let quantifier):
            if quantifier == .direct, let folded = try entityTest(left, operation, right) { return folded }
            if let test = try listTest(left, operation, right, options, quantifier) { return test }
            return try compileComparison(left, operation, right, options, quantifier)
        }
    }

    // MARK: Operands

    /// A property of dictionary results: no to-many key path (only aggregates).
    mutating func propertyOperand(_ expression: FetchPredicate.Expression) throws -> Operand {
        let property = try typed(expression)
        if property.isCollection, case .path(let path) = property.operand, path.attribute != nil {
            throw KuraError.invalidPredicate("a to-many key path gives several values; fetch an aggregate such as @count")
        }
        return property.operand
    }

    /// What an operand stands for, for checking types.
    enum Kind {
        /// A constant, a template variable, or a list of them.
        case value
        /// Values of this attribute (of `entity`).
        case attribute(AttributeDescription, EntityDescription)
        /// Objects of this entity.
        case objects(EntityDescription)
        /// A number an aggregate computes.
        case number
    }

    struct Typed {
        var operand: Operand
        var kind: Kind
        /// True for a to-many path or a subquery: several values.
        var isCollection = false
        /// True for what the fast evaluation handles: an attribute of the
        /// evaluated object, a constant, a variable, a list of those.
        var isSimple: Bool
    }

    mutating func typed(_ expression: FetchPredicate.Expression) throws -> Typed {
        switch expression {
        case .key(let key):
            if origin == .evaluated, let number = entity.attributeNumber(named: key) {
                return Typed(operand: .attribute(number), kind: .attribute(entity.attributes[number], entity), isSimple: true)
            }
            return try typedPath(key, from: origin, entity: entity)
        case .value(let value):
            return Typed(operand: .constant(value), kind: .value, isSimple: true)
        case .variable(let name):
            if let depth = scopes.lastIndex(where: { $0.name == name }) {
                let member = scopes[depth].entity
                return Typed(operand: .path(CompiledPath(origin: .bound(depth), hops: [], attribute: nil, entity: member)),
                             kind: .objects(member), isSimple: false)
            }
            guard allowsVariables else { throw KuraError.missingSubstitutionVariable(name) }
            return Typed(operand: .variable(name), kind: .value, isSimple: true)
        case .variableKeyPath(let name, let path):
            guard let depth = scopes.lastIndex(where: { $0.name == name }) else {
                throw KuraError.invalidPredicate("$\(name).\(path): $\(name) is not a SUBQUERY's variable here")
            }
            return try typedPath(path, from: .bound(depth), entity: scopes[depth].entity)
        case .list(let elements):
            return Typed(operand: .list(try elements.map { element in
                if case .list = element { throw KuraError.invalidPredicate("a list can't contain a list") }
                let typed = try typed(element)
                return typed.operand
            }), kind: .value, isSimple: try elements.allSatisfy { try isSimpleElement($0) })
        case .object(let uri):
            return Typed(operand: .constant(.string(uri)), kind: .value, isSimple: false)
        case .evaluatedObject:
            return Typed(operand: .path(CompiledPath(origin: origin, hops: [], attribute: nil, entity: entity)),
                         kind: .objects(entity), isSimple: false)
        case .aggregate(let aggregate, let collection, let memberPath):
            return try typedAggregate(aggregate, of: collection, memberPath)
        case .subquery(let collection, let variable, let predicate):
            let members = try typed(collection)
            guard case .path(let path) = members.operand, path.isToMany, path.attribute == nil else {
                throw KuraError.invalidPredicate("SUBQUERY needs a to-many relationship to search, such as SUBQUERY(comments, $c, …)")
            }
            let saved = (origin, entity)
            scopes.append((variable, path.entity))
            origin = .bound(scopes.count - 1)
            entity = path.entity
            defer {
                scopes.removeLast()
                (origin, entity) = saved
            }
            try predicate.checkSyntax()
            let compiled = try compile(predicate.root)
            return Typed(operand: .subquery(CompiledSubquery(collection: path, depth: scopes.count - 1, predicate: compiled)),
                         kind: .objects(path.entity), isCollection: true, isSimple: false)
        case .arithmetic(let operation, let left, let right):
            let sides = [try typed(left), try typed(right)]
            for side in sides { try requireNumber(side, for: operation) }
            return Typed(operand: .arithmetic(operation, sides[0].operand, sides[1].operand), kind: .number, isSimple: false)
        }
    }

    /// Checks a side of arithmetic gives one number.
    private mutating func requireNumber(_ side: Typed, for operation: FetchPredicate.ArithmeticOperator) throws {
        let name = operation == .modulus ? "modulus:by:" : "'\(operation.rawValue)'"
        if side.isCollection {
            throw KuraError.invalidPredicate("\(name) needs one number on each side; a to-many key path gives several (use an aggregate such as @sum)")
        }
        switch (side.kind, side.operand) {
        case (.number, _): return
        case (.attribute(let attribute, let owner), _):
            guard attribute.type.isNumeric else {
                throw KuraError.invalidPredicate("\(name) needs numbers; \(owner.name).\(attribute.name) is \(attribute.type.displayName)")
            }
        case (.value, .constant(let value)):
            guard value?.naturalType.isNumeric ?? true else {
                throw KuraError.invalidPredicate("\(name) needs numbers, not \(value!.kindName) \(PredicateFormatter.format(value))")
            }
        case (.value, .variable(let variable)):
            try require(variable, VariableRequirement(key: "a number", type: .double, isList: false))
        case (.objects(let entity), _):
            throw KuraError.invalidPredicate("\(name) needs numbers, not objects of \(entity.name)")
        default:
            throw KuraError.invalidPredicate("\(name) needs numbers on both sides")
        }
    }

    private func isSimpleElement(_ element: FetchPredicate.Expression) throws -> Bool {
        switch element {
        case .value, .variable: true
        case .key(let key): origin == .evaluated && entity.attributeNumber(named: key) != nil
        default: false
        }
    }

    private mutating func typedAggregate(
        _ aggregate: FetchPredicate.Aggregate, of collection: FetchPredicate.Expression, _ memberPath: String?
    ) throws -> Typed {
        let members = try typed(collection)
        let elementEntity: EntityDescription
        switch members.operand {
        case .path(let path) where path.isToMany && path.attribute == nil: elementEntity = path.entity
        case .subquery(let subquery): elementEntity = subquery.collection.entity
        default:
            throw KuraError.invalidPredicate("@\(aggregate.rawValue) needs a to-many relationship, such as tags.@count")
        }
        var compiledPath: CompiledPath?
        var kind = Kind.number
        if let memberPath {
            let typedMember = try typedPath(memberPath, from: .evaluated, entity: elementEntity)
            guard case .path(let path) = typedMember.operand, !path.isToMany,
                  case .attribute(let attribute, let owner) = typedMember.kind else {
                throw KuraError.invalidPredicate("@\(aggregate.rawValue).\(memberPath) must name an attribute of the members (through to-ones only)")
            }
            guard aggregate == .min || aggregate == .max || attribute.type.isNumeric else {
                throw KuraError.invalidPredicate(
                    "@\(aggregate.rawValue) needs a number; \(owner.name).\(attribute.name) is \(attribute.type.displayName)")
            }
            compiledPath = path
            if aggregate == .min || aggregate == .max { kind = .attribute(attribute, owner) }
        } else if aggregate != .count {
            throw KuraError.invalidPredicate("@\(aggregate.rawValue) needs the members' attribute after it, such as @\(aggregate.rawValue).score")
        }
        return Typed(operand: .aggregate(aggregate, members.operand, compiledPath), kind: kind, isSimple: false)
    }

    // MARK: Comparisons


    private mutating func compileComparison(
        _ leftExpression: FetchPredicate.Expression, _ operation: FetchPredicate.Operator,
        _ rightExpression: FetchPredicate.Expression, _ written: FetchPredicate.ComparisonOptions,
        _ quantifier: FetchPredicate.Quantifier
    ) throws -> CompiledNode {
        let options = written.subtracting(.normalized)  // [n] changes no result
        var left = try typed(leftExpression)
        var right = try typed(rightExpression)
        if quantifier == .direct && left.isSimple && right.isSimple {
            return try compileSimple(left.operand, operation, right.operand, options)
        }
        var operation = operation
        // Keep what has a kind on the left: `3 < author.age` is `author.age > 3`.
        if case .value = left.kind, !Self.hasNoKind(right), !right.isCollection, quantifier == .direct,
           let flipped = operation.mirrored {
            swap(&left, &right)
            operation = flipped
        }
        if case .list = left.operand { throw KuraError.invalidPredicate("a list can only be on the right of IN or BETWEEN") }
        var effective = quantifier
        if left.isCollection {
            if effective == .direct { effective = .any }  // a to-many key path means ANY, as in Core Data
        } else if effective != .direct {
            throw KuraError.invalidPredicate("\(quantifier.rawValue) needs a to-many key path on its left, such as \(quantifier.rawValue) tags.name == …")
        }
        if right.isCollection && operation != .in {
            throw KuraError.invalidPredicate("a to-many key path on the right only works with IN, as in 'swift' IN tags.name")
        }
        var comparison = CompiledComparison(
            left: left.operand, operation: operation, right: right.operand, options: [],
            pattern: nil, likePattern: nil, regularExpression: nil, quantifier: effective, followsRelationships: true)
        // The kind the other side must fit.
        let anchor: Kind
        if case .value = left.kind {
            anchor = right.kind
        } else {
            anchor = left.kind
        }
        switch anchor {
        case .value:
            throw KuraError.invalidPredicate("nothing here is a key of \(rootEntity.name): compare a key with a value")
        case .objects(let objects):
            guard [.equal, .notEqual, .in].contains(operation) else {
                throw KuraError.invalidPredicate("objects of \(objects.name) can only be compared with ==, != or IN, not \(operation.rawValue)")
            }
            comparison.left = try coerceObjects(comparison.left, to: objects, isList: false)
            comparison.right = try coerceObjects(comparison.right, to: objects, isList: operation == .in)
        case .attribute(let attribute, _):
            comparison.left = try coerceGraph(comparison.left, to: attribute, operation: operation, isLeft: true)
            comparison.right = try coerceGraph(comparison.right, to: attribute, operation: operation, isLeft: false)
            if attribute.type.isTextual { comparison.options = options }
        case .number:
            guard !operation.isStringOperator else {
                throw KuraError.invalidPredicate("\(operation.rawValue) needs strings; an aggregate gives a number")
            }
            let number = AttributeDescription(name: "number", type: .double, isOptional: true)
            comparison.left = try coerceGraph(comparison.left, to: number, operation: operation, isLeft: true)
            comparison.right = try coerceGraph(comparison.right, to: number, operation: operation, isLeft: false)
        }
        if comparison.neverMatches { return .constant(false) }
        try comparison.preparePatterns()
        return .comparison(comparison)
    }

    private static func hasNoKind(_ typed: Typed) -> Bool {
        if case .value = typed.kind { return true }
        return false
    }

    /// One side of a comparison with objects: objects themselves, object
    /// constants (`%@` with an object or ID), `nil`, lists of those, and
    /// variables that will be given objects.
    private mutating func coerceObjects(_ operand: Operand, to entity: EntityDescription, isList: Bool) throws -> Operand {
        switch operand {
        case .path(let path):
            guard path.attribute == nil, path.entity === entity else {
                throw KuraError.invalidPredicate("objects of \(entity.name) can't be compared with \(path.attribute == nil ? "objects of \(path.entity.name)" : "an attribute")")
            }
            return operand
        case .subquery(let subquery):
            guard subquery.collection.entity === entity else {
                throw KuraError.invalidPredicate("objects of \(entity.name) can't be compared with objects of \(subquery.collection.entity.name)")
            }
            return operand
        case .constant(nil):
            return operand
        case .constant(.string(let uri)?) where uri.hasPrefix("kura://"):
            return .object(try Self.reference(uri, of: entity))
        case .constant(let value?):
            throw KuraError.invalidPredicate("objects of \(entity.name) can't be compared with \(value.kindName) \(PredicateFormatter.format(value))")
        case .variable(let name):
            try require(name, VariableRequirement(key: entity.name, type: .string, objectEntity: entity.name, isList: isList))
            return operand
        case .list(let elements):
            guard isList else { throw KuraError.invalidPredicate("a list can only be on the right of IN") }
            return .list(try elements.map { try coerceObjects($0, to: entity, isList: false) })
        case .object, .attribute, .aggregate, .arithmetic:
            throw KuraError.invalidPredicate("objects of \(entity.name) can only be compared with objects")
        }
    }

    static func reference(_ uri: String, of entity: EntityDescription) throws -> ObjectReference {
        try ObjectReferenceParsing.reference(uri, of: entity)
    }

    /// One side of a comparison with values of `attribute`: paths to
    /// compatible attributes, aggregates, constants converted to its type,
    /// lists (for IN and BETWEEN) and variables.
    mutating func coerceGraph(
        _ operand: Operand, to attribute: AttributeDescription, operation: FetchPredicate.Operator, isLeft: Bool
    ) throws -> Operand {
        let target = operation.isStringOperator || (operation == .in && !isLeft && !Self.isListLike(operand))
            ? Self.text(attribute) : attribute
        switch operand {
        case .path(let path):
            guard let number = path.attribute else {
                throw KuraError.invalidPredicate("\(attribute.name) can't be compared with objects of \(path.entity.name)")
            }
            try checkCompatible(path.entity.attributes[number], with: target, in: path.entity)
            return operand
        case .attribute(let number):
            try checkCompatible(rootEntity.attributes[number], with: target, in: rootEntity)
            return operand
        case .aggregate, .arithmetic:
            return operand
        case .subquery:
            throw KuraError.invalidPredicate("a SUBQUERY gives objects; count them with SUBQUERY(…).@count")
        case .constant(let value):
            return .constant(try coerce(value, to: target, operation: operation))
        case .variable(let name):
            // `key IN $variable` takes a list, as on an attribute of the
            // evaluated object (``compile(_:attribute:options:)``).
            let isList = !isLeft && (operation == .between || operation == .in)
            try require(name, VariableRequirement(key: attribute.name, type: target.type, isList: isList))
            return operand
        case .list(let elements):
            guard !isLeft, operation == .between || operation == .in else {
                throw KuraError.invalidPredicate("\(operation.rawValue) compares with one value, not a list")
            }
            if operation == .between && elements.count != 2 {
                throw KuraError.invalidPredicate("BETWEEN needs a list of two values, {lower, upper}; it has \(elements.count)")
            }
            return .list(try elements.map { try coerceGraph($0, to: attribute, operation: .equal, isLeft: false) })
        case .object:
            throw KuraError.invalidPredicate("\(attribute.name) can't be compared with an object")
        }
    }

    private static func isListLike(_ operand: Operand) -> Bool {
        switch operand {
        case .list, .variable, .subquery: true
        case .path(let path): path.isToMany
        default: false
        }
    }

    private func checkCompatible(_ other: AttributeDescription, with attribute: AttributeDescription, in entity: EntityDescription) throws {
        let compatible = other.type == attribute.type || (other.type.isNumeric && attribute.type.isNumeric)
            || (other.type.isTextual && attribute.type.isTextual)
        guard compatible else {
            throw KuraError.invalidPredicate(
                "\(attribute.name) (\(attribute.type.displayName)) can't be compared with \(entity.name).\(other.name) (\(other.type.displayName))")
        }
    }

    private func coerce(_ value: AttributeValue?, to attribute: AttributeDescription, operation: FetchPredicate.Operator) throws -> AttributeValue? {
        guard let value else { return nil }
        if attribute.name == "number" && attribute.type == .double {
            guard value.naturalType.isNumeric else {
                throw KuraError.invalidPredicate("an aggregate gives a number, not \(value.kindName) \(PredicateFormatter.format(value))")
            }
            return value
        }
        return try coerce(value, to: attribute)
    }

    // MARK: Simple comparisons (attributes of the evaluated object and values)

    private mutating func compileSimple(
        _ leftOperand: Operand, _ operation: FetchPredicate.Operator, _ rightOperand: Operand,
        _ options: FetchPredicate.ComparisonOptions
    ) throws -> CompiledNode {
        var left = leftOperand
        var right = rightOperand
        var operation = operation
        // Keep the attribute on the left: `3 < sortOrder` is `sortOrder > 3`.
        if case .attribute = right, !Self.isAttribute(left), let flipped = operation.mirrored {
            swap(&left, &right)
            operation = flipped
        }
        if case .list = left { throw KuraError.invalidPredicate("a list can only be on the right of IN or BETWEEN") }
        var comparison = CompiledComparison(
            left: left, operation: operation, right: right, options: [],
            pattern: nil, likePattern: nil, regularExpression: nil)

        if case .attribute(let number) = left {
            try compile(&comparison, attribute: entity.attributes[number], options: options)
        } else if case .attribute(let number) = right {
            // A value on the left of an attribute, for an operator that
            // can't be turned around: `'Realm' CONTAINS name`, `'x' IN name`.
            try compile(&comparison, valueOnTheLeftOf: entity.attributes[number], options: options)
        } else if case .list(let elements) = right, let number = elements.lazy.compactMap(Self.attributeNumber).first {
            // A value between or among attributes: `7 BETWEEN {low, high}`, `5 IN {low, high}`.
            try compile(&comparison, valueAmong: entity.attributes[number], options: options)
        } else {
            // No attribute: decide now.
            for case .variable(let name) in [left, right] {
                throw KuraError.invalidPredicate("$\(name) must be compared with an attribute")
            }
            try checkListShape(operation, right)
            if case .constant(let value?) = left, value.naturalType.isTextual { comparison.options = options }
            try comparison.preparePatterns()
            return .constant(try comparison.evaluate(on: NoAttributes()))
        }
        if comparison.neverMatches { return .constant(false) }
        try comparison.preparePatterns()
        return .comparison(comparison)
    }

    /// `attribute op right`: the right side checked and converted to the attribute's type.
    private mutating func compile(
        _ comparison: inout CompiledComparison, attribute: AttributeDescription, options: FetchPredicate.ComparisonOptions
    ) throws {
        let operation = comparison.operation
        switch operation {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            comparison.right = try coerce(comparison.right, to: attribute, operation: operation)
        case .between:
            comparison.right = try coerceList(comparison.right, to: attribute, operation: operation, count: 2)
        case .in:
            // `name IN 'some text'`: a string on the right is searched, as in Foundation.
            if attribute.type.isTextual, !Self.isList(comparison.right), !Self.isListVariable(comparison.right, in: variables) {
                comparison.right = try coerce(comparison.right, to: Self.text(attribute), operation: operation)
            } else {
                comparison.right = try coerceList(comparison.right, to: attribute, operation: operation, count: nil)
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard attribute.type.isTextual else {
                throw KuraError.invalidPredicate(
                    "\(operation.rawValue) needs a String attribute; \(entity.name).\(attribute.name) is \(attribute.type.displayName)")
            }
            comparison.right = try coerce(comparison.right, to: Self.text(attribute), operation: operation)
        }
        if attribute.type.isTextual { comparison.options = options }
    }

    /// `value op attribute` for string operators and `IN`: the value must be text.
    private mutating func compile(
        _ comparison: inout CompiledComparison, valueOnTheLeftOf attribute: AttributeDescription,
        options: FetchPredicate.ComparisonOptions
    ) throws {
        let operation = comparison.operation
        guard operation.isStringOperator || operation == .in else {
            throw KuraError.invalidPredicate("\(operation.rawValue) needs a list on its right, such as {1, 2}")
        }
        guard attribute.type.isTextual else {
            throw KuraError.invalidPredicate(
                "\(operation.rawValue) needs a String on both sides; \(entity.name).\(attribute.name) is \(attribute.type.displayName)")
        }
        comparison.left = try coerce(comparison.left, to: Self.text(attribute), operation: operation)
        comparison.options = options
    }

    /// `value BETWEEN {…}` or `value IN {…}` where the list holds attributes:
    /// the value and the list's constants take the attribute's type.
    private mutating func compile(
        _ comparison: inout CompiledComparison, valueAmong attribute: AttributeDescription, options: FetchPredicate.ComparisonOptions
    ) throws {
        let operation = comparison.operation
        guard operation == .between || operation == .in else {
            throw KuraError.invalidPredicate("\(operation.rawValue) compares one value with another, not with a list")
        }
        comparison.left = try coerce(comparison.left, to: attribute, operation: .equal)
        comparison.right = try coerceList(
            comparison.right, to: attribute, operation: operation, count: operation == .between ? 2 : nil)
        if attribute.type.isTextual { comparison.options = options }
    }

    /// The optional String version of a textual attribute, for the other side of a string operator.
    private static func text(_ attribute: AttributeDescription) -> AttributeDescription {
        AttributeDescription(name: attribute.name, type: .string, isOptional: true)
    }

    private static func attributeNumber(_ operand: Operand) -> Int? {
        if case .attribute(let number) = operand { return number }
        return nil
    }

    private static func isList(_ operand: Operand) -> Bool {
        if case .list = operand { return true }
        return false
    }

    /// True for a `$variable` already known to stand for a list.
    private static func isListVariable(_ operand: Operand, in variables: [String: VariableRequirement]) -> Bool {
        if case .variable(let name) = operand { return variables[name]?.isList ?? true }
        return false
    }

    private static func isAttribute(_ operand: Operand) -> Bool {
        if case .attribute = operand { return true }
        return false
    }

    private func checkListShape(_ operation: FetchPredicate.Operator, _ right: Operand) throws {
        switch operation {
        case .between:
            guard case .list(let elements) = right, elements.count == 2 else {
                throw KuraError.invalidPredicate("BETWEEN needs a list of two values, {lower, upper}")
            }
        case .in:
            guard case .list = right else { throw KuraError.invalidPredicate("IN needs a list of values, such as {1, 2}") }
        default:
            break
        }
    }

    /// The other side of a comparison with `attribute`, checked and converted.
    private mutating func coerce(_ operand: Operand, to attribute: AttributeDescription, operation: FetchPredicate.Operator) throws -> Operand {
        switch operand {
        case .attribute(let number):
            let other = entity.attributes[number]
            let compatible = other.type == attribute.type || (other.type.isNumeric && attribute.type.isNumeric)
                || (other.type.isTextual && attribute.type.isTextual)
            guard compatible else {
                throw KuraError.invalidPredicate(
                    "\(entity.name).\(attribute.name) (\(attribute.type.displayName)) can't be compared with \(entity.name).\(other.name) (\(other.type.displayName))")
            }
            return operand
        case .constant(let value):
            return .constant(try coerce(value, to: attribute))
        case .variable(let name):
            try require(name, VariableRequirement(key: attribute.name, type: attribute.type, isList: false))
            return operand
        case .list:
            throw KuraError.invalidPredicate("\(operation.rawValue) compares \(entity.name).\(attribute.name) with one value, not a list")
        case .path, .object, .aggregate, .subquery, .arithmetic:
            throw KuraError.invalidPredicate("\(entity.name).\(attribute.name) can't be compared with that")
        }
    }

    private mutating func coerceList(
        _ operand: Operand, to attribute: AttributeDescription, operation: FetchPredicate.Operator, count: Int?
    ) throws -> Operand {
        switch operand {
        case .list(let elements):
            if let count, elements.count != count {
                throw KuraError.invalidPredicate("BETWEEN needs a list of two values, {lower, upper}; it has \(elements.count)")
            }
            return .list(try elements.map { try coerce($0, to: attribute, operation: .equal) })
        case .variable(let name):
            try require(name, VariableRequirement(key: attribute.name, type: attribute.type, isList: true))
            return operand
        default:
            throw KuraError.invalidPredicate(
                operation == .between ? "BETWEEN needs a list of two values, {lower, upper}" : "IN needs a list of values, such as {1, 2}")
        }
    }

    private mutating func require(_ name: String, _ requirement: VariableRequirement) throws {
        if let existing = variables[name], existing.type != requirement.type || existing.isList != requirement.isList {
            throw KuraError.invalidPredicate("$\(name) is compared with both \(existing.key) and \(requirement.key), of different types")
        }
        variables[name] = requirement
    }

    /// `value` as a value of `attribute`'s type, or a type mismatch naming the key.
    private func coerce(_ value: AttributeValue?, to attribute: AttributeDescription) throws -> AttributeValue? {
        guard let value else { return nil }
        if let converted = value.convertedForComparison(to: attribute.type) { return converted }
        throw KuraError.typeMismatch(
            entity: entity.name, key: attribute.name, expected: attribute.type,
            found: "\(value.kindName) \(PredicateFormatter.format(value))")
    }
}

/// A source with no attributes, for comparisons of two constants.
private struct NoAttributes: AttributeSource {
    func attributeValue(_ number: Int) -> AttributeValue? { nil }
}

extension AttributeValue {
    /// This value made comparable with an attribute of `type`, or `nil`.
    /// Numbers compare with any numeric attribute as they are; other values
    /// convert as a value set on the attribute would; a string can name a
    /// UUID or a URL, and 0 or 1 a Bool.
    func convertedForComparison(to type: AttributeType) -> AttributeValue? {
        if type.isNumeric, naturalType.isNumeric { return self }
        if type == .bool, case .int(let number) = self, number == 0 || number == 1 { return .bool(number == 1) }
        if type == .uuid, case .string(let text) = self { return UUID(uuidString: text).map(AttributeValue.uuid) }
        return converted(to: type)
    }
}

enum ObjectReferenceParsing {
    /// An object constant's reference: its URI must name `entity`.
    static func reference(_ uri: String, of entity: EntityDescription) throws -> ObjectReference {
        let parts = uri.dropFirst("kura://".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, String(parts[0]) == entity.name else {
            throw KuraError.invalidPredicate("\(uri) is not an object of \(entity.name)")
        }
        let isTemporary = parts[1].hasPrefix("t")
        guard let number = UInt64(isTemporary ? parts[1].dropFirst() : parts[1]), number > 0 else {
            throw KuraError.invalidPredicate("\(uri) is not a valid object ID")
        }
        return ObjectReference(entity: entity, number: number, isTemporary: isTemporary)
    }
}
