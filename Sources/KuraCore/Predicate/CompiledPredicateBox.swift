import Synchronization

/// A compiled predicate carried by a fetch request made from a template,
/// so the fetch doesn't compile it again; and, for a template that looks an
/// object up by a unique index, the index key to look for, so the fetch
/// doesn't plan either.
///
/// The box keeps the template and the values of its variables; the
/// substituted tree is built when a fetch first needs it (a lookup whose
/// index key decides the match, ``PlannedLookup/decidesMatch``, never
/// does), and the substituted ``FetchPredicate`` only when someone reads
/// the request's predicate. A lookup makes two allocations: the box and
/// the index key.
@usableFromInline
final class CompiledPredicateBox: Sendable {
    let template: FetchRequestTemplate
    /// The values of the template's variables, in the order of its
    /// ``FetchRequestTemplate/variableList``: the first one apart, so that
    /// a template of one variable needs no array.
    private let firstValue: FetchPredicate.Expression
    private let otherValues: [FetchPredicate.Expression]
    /// The unique index's key for the values, when the template looks one up.
    let lookupKey: [UInt8]?
    /// The template's compiled tree, or the substituted tree once built.
    private let tree: Mutex<Tree>

    private enum Tree {
        case unsubstituted
        case substituted(CompiledPredicate)
    }

    /// A box for `template` with `first` the value of its first variable
    /// and `others` those of the rest, in the order of its
    /// ``FetchRequestTemplate/variableList``; with `substituted`, the tree
    /// with those values in place, else (only for trees that compare
    /// attributes with plain values, whose substitution can't fail: no
    /// pattern to compile, no object to find) substituted when first read.
    init(_ template: FetchRequestTemplate, first: FetchPredicate.Expression, others: [FetchPredicate.Expression],
         substituted: CompiledPredicate? = nil) {
        assert(template.compiled != nil && others.count == template.variableList.count - 1,
               "a box is made for a compiled template, with a value for each variable")
        self.template = template
        firstValue = first
        otherValues = others
        lookupKey = template.lookup.flatMap { lookup in lookup.key { $0 == 0 ? first : others[$0 - 1] } }
        tree = Mutex(substituted.map(Tree.substituted) ?? .unsubstituted)
    }

    /// The entity the predicate was compiled for.
    var entity: EntityDescription { template.entity }

    /// The unique-index lookup the template makes with these values, if it makes one.
    var lookup: PlannedLookup? {
        guard let lookupKey, let planned = template.lookup else { return nil }
        return PlannedLookup(indexName: planned.indexName, prefix: lookupKey, decidesMatch: planned.decidesMatch)
    }

    /// Each variable's name and value.
    private var substitutions: [(String, FetchPredicate.Expression)] {
        var pairs = [(template.variableList[0].name, firstValue)]
        for (variable, value) in zip(template.variableList.dropFirst(), otherValues) { pairs.append((variable.name, value)) }
        return pairs
    }

    /// The predicate with the request's values in place of its variables.
    func compiled() throws -> CompiledPredicate {
        try tree.withLock { tree in
            switch tree {
            case .substituted(let compiled):
                return compiled
            case .unsubstituted:
                let template = template.compiled!
                let operands = substitutions.map { ($0.0, Operand(substituted: $0.1)) }
                let compiled = CompiledPredicate(entity: template.entity, root: try template.root.substituting(operands), variables: [:])
                tree = .substituted(compiled)
                return compiled
            }
        }
    }

    var substitutedPredicate: FetchPredicate {
        FetchPredicate(template.predicate!.root.substituting(substitutions))
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
