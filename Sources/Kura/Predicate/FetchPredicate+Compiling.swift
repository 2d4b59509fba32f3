import Foundation

/// A predicate checked against an entity and made ready to evaluate: keys
/// are attribute positions, constants have the attribute's type, string
/// patterns are folded and regular expressions compiled.
struct CompiledPredicate: Sendable {
    let entity: EntityDescription
    let root: CompiledNode
    /// What each `$variable` must be, for a template: the type of the
    /// attribute it is compared with, and whether it is a list.
    let variables: [String: VariableRequirement]
}

/// What a template's `$variable` must be given.
struct VariableRequirement: Sendable, Hashable {
    /// The attribute the variable is compared with.
    var key: String
    var type: AttributeType
    /// True for `IN $list` and `BETWEEN $pair`.
    var isList: Bool
}

indirect enum CompiledNode: Sendable {
    case constant(Bool)
    case not(CompiledNode)
    case and([CompiledNode])
    case or([CompiledNode])
    case comparison(CompiledComparison)
}

/// One side of a compiled comparison.
indirect enum Operand: Sendable, Hashable {
    case attribute(Int)
    case constant(AttributeValue?)
    case variable(String)
    case list([Operand])
}

struct CompiledComparison: Sendable {
    var left: Operand
    var operation: FetchPredicate.Operator
    var right: Operand
    /// `[c]`/`[d]`, kept only where strings are compared.
    var options: FetchPredicate.ComparisonOptions
    /// A constant string pattern, folded by `options` once.
    var pattern: String?
    /// A `LIKE` pattern as characters.
    var likePattern: [Character]?
    /// A `MATCHES` pattern, compiled.
    var regularExpression: RegularExpression?
}

extension CompiledComparison {
    /// True for a search for the empty string: Foundation's BEGINSWITH,
    /// ENDSWITH and CONTAINS never match one.
    var neverMatches: Bool {
        switch (operation, right) {
        case (.beginsWith, .constant(.string("")?)), (.endsWith, .constant(.string("")?)), (.contains, .constant(.string("")?)):
            true
        default:
            false
        }
    }

    /// Prepares a constant string pattern once: folded for `[c]`/`[d]`, split
    /// into characters for `LIKE`, compiled for `MATCHES`.
    mutating func preparePatterns() throws {
        guard operation.isStringOperator, case .constant(.string(let pattern)?) = right else { return }
        switch operation {
        case .matches:
            let folded = options.contains(.diacriticInsensitive) ? StringMatching.fold(pattern, .diacriticInsensitive) : pattern
            regularExpression = try RegularExpression.compiled(folded, caseInsensitive: options.contains(.caseInsensitive))
        case .like:
            likePattern = Array(StringMatching.fold(pattern, options))
        default:
            self.pattern = StringMatching.fold(pattern, options)
        }
    }
}

extension CompiledNode {
    /// Calls `body` with the position of every attribute the tree reads.
    func forEachAttribute(_ body: (Int) -> Void) {
        func visit(_ operand: Operand) {
            switch operand {
            case .attribute(let number): body(number)
            case .list(let elements): elements.forEach(visit)
            case .constant, .variable: break
            }
        }
        switch self {
        case .constant: break
        case .not(let node): node.forEachAttribute(body)
        case .and(let nodes), .or(let nodes): nodes.forEach { $0.forEachAttribute(body) }
        case .comparison(let comparison):
            visit(comparison.left)
            visit(comparison.right)
        }
    }

    /// The tree with each `$variable` operand replaced (values already
    /// converted to their attributes' types), wherever it is: either side of
    /// a comparison or inside a list (`BETWEEN {$low, $high}`). Patterns are
    /// prepared again.
    func substituting(_ values: [(String, Operand)]) throws -> CompiledNode {
        switch self {
        case .constant: return self
        case .not(let node): return .not(try node.substituting(values))
        case .and(let nodes): return .and(try nodes.map { try $0.substituting(values) })
        case .or(let nodes): return .or(try nodes.map { try $0.substituting(values) })
        case .comparison(var comparison):
            let left = comparison.left.substituting(values)
            let right = comparison.right.substituting(values)
            guard left != comparison.left || right != comparison.right else { return self }
            comparison.left = left
            comparison.right = right
            if comparison.neverMatches { return .constant(false) }
            try comparison.preparePatterns()
            return .comparison(comparison)
        }
    }
}

extension Operand {
    /// The operand with variables replaced, inside lists too.
    func substituting(_ values: [(String, Operand)]) -> Operand {
        switch self {
        case .variable(let name): values.first { $0.0 == name }?.1 ?? self
        case .list(let elements): .list(elements.map { $0.substituting(values) })
        case .attribute, .constant: self
        }
    }
}

/// A compiled predicate carried by a fetch request made from a template,
/// so the fetch doesn't compile it again; and, for a template that looks an
/// object up by a unique index, the index key to look for, so the fetch
/// doesn't plan either.
final class CompiledPredicateBox: Sendable {
    let compiled: CompiledPredicate
    let lookup: PlannedLookup?
    /// The template's predicate and the values of its variables: the
    /// request's predicate is built from them only when someone reads it.
    let template: FetchPredicate
    let substitutions: [(String, FetchPredicate.Expression)]

    init(_ compiled: CompiledPredicate, lookup: PlannedLookup?, template: FetchPredicate,
         substitutions: [(String, FetchPredicate.Expression)]) {
        self.compiled = compiled
        self.lookup = lookup
        self.template = template
        self.substitutions = substitutions
    }

    var substitutedPredicate: FetchPredicate {
        FetchPredicate(template.root.substituting(substitutions))
    }
}

/// A unique-index lookup decided when a template was registered: the index,
/// and the encoded values to find in it.
struct PlannedLookup: Sendable {
    let indexName: String
    let prefix: [UInt8]
}

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

private struct PredicateCompiler {
    let entity: EntityDescription
    let allowsVariables: Bool
    var variables: [String: VariableRequirement] = [:]

    init(entity: EntityDescription, allowsVariables: Bool) {
        self.entity = entity
        self.allowsVariables = allowsVariables
    }

    mutating func compile(_ node: FetchPredicate.Node) throws -> CompiledNode {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try compile(inner))
        case .and(let nodes): return .and(try nodes.map { try compile($0) })
        case .or(let nodes): return .or(try nodes.map { try compile($0) })
        case .comparison(let left, let operation, let right, let options):
            return try compileComparison(left, operation, right, options)
        }
    }

    private func operand(_ expression: FetchPredicate.Expression) throws -> Operand {
        switch expression {
        case .key(let key): return .attribute(try entity.requireAttributeNumber(key))
        case .value(let value): return .constant(value)
        case .variable(let name):
            guard allowsVariables else { throw KuraError.missingSubstitutionVariable(name) }
            return .variable(name)
        case .list(let elements):
            return .list(try elements.map { element in
                if case .list = element { throw KuraError.invalidPredicate("a list can't contain a list") }
                return try operand(element)
            })
        }
    }

    private static func mirrored(_ operation: FetchPredicate.Operator) -> FetchPredicate.Operator? {
        switch operation {
        case .equal, .notEqual: operation
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        default: nil
        }
    }

    private mutating func compileComparison(
        _ leftExpression: FetchPredicate.Expression, _ operation: FetchPredicate.Operator,
        _ rightExpression: FetchPredicate.Expression, _ written: FetchPredicate.ComparisonOptions
    ) throws -> CompiledNode {
        let options = written.subtracting(.normalized)  // [n] changes no result
        var left = try operand(leftExpression)
        var right = try operand(rightExpression)
        var operation = operation
        // Keep the attribute on the left: `3 < sortOrder` is `sortOrder > 3`.
        if case .attribute = right, !Self.isAttribute(left), let flipped = Self.mirrored(operation) {
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
            return .constant(comparison.evaluate(on: NoAttributes()))
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
