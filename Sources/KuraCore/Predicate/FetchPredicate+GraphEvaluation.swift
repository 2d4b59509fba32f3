import Foundation

extension AttributeSource {
    /// Sources without an object graph (two constants, decoded values) never
    /// meet a comparison that follows relationships.
    func evaluateOnGraph(_ comparison: CompiledComparison) throws -> Bool {
        throw KuraError.invalidPredicate("this predicate follows relationships, which need a store")
    }

    func value(of path: CompiledPath) throws -> AttributeValue? {
        throw KuraError.invalidPredicate("this key path follows relationships, which need a store")
    }
}

/// A value computed on the object graph: an attribute's value, an object,
/// or several of either (a to-many path, a subquery, a list).
enum GraphValue {
    case scalar(AttributeValue?)
    case object(ObjectReference?)
    case many([GraphValue])

    /// The values to test one by one: a collection's, or this one.
    var elements: [GraphValue] {
        if case .many(let values) = self { return values }
        return [self]
    }

    var scalar: AttributeValue? {
        if case .scalar(let value) = self { return value }
        return nil
    }
}

/// A comparison's view of one node, for nodes reached inside a subquery.
private struct GraphNodeSource: AttributeSource {
    let node: GraphNode
    let graph: PredicateGraph
    let bindings: [GraphNode]

    func attributeValue(_ number: Int) -> AttributeValue? {
        (try? graph.attribute(number, of: node)) ?? nil
    }

    func evaluateOnGraph(_ comparison: CompiledComparison) throws -> Bool {
        try comparison.evaluate(on: node, graph: graph, bindings: bindings)
    }
}

extension CompiledNode {
    /// Evaluates the tree on a node of the graph (a subquery's member).
    func evaluate(on node: GraphNode, graph: PredicateGraph, bindings: [GraphNode]) throws -> Bool {
        if case .object(let object) = node { try object.loadValues() }
        return try evaluate(on: GraphNodeSource(node: node, graph: graph, bindings: bindings))
    }
}

extension CompiledComparison {
    /// Evaluates the comparison from `node`, following relationships. A
    /// collection on the left is tested member by member as the quantifier
    /// says (`ANY`, `ALL`, `NONE`).
    func evaluate(on node: GraphNode, graph: PredicateGraph, bindings: [GraphNode]) throws -> Bool {
        let value = try Self.value(of: left, at: node, graph, bindings)
        switch quantifier {
        case .direct:
            return try test(value, node, graph, bindings)
        case .any:
            for element in value.elements where try test(element, node, graph, bindings) { return true }
            return false
        case .all:
            for element in value.elements where !(try test(element, node, graph, bindings)) { return false }
            return true
        case .none:
            for element in value.elements where try test(element, node, graph, bindings) { return false }
            return true
        }
    }

    /// One value of the left side against the right side.
    private func test(_ value: GraphValue, _ node: GraphNode, _ graph: PredicateGraph, _ bindings: [GraphNode]) throws -> Bool {
        switch operation {
        case .equal, .notEqual:
            let equal = same(value, try Self.value(of: right, at: node, graph, bindings))
            return operation == .equal ? equal : !equal
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return isOrdered(value.scalar, try Self.value(of: right, at: node, graph, bindings).scalar)
        case .between:
            let bounds = try Self.value(of: right, at: node, graph, bindings).elements
            guard bounds.count == 2 else { return false }
            return isBetween(value.scalar, bounds[0].scalar, bounds[1].scalar)
        case .in:
            let candidates = try Self.value(of: right, at: node, graph, bindings)
            if case .scalar(let whole) = candidates { return isPart(value.scalar, of: whole) }  // a string is searched
            return candidates.elements.contains { same(value, $0) }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let text = Self.text(value.scalar) else { return false }
            let other = pattern == nil && likePattern == nil && regularExpression == nil
                ? Self.text(try Self.value(of: right, at: node, graph, bindings).scalar) : nil
            return matchString(text, pattern: other)
        }
    }

    private func same(_ a: GraphValue, _ b: GraphValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)): x == y
        case (.object(nil), .scalar(nil)), (.scalar(nil), .object(nil)): true
        case (.scalar(let x), .scalar(let y)): equal(x, y)
        default: false
        }
    }

    /// What an operand is, from `node`.
    static func value(of operand: Operand, at node: GraphNode, _ graph: PredicateGraph, _ bindings: [GraphNode]) throws -> GraphValue {
        switch operand {
        case .attribute(let number): return .scalar(try graph.attribute(number, of: node))
        case .constant(let value): return .scalar(value)
        case .variable: return .scalar(nil)
        case .object(let reference): return .object(reference)
        case .list(let elements): return .many(try elements.map { try Self.value(of: $0, at: node, graph, bindings) })
        case .path(let path):
            let ends = try Self.ends(of: path, from: node, graph, bindings)
            let values: [GraphValue] = try ends.map { end in
                if let number = path.attribute { return .scalar(try graph.attribute(number, of: end)) }
                return .object(end.reference)
            }
            if path.isToMany { return .many(values) }
            return values.first ?? (path.attribute != nil ? .scalar(nil) : .object(nil))
        case .subquery(let subquery):
            return .many(try Self.members(of: subquery, from: node, graph, bindings).map { .object($0.reference) })
        case .aggregate(let aggregate, let collection, let memberPath):
            return .scalar(try Self.aggregate(aggregate, of: collection, memberPath, from: node, graph, bindings))
        case .arithmetic(let operation, let left, let right):
            return .scalar(operation.apply(
                try Self.value(of: left, at: node, graph, bindings).scalar, try Self.value(of: right, at: node, graph, bindings).scalar))
        }
    }

    /// The attribute at the end of a path through to-ones, from `node`.
    static func scalar(of path: CompiledPath, from node: GraphNode, _ graph: PredicateGraph) throws -> AttributeValue? {
        guard let number = path.attribute, let end = try ends(of: path, from: node, graph, []).first else { return nil }
        return try graph.attribute(number, of: end)
    }

    /// The nodes a path reaches from its origin.
    static func ends(of path: CompiledPath, from node: GraphNode, _ graph: PredicateGraph, _ bindings: [GraphNode]) throws -> [GraphNode] {
        var current: [GraphNode]
        switch path.origin {
        case .evaluated: current = [node]
        case .bound(let depth): current = depth < bindings.count ? [bindings[depth]] : []
        }
        for hop in path.hops {
            if hop.isToMany {
                current = try current.flatMap { try graph.members(of: $0, hop) }
            } else {
                current = try current.compactMap { try graph.destination(of: $0, hop) }
            }
        }
        return current
    }

    /// The members of a subquery's collection that match its predicate.
    static func members(
        of subquery: CompiledSubquery, from node: GraphNode, _ graph: PredicateGraph, _ bindings: [GraphNode]
    ) throws -> [GraphNode] {
        try ends(of: subquery.collection, from: node, graph, bindings).filter { member in
            var inner = Array(bindings.prefix(subquery.depth))
            inner.append(member)
            return try subquery.predicate.evaluate(on: member, graph: graph, bindings: inner)
        }
    }

    /// `@count`, `@sum`, `@avg`, `@min` or `@max` of a collection.
    static func aggregate(
        _ aggregate: FetchPredicate.Aggregate, of collection: Operand, _ memberPath: CompiledPath?,
        from node: GraphNode, _ graph: PredicateGraph, _ bindings: [GraphNode]
    ) throws -> AttributeValue? {
        let members: [GraphNode]
        switch collection {
        case .path(let path):
            // One to-many from the evaluated object: the store counts its entries.
            if aggregate == .count, path.origin == .evaluated, path.hops.count == 1 {
                return .int(Int64(try graph.memberCount(of: node, path.hops[0])))
            }
            members = try ends(of: path, from: node, graph, bindings)
        case .subquery(let subquery):
            members = try Self.members(of: subquery, from: node, graph, bindings)
        default:
            return nil
        }
        if aggregate == .count { return .int(Int64(members.count)) }
        guard let memberPath, let number = memberPath.attribute else { return nil }
        var values: [AttributeValue] = []
        for member in members {
            for end in try ends(of: memberPath, from: member, graph, []) {
                if let value = try graph.attribute(number, of: end) { values.append(value) }
            }
        }
        switch aggregate {
        case .count: return .int(Int64(values.count))
        case .min: return values.min { AttributeValue.compare($0, $1) < 0 }
        case .max: return values.max { AttributeValue.compare($0, $1) < 0 }
        case .sum, .avg:
            var integer: Int64 = 0
            var isInteger = true
            var total = 0.0
            for value in values {
                if case .int(let part) = value, isInteger {
                    let (sum, overflow) = integer.addingReportingOverflow(part)
                    if overflow { isInteger = false } else { integer = sum }
                } else {
                    isInteger = false
                }
                total += value.numericValue ?? 0
            }
            if aggregate == .avg { return values.isEmpty ? nil : .double(total / Double(values.count)) }
            return isInteger ? .int(integer) : .double(total)
        }
    }
}
