/// A predicate checked against an entity and made ready to evaluate: keys
/// are attribute positions or paths through relationships, constants have
/// the type of what they are compared with, string patterns are folded and
/// regular expressions compiled.
struct CompiledPredicate: Sendable {
    let entity: EntityDescription
    let root: CompiledNode
    /// What each `$variable` must be, for a template: the type of the
    /// attribute it is compared with, and whether it is a list.
    let variables: [String: VariableRequirement]

    /// True when evaluating it follows relationships (key paths, `SELF`,
    /// objects, aggregates, subqueries): stored records then need the store.
    var followsRelationships: Bool { root.followsRelationships }
}

/// What a template's `$variable` must be given.
struct VariableRequirement: Sendable, Hashable {
    /// The attribute (or relationship) the variable is compared with.
    var key: String
    var type: AttributeType
    /// For a variable compared with objects: their entity.
    var objectEntity: String?
    /// True for `IN $list` and `BETWEEN $pair`.
    var isList: Bool

    init(key: String, type: AttributeType, objectEntity: String? = nil, isList: Bool) {
        self.key = key
        self.type = type
        self.objectEntity = objectEntity
        self.isList = isList
    }
}

indirect enum CompiledNode: Sendable {
    case constant(Bool)
    case not(CompiledNode)
    case and([CompiledNode])
    case or([CompiledNode])
    case comparison(CompiledComparison)
}

/// An object a predicate names: its entity and key (a temporary ID's number
/// for an object not saved yet, which only its own context can match).
struct ObjectReference: Sendable, Hashable {
    let entity: EntityDescription
    let number: UInt64
    let isTemporary: Bool
}

/// A path from the evaluated object (or a `SUBQUERY`'s member) through
/// relationships, to an attribute or to the objects reached.
struct CompiledPath: Sendable, Hashable {
    enum Origin: Sendable, Hashable {
        /// The object being evaluated.
        case evaluated
        /// The member a `SUBQUERY` is testing, by nesting depth.
        case bound(Int)
    }

    let origin: Origin
    let hops: [RelationshipLink]
    /// The attribute at the end, of the last hop's destination (or of the
    /// origin when there is no hop); `nil` for the objects themselves.
    let attribute: Int?
    /// The entity the path ends at.
    let entity: EntityDescription

    /// True when a hop is to-many: the path gives a collection.
    var isToMany: Bool { hops.contains { $0.isToMany } }
}

/// One side of a compiled comparison.
indirect enum Operand: Sendable, Hashable {
    /// An attribute of the evaluated object.
    case attribute(Int)
    case constant(AttributeValue?)
    case variable(String)
    case list([Operand])
    /// A path through relationships, or `SELF` (no hops, no attribute).
    case path(CompiledPath)
    /// An object constant.
    case object(ObjectReference)
    /// A collection operator over a collection (a to-many path or a
    /// subquery), of the members' attribute at `path`.
    case aggregate(FetchPredicate.Aggregate, Operand, CompiledPath?)
    /// The members of a to-many path that match a predicate.
    case subquery(CompiledSubquery)
    /// Arithmetic on two numbers.
    case arithmetic(FetchPredicate.ArithmeticOperator, Operand, Operand)
}

extension Operand {
    /// Calls `body` with every key path the operand reads (see ``CompiledNode/forEachPath(_:)``).
    func forEachPath(_ body: (CompiledPath) -> Void) {
        switch self {
        case .path(let path): body(path)
        case .list(let elements): elements.forEach { $0.forEachPath(body) }
        case .aggregate(_, let collection, let path):
            collection.forEachPath(body)
            path.map(body)
        case .subquery(let subquery):
            body(subquery.collection)
            subquery.predicate.forEachPath(body)
        case .arithmetic(_, let left, let right):
            left.forEachPath(body)
            right.forEachPath(body)
        case .attribute, .constant, .variable, .object: break
        }
    }
}

/// `SUBQUERY(collection, $x, predicate)`, compiled.
struct CompiledSubquery: Sendable, Hashable {
    let collection: CompiledPath
    /// The nesting depth at which the member is bound.
    let depth: Int
    let predicate: CompiledNode

    static func == (lhs: CompiledSubquery, rhs: CompiledSubquery) -> Bool {
        lhs.collection == rhs.collection && lhs.depth == rhs.depth
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(collection)
        hasher.combine(depth)
    }
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
    /// How a collection on the left is tested: `ANY` (also for a to-many
    /// path without a modifier), `ALL` or `NONE`; `.direct` for one value.
    var quantifier: FetchPredicate.Quantifier = .direct
    /// True when an operand follows relationships, so the comparison is
    /// evaluated on the object graph.
    var followsRelationships = false
    /// For a test of a list attribute's elements (`ANY tags == 'swift'`):
    /// the elements' type; the left operand is the list attribute, tested
    /// element by element as `quantifier` says.
    var listElementType: AttributeType?
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
    /// Calls `body` with the position of every attribute of the evaluated
    /// object the tree reads directly.
    func forEachAttribute(_ body: (Int) -> Void) {
        func visit(_ operand: Operand) {
            switch operand {
            case .attribute(let number): body(number)
            case .list(let elements): elements.forEach(visit)
            case .path(let path) where path.hops.isEmpty && path.origin == .evaluated: path.attribute.map(body)
            default: break
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

    /// Calls `body` with every key path through relationships the tree
    /// reads: in comparisons, aggregates and subqueries (their collections
    /// and the paths inside them).
    func forEachPath(_ body: (CompiledPath) -> Void) {
        switch self {
        case .constant: break
        case .not(let node): node.forEachPath(body)
        case .and(let nodes), .or(let nodes): nodes.forEach { $0.forEachPath(body) }
        case .comparison(let comparison):
            comparison.left.forEachPath(body)
            comparison.right.forEachPath(body)
        }
    }

    /// True when a comparison of the tree follows relationships.
    var followsRelationships: Bool {
        switch self {
        case .constant: false
        case .not(let node): node.followsRelationships
        case .and(let nodes), .or(let nodes): nodes.contains { $0.followsRelationships }
        case .comparison(let comparison): comparison.followsRelationships
        }
    }

    /// The tree with each `$variable` operand replaced (values already
    /// converted to their attributes' types), wherever it is: either side of
    /// a comparison, inside a list (`BETWEEN {$low, $high}`), an aggregate's
    /// collection or a `SUBQUERY`'s predicate. Patterns are prepared again.
    func substituting(_ values: [(String, Operand)]) throws -> CompiledNode {
        switch self {
        case .constant: return self
        case .not(let node): return .not(try node.substituting(values))
        case .and(let nodes): return .and(try nodes.map { try $0.substituting(values) })
        case .or(let nodes): return .or(try nodes.map { try $0.substituting(values) })
        case .comparison(var comparison):
            guard comparison.left.hasVariables || comparison.right.hasVariables else { return self }
            comparison.left = try comparison.left.substituting(values)
            comparison.right = try comparison.right.substituting(values)
            if comparison.neverMatches { return .constant(false) }
            try comparison.preparePatterns()
            return .comparison(comparison)
        }
    }

    /// True when a `$variable` is anywhere in the tree.
    var hasVariables: Bool {
        switch self {
        case .constant: false
        case .not(let node): node.hasVariables
        case .and(let nodes), .or(let nodes): nodes.contains { $0.hasVariables }
        case .comparison(let comparison): comparison.left.hasVariables || comparison.right.hasVariables
        }
    }
}

extension Operand {
    /// The operand with variables replaced, inside lists, aggregates and
    /// subqueries too.
    func substituting(_ values: [(String, Operand)]) throws -> Operand {
        switch self {
        case .variable(let name): return values.first { $0.0 == name }?.1 ?? self
        case .list(let elements): return .list(try elements.map { try $0.substituting(values) })
        case .aggregate(let aggregate, let collection, let path): return .aggregate(aggregate, try collection.substituting(values), path)
        case .subquery(let subquery):
            guard subquery.predicate.hasVariables else { return self }
            return .subquery(CompiledSubquery(
                collection: subquery.collection, depth: subquery.depth, predicate: try subquery.predicate.substituting(values)))
        case .arithmetic(let operation, let left, let right):
            return .arithmetic(operation, try left.substituting(values), try right.substituting(values))
        case .attribute, .constant, .path, .object: return self
        }
    }

    /// True when a `$variable` is in the operand (in a list, an aggregate's
    /// collection or a subquery's predicate included).
    var hasVariables: Bool {
        switch self {
        case .variable: true
        case .list(let elements): elements.contains { $0.hasVariables }
        case .aggregate(_, let collection, _): collection.hasVariables
        case .subquery(let subquery): subquery.predicate.hasVariables
        case .arithmetic(_, let left, let right): left.hasVariables || right.hasVariables
        case .attribute, .constant, .path, .object: false
        }
    }
}

extension RelationshipLink: Hashable {
    static func == (lhs: RelationshipLink, rhs: RelationshipLink) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
