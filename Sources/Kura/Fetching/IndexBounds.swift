import KuraLMDB

/// A part of a predicate an index can answer: key ranges over the index
/// that hold every object the predicate can match (the predicate is still
/// checked on each object found).
struct IndexAccess {
    let index: IndexTable
    /// Ascending and disjoint.
    let ranges: [KeyRange]
    /// How many leading index attributes the ranges fix to one value.
    let equalityCount: Int
    /// The attribute after those, if the ranges constrain it (a range, a
    /// prefix, or the points of IN).
    let rangeAttribute: Int?
    /// True when each range holds at most one object: equality on every
    /// attribute of a unique index, with no nil.
    let isUniqueLookup: Bool
    /// The conditions used, as text, for `explain`.
    let conditions: [String]
}

/// Finds the index accesses a compiled predicate allows.
///
/// Only conditions that must all hold are used: the predicate itself, or
/// the terms of a top-level AND. Each is `attribute op constant` with `==`,
/// `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN`, or (for strings, without `[c]` or
/// `[d]`) `BEGINSWITH`. An index is usable when its first attribute has one;
/// equality on leading attributes of a compound index narrows further.
enum IndexBounds {
    private struct Constraint {
        var equal: AttributeValue??
        var points: [AttributeValue?]?
        var lower: (value: AttributeValue, inclusive: Bool)?
        var upper: (value: AttributeValue, inclusive: Bool)?
        var prefix: String?
        var texts: [String] = []

        var isRange: Bool { lower != nil || upper != nil || prefix != nil }
    }

    static func accesses(for predicate: CompiledPredicate, tables: EntityTables) -> [IndexAccess] {
        let constraints = constraints(of: predicate)
        guard !constraints.isEmpty else { return [] }
        return tables.indexes.compactMap { access(to: $0, constraints: constraints, entity: predicate.entity) }
    }

    private static func constraints(of predicate: CompiledPredicate) -> [Int: Constraint] {
        let terms: [CompiledNode]
        if case .and(let nodes) = predicate.root { terms = nodes } else { terms = [predicate.root] }
        var constraints: [Int: Constraint] = [:]
        let entity = predicate.entity
        for term in terms {
            guard case .comparison(let comparison) = term, comparison.options.isEmpty,
                  case .attribute(let number) = comparison.left else { continue }
            let type = entity.attributes[number].type
            var constraint = constraints[number] ?? Constraint()
            let text = PredicateFormatter.format(term: comparison, entity: entity)
            switch (comparison.operation, comparison.right) {
            case (.equal, .constant(let value)):
                guard let exact = exactValue(value, type), constraint.equal == nil else { continue }
                constraint.equal = .some(exact)
            case (.in, .list(let elements)):
                let values = elements.compactMap { element -> AttributeValue?? in
                    guard case .constant(let value) = element else { return nil }
                    return exactValue(value, type)
                }
                guard values.count == elements.count, constraint.points == nil else { continue }
                constraint.points = values
            case (.less, .constant(let value?)), (.lessOrEqual, .constant(let value?)):
                guard let exact = exactValue(value, type) ?? nil, constraint.upper == nil else { continue }
                constraint.upper = (exact, comparison.operation == .lessOrEqual)
            case (.greater, .constant(let value?)), (.greaterOrEqual, .constant(let value?)):
                guard let exact = exactValue(value, type) ?? nil, constraint.lower == nil else { continue }
                constraint.lower = (exact, comparison.operation == .greaterOrEqual)
            case (.between, .list(let bounds)):
                guard bounds.count == 2, case .constant(let low?) = bounds[0], case .constant(let high?) = bounds[1],
                      let lower = exactValue(low, type) ?? nil, let upper = exactValue(high, type) ?? nil,
                      constraint.lower == nil, constraint.upper == nil else { continue }
                constraint.lower = (lower, true)
                constraint.upper = (upper, true)
            case (.beginsWith, .constant(.string(let prefix)?)) where type == .string:
                guard constraint.prefix == nil else { continue }
                constraint.prefix = prefix
            default:
                continue
            }
            constraint.texts.append(text)
            constraints[number] = constraint
        }
        return constraints
    }

    /// The constant as a value of the attribute's type, exactly, or `nil`
    /// when it has none (2.5 for an integer attribute): then the index can't
    /// be used for it. `.some(nil)` is the nil value.
    private static func exactValue(_ value: AttributeValue?, _ type: AttributeType) -> AttributeValue?? {
        guard let value else { return .some(nil) }
        if case .double(let number) = value, type.isInteger, let integer = Int64(exactly: number) {
            return type.integerRange.contains(integer) ? .some(.int(integer)) : nil
        }
        return value.converted(to: type).map { .some($0) }
    }

    private static func access(to index: IndexTable, constraints: [Int: Constraint], entity: EntityDescription) -> IndexAccess? {
        var prefix: [UInt8] = []
        var conditions: [String] = []
        var equalityCount = 0
        var hasNil = false
        for number in index.attributeNumbers {
            guard let constraint = constraints[number] else { break }
            if let equal = constraint.equal {
                IndexKeyEncoding.append(equal, to: &prefix)
                if equal == nil { hasNil = true }
                equalityCount += 1
                conditions += constraint.texts
                continue
            }
            if let points = constraint.points {
                let keys = Set(points.map { value -> [UInt8] in
                    var key = prefix
                    IndexKeyEncoding.append(value, to: &key)
                    return key
                }).sorted { $0.lexicographicallyPrecedes($1) }
                let unique = index.description.isUnique && equalityCount + 1 == index.attributeNumbers.count && !hasNil
                    && !points.contains { $0 == nil }
                return IndexAccess(
                    index: index, ranges: keys.map(KeyRange.prefix), equalityCount: equalityCount,
                    rangeAttribute: number, isUniqueLookup: unique, conditions: conditions + constraint.texts)
            }
            if constraint.isRange {
                return IndexAccess(
                    index: index, ranges: [range(constraint, within: prefix)], equalityCount: equalityCount,
                    rangeAttribute: number, isUniqueLookup: false, conditions: conditions + constraint.texts)
            }
            break
        }
        guard equalityCount > 0 else { return nil }
        let unique = index.description.isUnique && equalityCount == index.attributeNumbers.count && !hasNil
        return IndexAccess(
            index: index, ranges: [.prefix(prefix)], equalityCount: equalityCount,
            rangeAttribute: nil, isUniqueLookup: unique, conditions: conditions)
    }

    /// The keys under `prefix` whose next value is within the constraint's
    /// bounds (never nil: no range includes nil).
    private static func range(_ constraint: Constraint, within prefix: [UInt8]) -> KeyRange {
        if let text = constraint.prefix {
            return .prefix(prefix + IndexKeyEncoding.stringPrefix(text))
        }
        var lower = KeyRange.Bound(prefix + [0x01], isInclusive: true)
        if let (value, inclusive) = constraint.lower {
            var key = prefix
            IndexKeyEncoding.append(value, to: &key)
            lower = inclusive ? KeyRange.Bound(key, isInclusive: true)
                : KeyRange.Bound(KeyRange.successor(ofPrefix: key) ?? key, isInclusive: true)
        }
        var upper: KeyRange.Bound? = KeyRange.successor(ofPrefix: prefix).map { KeyRange.Bound($0, isInclusive: false) }
        if let (value, inclusive) = constraint.upper {
            var key = prefix
            IndexKeyEncoding.append(value, to: &key)
            if inclusive {
                upper = KeyRange.successor(ofPrefix: key).map { KeyRange.Bound($0, isInclusive: false) }
            } else {
                upper = KeyRange.Bound(key, isInclusive: false)
            }
        }
        return KeyRange(lower: lower, upper: upper)
    }
}

extension PredicateFormatter {
    /// One compiled comparison as text, with the attribute's name.
    static func format(term comparison: CompiledComparison, entity: EntityDescription) -> String {
        func text(_ operand: Operand) -> String {
            switch operand {
            case .attribute(let number): format(FetchPredicate.Expression.key(entity.attributes[number].name))
            case .constant(let value): format(value)
            case .variable(let name): "$\(name)"
            case .list(let elements): "{" + elements.map(text).joined(separator: ", ") + "}"
            }
        }
        var flags = ""
        if comparison.options.contains(.caseInsensitive) { flags += "c" }
        if comparison.options.contains(.diacriticInsensitive) { flags += "d" }
        return "\(text(comparison.left)) \(comparison.operation.rawValue)\(flags.isEmpty ? "" : "[\(flags)]") \(text(comparison.right))"
    }
}
