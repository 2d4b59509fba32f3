import Synchronization

/// A compiled predicate carried by a fetch request made from a template,
/// so the fetch doesn't compile it again; and, for a template that looks an
/// object up by a unique index, the index key to look for, so the fetch
/// doesn't plan either.
///
/// The substituted tree is built when a fetch first needs it: a lookup
/// whose index key decides the match (``PlannedLookup/decidesMatch``)
/// never does.
final class CompiledPredicateBox: Sendable {
    /// The entity the predicate was compiled for.
    let entity: EntityDescription
    let lookup: PlannedLookup?
    /// The template's predicate and the values of its variables: the
    /// request's predicate is built from them only when someone reads it.
    let template: FetchPredicate
    let substitutions: [(String, FetchPredicate.Expression)]
    /// The template's compiled tree, or the substituted tree once built.
    private let tree: Mutex<Tree>

    private enum Tree {
        case unsubstituted(CompiledPredicate)
        case substituted(CompiledPredicate)
    }

    /// A box whose tree is substituted when first read, from `substitutions`.
    /// Only for trees that compare attributes with plain values, whose
    /// substitution can't fail (no pattern to compile, no object to find).
    convenience init(_ unsubstituted: CompiledPredicate, lookup: PlannedLookup?, template: FetchPredicate,
                     substitutions: [(String, FetchPredicate.Expression)]) {
        self.init(.unsubstituted(unsubstituted), lookup: lookup, template: template, substitutions: substitutions)
    }

    /// A box holding a substituted tree.
    convenience init(substituted compiled: CompiledPredicate, lookup: PlannedLookup?, template: FetchPredicate,
                     substitutions: [(String, FetchPredicate.Expression)]) {
        self.init(.substituted(compiled), lookup: lookup, template: template, substitutions: substitutions)
    }

    private init(_ tree: Tree, lookup: PlannedLookup?, template: FetchPredicate, substitutions: [(String, FetchPredicate.Expression)]) {
        switch tree {
        case .unsubstituted(let compiled), .substituted(let compiled): entity = compiled.entity
        }
        self.tree = Mutex(tree)
        self.lookup = lookup
        self.template = template
        self.substitutions = substitutions
    }

    /// The predicate with the request's values in place of its variables.
    func compiled() throws -> CompiledPredicate {
        try tree.withLock { tree in
            switch tree {
            case .substituted(let compiled):
                return compiled
            case .unsubstituted(let template):
                let operands = substitutions.map { ($0.0, Operand(substituted: $0.1)) }
                let compiled = CompiledPredicate(entity: template.entity, root: try template.root.substituting(operands), variables: [:])
                tree = .substituted(compiled)
                return compiled
            }
        }
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
    /// True when finding the key decides the match: every attribute looked
    /// up is of a type whose index key is equal exactly when the values are
    /// (integers, Booleans, strings (both sides in NFC), UUIDs), so the
    /// record found needs no evaluation. (Doubles and dates aren't: -0 and
    /// NaN.)
    let decidesMatch: Bool
}

extension Operand {
    /// A substituted value (or list of values) of a `$variable` compared
    /// with an attribute, as an operand.
    init(substituted expression: FetchPredicate.Expression) {
        switch expression {
        case .value(let value): self = .constant(value)
        case .list(let elements): self = .list(elements.map(Operand.init(substituted:)))
        default: self = .constant(nil)
        }
    }
}
