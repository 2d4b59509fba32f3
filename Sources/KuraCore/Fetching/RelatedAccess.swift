/// A way into a fetch through a relationship: find the destinations a term
/// of the predicate names (through an index of the destination entity, or
/// by the objects the term gives), then the fetched objects that point to
/// them, through the relationship's own entries. `author.name == "Ann"` with
/// `Author.name` indexed looks the authors up first; `ANY tags.name ==
/// "swift"` the tags; `author == %@` needs no search at all.
final class RelatedAccess: Sendable {
    /// How the destinations are found.
    enum Destinations: Sendable {
        /// Through an index of the destination entity.
        case index(IndexAccess)
        /// The objects a term names.
        case keys([UInt64])
    }

    /// The fetched entity's relationship the term follows.
    let link: RelationshipLink
    let destinations: Destinations
    /// The term, for `explain`.
    let term: CompiledComparison
    let entity: EntityDescription
    /// What the fetch still checks of each object found: the predicate's
    /// other terms (`nil` when none), when this way finds exactly the
    /// objects the term matches; else the whole predicate.
    let residual: CompiledPredicate?
    /// True when `residual` is the other terms only.
    let isExact: Bool
    /// The term's position in the predicate's top-level AND (`nil`: the term
    /// is the whole predicate), for writing the residual.
    let position: Int?

    init(
        link: RelationshipLink, destinations: Destinations, term: CompiledComparison, predicate: CompiledPredicate,
        position: Int?, isExact: Bool
    ) {
        self.link = link
        self.destinations = destinations
        self.term = term
        self.entity = predicate.entity
        self.position = position
        self.isExact = isExact
        if !isExact {
            residual = predicate
        } else if let position, case .and(var terms) = predicate.root {
            terms.remove(at: position)
            residual = CompiledPredicate(entity: predicate.entity, root: terms.count == 1 ? terms[0] : .and(terms), variables: predicate.variables)
        } else {
            residual = nil
        }
    }

    /// The residual as text, from the request's predicate (`nil`: none).
    func residualFormat(of predicate: FetchPredicate) -> String? {
        guard isExact else { return predicate.predicateFormat }
        guard let position, case .and(var terms) = predicate.root else { return nil }
        terms.remove(at: position)
        return PredicateFormatter.format(terms.count == 1 ? terms[0] : .and(terms))
    }

    /// The term as text.
    var condition: String { PredicateFormatter.format(term: term, entity: entity) }

    /// `THROUGH author USING INDEX Author.name`, for a plan's description.
    var route: String {
        switch destinations {
        case .index(let access):
            "THROUGH \(link.name) USING \(access.index.description.isUnique ? "UNIQUE INDEX" : "INDEX") \(link.destination.name).\(access.index.description.name)"
        case .keys(let keys):
            "THROUGH \(link.name) FROM \(keys.count) \(keys.count == 1 ? "OBJECT" : "OBJECTS")"
        }
    }

    /// The terms of a predicate that can be answered this way: the predicate
    /// itself or a term of a top-level AND, comparing a path of one hop from
    /// the evaluated object (`author.name`, `ANY tags.name`, `author`) with
    /// constants. A to-one's term must be false for an object without a
    /// destination (`author.name == nil` and `author.name != "Ann"` are true
    /// for one, and its objects aren't found through the relationship).
    static func accesses(for predicate: CompiledPredicate, store: PersistentStore) -> [RelatedAccess] {
        let terms: [CompiledNode]
        var isConjunction = false
        if case .and(let nodes) = predicate.root {
            terms = nodes
            isConjunction = true
        } else {
            terms = [predicate.root]
        }
        var accesses: [RelatedAccess] = []
        for (position, term) in terms.enumerated() {
            guard case .comparison(let comparison) = term, comparison.quantifier == .direct || comparison.quantifier == .any,
                  case .path(let path) = comparison.left, path.origin == .evaluated, path.hops.count == 1 else { continue }
            let link = path.hops[0]
            if !link.isToMany && (comparison.operation == .notEqual || comparison.right.holdsNil) { continue }
            let termPosition = isConjunction ? position : nil
            if let number = path.attribute {
                // The destination entity's indexes, for the same comparison on its attribute.
                var direct = comparison
                direct.left = .attribute(number)
                direct.quantifier = .direct
                direct.followsRelationships = false
                let destination = CompiledPredicate(entity: link.destination, root: .comparison(direct), variables: [:])
                let candidates = IndexBounds.accesses(for: destination, spaces: store.spaces(for: link.destination))
                guard let best = candidates.min(by: { ($0.isUniqueLookup ? 0 : 1, $0.ranges.count) < ($1.isUniqueLookup ? 0 : 1, $1.ranges.count) })
                else { continue }
                accesses.append(RelatedAccess(
                    link: link, destinations: .index(best), term: comparison, predicate: predicate, position: termPosition,
                    isExact: best.coversPredicate))
            } else {
                // `author == %@`, `author IN %@`: the objects themselves.
                var keys: [UInt64] = []
                switch (comparison.operation, comparison.right) {
                case (.equal, .object(let reference)) where !reference.isTemporary:
                    keys = [reference.number]
                case (.in, .list(let elements)):
                    for element in elements {
                        guard case .object(let reference) = element, !reference.isTemporary else { keys = []; break }
                        keys.append(reference.number)
                    }
                    if keys.isEmpty { continue }
                default:
                    continue
                }
                accesses.append(RelatedAccess(
                    link: link, destinations: .keys(keys), term: comparison, predicate: predicate, position: termPosition, isExact: true))
            }
        }
        return accesses
    }

    /// The destinations' keys, reading at most `cap` index entries (`nil`
    /// when there are more).
    func destinationKeys(cap: Int, store: PersistentStore, in txn: StoreTransaction) throws -> [UInt64]? {
        switch destinations {
        case .keys(let keys):
            return keys
        case .index(let access):
            var keys: [UInt64] = []
            if !access.lookupPrefixes.isEmpty {
                for prefix in access.lookupPrefixes {
                    if let key = try access.index.space.withValue(forKey: prefix, in: txn, { value -> UInt64? in
                        value.count == 8 ? StoreLayout.primaryKey(fromSuffixOf: value) : nil
                    }), let key { keys.append(key) }
                }
                return keys
            }
            for range in access.ranges {
                var complete = true
                try access.index.space.forEach(in: txn, range: range, readAhead: cap + 1) { entry in
                    keys.append(try IndexSpace.primaryKey(of: entry, index: access.index, path: store.path))
                    if keys.count > cap {
                        complete = false
                        return false
                    }
                    return true
                }
                if !complete { return nil }
            }
            return keys
        }
    }

    /// The fetched objects that point to the destinations `keys`: their
    /// primary keys, ascending, each once; `nil` when there are more than `cap`.
    func sourceKeys(pointingTo keys: [UInt64], cap: Int, store: PersistentStore, in txn: StoreTransaction) throws -> [UInt64]? {
        // One destination's entries come sorted and unique; several
        // destinations' lists are merged by one sort. (Counted with repeats,
        // a list may reach the cap a little early: another way wins then.)
        guard var sources = try store.storage(of: link).sourceKeys(pointingTo: keys, cap: cap, store: store, in: txn) else {
            return nil
        }
        if keys.count > 1 {
            sources.sort()
            sources.removeAdjacentDuplicates()
        }
        return sources
    }
}

private extension Operand {
    /// True for `nil`, or a list holding it.
    var holdsNil: Bool {
        switch self {
        case .constant(let value): value == nil
        case .list(let elements): elements.contains { $0.holdsNil }
        default: false
        }
    }
}

private extension Array where Element == UInt64 {
    /// Removes each element equal to the one before it (a sorted array becomes unique).
    mutating func removeAdjacentDuplicates() {
        guard count > 1 else { return }
        var kept = 1
        for index in 1..<count where self[index] != self[kept - 1] {
            self[kept] = self[index]
            kept += 1
        }
        removeLast(count - kept)
    }
}
