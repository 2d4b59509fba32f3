/// A part of a predicate an index can answer: key ranges over the index
/// that hold every object the predicate can match. A class, so a plan that
/// holds one is cheap to pass around.
final class IndexAccess: Sendable {
    let index: IndexSpace
    /// Ascending and disjoint.
    let ranges: [KeyRange]
    /// How many leading index attributes the ranges fix to one value.
    let equalityCount: Int
    /// True when each range holds at most one object: equality on every
    /// attribute of a unique index, with no nil.
    let isUniqueLookup: Bool
    /// For a unique lookup, the encoded values to find: each is a whole key.
    let lookupPrefixes: [[UInt8]]
    /// The comparisons used, for `explain` (empty for a template's planned
    /// lookup, which describes the whole predicate).
    let terms: [CompiledComparison]
    let entity: EntityDescription
    /// True when the ranges hold exactly the objects the predicate matches:
    /// every term of the predicate was used, and each one's index range is
    /// exact (not `BEGINSWITH`). The fetch then need not check the predicate.
    let coversPredicate: Bool

    init(
        index: IndexSpace, ranges: [KeyRange], equalityCount: Int, isUniqueLookup: Bool, lookupPrefixes: [[UInt8]] = [],
        terms: [CompiledComparison], entity: EntityDescription, coversPredicate: Bool
    ) {
        self.index = index
        self.ranges = ranges
        self.equalityCount = equalityCount
        self.isUniqueLookup = isUniqueLookup
        self.lookupPrefixes = lookupPrefixes
        self.terms = terms
        self.entity = entity
        self.coversPredicate = coversPredicate
    }

    /// The comparisons used, as text (made only when a plan is described).
    var conditions: [String] {
        terms.map { PredicateFormatter.format(term: $0, entity: entity) }
    }
}

/// Finds the index accesses a compiled predicate allows.
///
/// Only conditions that must all hold are used: the predicate itself, or
/// the terms of a top-level AND. Each is `attribute op constant` with `==`,
/// `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN`, or (for strings, without `[c]` or
/// `[d]`) `BEGINSWITH`. An index is usable when its first attribute has one;
/// equality on leading attributes of a compound index narrows further.
enum IndexBounds {
    /// A term of the predicate: its position among the terms (the
    /// comparison itself is read from the predicate when an access is
    /// made: copying it into every constraint cost more than planning).
    private typealias Term = Int

    /// What the terms say about one attribute, each with the term it comes from.
    private struct Constraint {
        var equal: AttributeValue??
        var points: [AttributeValue?]?
        var lower: (value: AttributeValue, inclusive: Bool)?
        var upper: (value: AttributeValue, inclusive: Bool)?
        var prefix: String?
        var equalTerm: Term?
        var pointsTerm: Term?
        var lowerTerm: Term?
        var upperTerm: Term?
        var prefixTerm: Term?

        var isRange: Bool { lower != nil || upper != nil || prefix != nil }

        /// The terms a range uses: the prefix alone when there is one (the
        /// bounds are then left to the predicate check), else the bounds.
        var rangeTerms: [Term] {
            if let prefixTerm { return [prefixTerm] }
            if let lowerTerm, let upperTerm, lowerTerm == upperTerm { return [lowerTerm] }
            return [lowerTerm, upperTerm].compactMap { $0 }
        }
    }

    static func accesses(for predicate: CompiledPredicate, spaces: EntitySpaces) -> [IndexAccess] {
        let termCount: Int
        if case .and(let nodes) = predicate.root { termCount = nodes.count } else { termCount = 1 }
        let constraints = constraints(of: predicate)
        guard !constraints.isEmpty else { return [] }
        var accesses: [IndexAccess] = []
        for index in spaces.indexes where index.isUsableForQueries {
            if let access = access(to: index, constraints: constraints, predicate: predicate, termCount: termCount) {
                accesses.append(access)
            }
        }
        return accesses
    }

    /// The comparison at `position` among the predicate's terms.
    private static func comparison(at position: Term, of predicate: CompiledPredicate) -> CompiledComparison? {
        let node: CompiledNode
        if case .and(let nodes) = predicate.root { node = nodes[position] } else { node = predicate.root }
        guard case .comparison(let comparison) = node else { return nil }
        return comparison
    }

    /// What the terms say about each attribute: a short list, searched
    /// linearly (a predicate has few terms; a dictionary would cost more).
    private typealias Constraints = [(number: Int, constraint: Constraint)]

    private static func constraints(of predicate: CompiledPredicate) -> Constraints {
        var constraints: Constraints = []
        let entity = predicate.entity
        func visit(_ term: CompiledNode, at position: Int) {
            // (A list's element test reads no index: its key is the whole list.)
            guard case .comparison(let comparison) = term, comparison.options.isEmpty, comparison.listElementType == nil,
                  case .attribute(let number) = comparison.left else { return }
            let type = entity.attributes[number].type
            let existing = constraints.firstIndex { $0.number == number }
            var constraint = existing.map { constraints[$0].constraint } ?? Constraint()
            switch (comparison.operation, comparison.right) {
            case (.equal, .constant(let value)):
                guard let exact = exactValue(value, type), constraint.equal == nil else { return }
                constraint.equal = .some(exact)
                constraint.equalTerm = position
            case (.in, .list(let elements)):
                let values = elements.compactMap { element -> AttributeValue?? in
                    guard case .constant(let value) = element else { return nil }
                    return exactValue(value, type)
                }
                guard values.count == elements.count, constraint.points == nil else { return }
                constraint.points = values
                constraint.pointsTerm = position
            case (.less, .constant(let value?)), (.lessOrEqual, .constant(let value?)):
                guard let exact = exactValue(value, type) ?? nil, constraint.upper == nil else { return }
                constraint.upper = (exact, comparison.operation == .lessOrEqual)
                constraint.upperTerm = position
            case (.greater, .constant(let value?)), (.greaterOrEqual, .constant(let value?)):
                guard let exact = exactValue(value, type) ?? nil, constraint.lower == nil else { return }
                constraint.lower = (exact, comparison.operation == .greaterOrEqual)
                constraint.lowerTerm = position
            case (.between, .list(let bounds)):
                guard bounds.count == 2, case .constant(let low?) = bounds[0], case .constant(let high?) = bounds[1],
                      let lower = exactValue(low, type) ?? nil, let upper = exactValue(high, type) ?? nil,
                      constraint.lower == nil, constraint.upper == nil else { return }
                constraint.lower = (lower, true)
                constraint.upper = (upper, true)
                constraint.lowerTerm = position
                constraint.upperTerm = position
            case (.beginsWith, .constant(.string(let prefix)?)) where type == .string:
                guard constraint.prefix == nil else { return }
                constraint.prefix = prefix
                constraint.prefixTerm = position
            default:
                return
            }
            if let existing { constraints[existing].constraint = constraint } else { constraints.append((number, constraint)) }
        }
        if case .and(let nodes) = predicate.root {
            for (position, node) in nodes.enumerated() { visit(node, at: position) }
        } else {
            visit(predicate.root, at: 0)
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

    private static func access(
        to index: IndexSpace, constraints: Constraints, predicate: CompiledPredicate, termCount: Int
    ) -> IndexAccess? {
        var prefix: [UInt8] = []
        var used: [Term] = []
        func made(_ ranges: [KeyRange], unique: Bool, prefixes: [[UInt8]], _ terms: [Term]) -> IndexAccess {
            let comparisons = terms.compactMap { comparison(at: $0, of: predicate) }
            // Distinct positions: a term may bound both ends (BETWEEN).
            var positions = terms
            positions.sort()
            var distinct = 0
            for (offset, position) in positions.enumerated() where offset == 0 || positions[offset - 1] != position { distinct += 1 }
            let covers = distinct == termCount && !comparisons.contains { $0.operation == .beginsWith }
            return IndexAccess(
                index: index, ranges: ranges, equalityCount: equalityCount, isUniqueLookup: unique,
                lookupPrefixes: unique ? prefixes : [], terms: comparisons, entity: predicate.entity, coversPredicate: covers)
        }
        var equalityCount = 0
        var hasNil = false
        for number in index.attributeNumbers {
            guard let found = constraints.firstIndex(where: { $0.number == number }) else { break }
            let constraint = constraints[found].constraint
            if prefix.isEmpty { prefix.reserveCapacity(64) }
            if let equal = constraint.equal {
                IndexKeyEncoding.append(equal, to: &prefix)
                if equal == nil { hasNil = true }
                equalityCount += 1
                if let term = constraint.equalTerm { used.append(term) }
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
                return made(keys.map(KeyRange.prefix), unique: unique, prefixes: keys, used + [constraint.pointsTerm].compactMap { $0 })
            }
            if constraint.isRange {
                return made([range(constraint, within: prefix)], unique: false, prefixes: [], used + constraint.rangeTerms)
            }
            break
        }
        guard equalityCount > 0 else { return nil }
        let unique = index.description.isUnique && equalityCount == index.attributeNumbers.count && !hasNil
        return made([.prefix(prefix)], unique: unique, prefixes: [prefix], used)
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
    /// One compiled comparison as text, with the names of the attributes and
    /// relationships it reads.
    static func format(term comparison: CompiledComparison, entity: EntityDescription) -> String {
        func path(_ path: CompiledPath) -> String {
            var names = path.hops.map(\.name)
            if let number = path.attribute { names.append(path.entity.attributes[number].name) }
            let origin: String
            switch path.origin {
            case .evaluated: origin = ""
            case .bound(let depth): origin = "$\(depth)"
            }
            let joined = names.joined(separator: ".")
            if origin.isEmpty { return joined.isEmpty ? "SELF" : formatKeyPath(joined) }
            return joined.isEmpty ? origin : origin + "." + joined
        }
        func text(_ operand: Operand) -> String {
            switch operand {
            case .attribute(let number): format(FetchPredicate.Expression.key(entity.attributes[number].name))
            case .constant(let value): format(value)
            case .variable(let name): "$\(name)"
            case .list(let elements): "{" + elements.map(text).joined(separator: ", ") + "}"
            case .path(let compiled): path(compiled)
            case .object(let reference):
                "CAST(\(quoted("kura://\(reference.entity.name)/\(reference.isTemporary ? "t" : "")\(reference.number)")), \"ObjectID\")"
            case .aggregate(let aggregate, let collection, let member):
                text(collection) + ".@" + aggregate.rawValue + (member.map { "." + path($0) } ?? "")
            case .subquery(let subquery): "SUBQUERY(\(path(subquery.collection)), $\(subquery.depth), …)"
            case .arithmetic(let operation, let left, let right): PredicateFormatter.formatArithmetic(operation, left, right, text)
            }
        }
        var flags = ""
        if comparison.options.contains(.caseInsensitive) { flags += "c" }
        if comparison.options.contains(.diacriticInsensitive) { flags += "d" }
        let prefix = comparison.quantifier == .direct || comparison.quantifier == .any && comparison.followsRelationships
            && !comparison.left.isQuantifiedExplicitly ? "" : comparison.quantifier.rawValue + " "
        return "\(prefix)\(text(comparison.left)) \(comparison.operation.rawValue)\(flags.isEmpty ? "" : "[\(flags)]") \(text(comparison.right))"
    }
}

extension Operand {
    /// Whether a quantifier is worth showing: always, for text read by people.
    var isQuantifiedExplicitly: Bool { true }
}
