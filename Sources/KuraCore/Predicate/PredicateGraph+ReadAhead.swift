/// Reading ahead what a predicate will follow, for engines whose reads are
/// requests: evaluated record by record, a predicate through relationships
/// would read each record's destinations and members with requests of
/// their own (one per record and hop). Read ahead for a batch of records,
/// it costs one request per hop of each path for the whole batch.
extension PredicateGraph {
    /// The hops of the key paths `predicate` follows from the evaluated
    /// object (a subquery's member and an aggregate's member path counted
    /// from there), without repeats: every prefix of every path, shortest first.
    static func readAheadHops(of predicate: CompiledPredicate) -> [[RelationshipLink]] {
        var hops: [[RelationshipLink]] = []
        var seen = Set<[String]>()
        func add(_ path: [RelationshipLink]) {
            for length in 0..<path.count {
                let prefix = Array(path.prefix(length + 1))
                if seen.insert(name(of: prefix[...])).inserted { hops.append(prefix) }
            }
        }
        /// The hops from the evaluated object to where `path` ends, given
        /// the hops to each subquery member bound so far.
        func full(_ path: CompiledPath, _ bound: [Int: [RelationshipLink]], from base: [RelationshipLink]) -> [RelationshipLink]? {
            switch path.origin {
            case .evaluated: base + path.hops
            case .bound(let depth): bound[depth].map { $0 + path.hops }
            }
        }
        func visit(_ operand: Operand, _ bound: [Int: [RelationshipLink]], _ base: [RelationshipLink]) -> [RelationshipLink]? {
            switch operand {
            case .path(let path):
                let hops = full(path, bound, from: base)
                hops.map(add)
                return hops
            case .list(let elements):
                for element in elements { _ = visit(element, bound, base) }
                return nil
            case .aggregate(_, let collection, let memberPath):
                // The member path is followed from each member.
                if let members = visit(collection, bound, base), let memberPath {
                    _ = visit(.path(memberPath), [:], members)
                }
                return nil
            case .subquery(let subquery):
                guard let members = full(subquery.collection, bound, from: base) else { return nil }
                add(members)
                var inner = bound
                inner[subquery.depth] = members
                visit(subquery.predicate, inner, base)
                return members
            case .arithmetic(_, let left, let right):
                _ = visit(left, bound, base)
                _ = visit(right, bound, base)
                return nil
            case .attribute, .constant, .variable, .object:
                return nil
            }
        }
        func visit(_ node: CompiledNode, _ bound: [Int: [RelationshipLink]], _ base: [RelationshipLink]) {
            switch node {
            case .constant: break
            case .not(let node): visit(node, bound, base)
            case .and(let nodes), .or(let nodes): for node in nodes { visit(node, bound, base) }
            case .comparison(let comparison):
                _ = visit(comparison.left, bound, base)
                _ = visit(comparison.right, bound, base)
            }
        }
        visit(predicate.root, [:], [])
        return hops.sorted { $0.count < $1.count }
    }

    /// Reads ahead, hop by hop, the records and relationship entries that
    /// following `hops` from `records` reads (stored records only: the
    /// context's changed objects are in memory). Later reads of this
    /// transaction find them without a request.
    func readAhead(_ hops: [[RelationshipLink]], from records: [(UInt64, RecordView)], of entity: EntityDescription) throws {
        guard let transaction, !hops.isEmpty, !records.isEmpty else { return }
        // The nodes each path prefix reaches, level by level.
        var reached: [[String]: [GraphNode]] = [[]: records.map { GraphNode.record(entity, $0.0, $0.1) }]
        for path in hops {
            let link = path[path.count - 1]
            guard let from = reached[Self.name(of: path.dropLast())] else { continue }
            let owners: [UInt64] = from.compactMap { node in
                if case .record(_, let key, _) = node { key } else { nil }
            }
            if link.isToMany {
                try transaction.readAhead {
                    $0.read(ranges: owners.map { KeyRange.prefix(StoreLayout.key($0)) }, in: store.memberSpace(of: link))
                }
                var keys: [UInt64] = []
                for owner in owners {
                    try store.forEachMemberKey(of: link, owner: owner, in: transaction) { keys.append($0); return true }
                }
                try transaction.readAhead { $0.read(keys: keys.map(StoreLayout.key), in: store.spaces(for: link.destination).records) }
            } else {
                let keys: [UInt64] = from.compactMap { node in
                    guard case .record(_, _, let view) = node, let field = link.field else { return nil }
                    return view.reference(field)
                }
                try transaction.readAhead { $0.read(keys: keys.map(StoreLayout.key), in: store.spaces(for: link.destination).records) }
            }
            if path.count < hops.last!.count {
                reached[Self.name(of: path[...])] = try from.flatMap { node in
                    link.isToMany ? try members(of: node, link) : try destination(of: node, link).map { [$0] } ?? []
                }
            }
        }
    }

    private static func name(of hops: ArraySlice<RelationshipLink>) -> [String] {
        hops.map { "\($0.source.name).\($0.name)" }
    }
}
