/// Where a predicate reads attribute values: a stored record or an object.
/// The same evaluation serves both, so a fetch filters stored and unsaved
/// objects alike.
protocol AttributeSource {
    func attributeValue(_ number: Int) -> AttributeValue?
    /// Evaluates a comparison that follows relationships, from this source's object.
    func evaluateOnGraph(_ comparison: CompiledComparison) throws -> Bool
    /// The attribute at the end of a key path through to-ones (for sorting).
    func value(of path: CompiledPath) throws -> AttributeValue?
}

/// A stored record, read in place.
struct RecordSource: AttributeSource {
    let view: RecordView
    let entity: EntityDescription
    /// The record's primary key and the graph to follow relationships in;
    /// needed only by predicates that follow relationships.
    var primaryKey: UInt64 = 0
    var graph: PredicateGraph?

    @inline(__always)
    func attributeValue(_ number: Int) -> AttributeValue? {
        view.value(number, of: entity)
    }

    func evaluateOnGraph(_ comparison: CompiledComparison) throws -> Bool {
        guard let graph else { preconditionFailure("a predicate that follows relationships was evaluated without the store") }
        return try comparison.evaluate(on: .record(entity, primaryKey, view), graph: graph, bindings: [])
    }

    func value(of path: CompiledPath) throws -> AttributeValue? {
        guard let graph else { preconditionFailure("a key path was read without the store") }
        return try CompiledComparison.scalar(of: path, from: .record(entity, primaryKey, view), graph)
    }
}

/// An object's current values (loaded before evaluation).
struct ObjectSource: AttributeSource {
    let object: ManagedObject

    @inline(__always)
    func attributeValue(_ number: Int) -> AttributeValue? {
        object.values[number]
    }

    func evaluateOnGraph(_ comparison: CompiledComparison) throws -> Bool {
        guard let store = object.context?.store else { throw KuraError.objectDetached(object.objectID) }
        let graph = PredicateGraph(store: store, transaction: nil, pending: [:])
        return try comparison.evaluate(on: .object(object), graph: graph, bindings: [])
    }

    func value(of path: CompiledPath) throws -> AttributeValue? {
        guard let store = object.context?.store else { throw KuraError.objectDetached(object.objectID) }
        return try CompiledComparison.scalar(of: path, from: .object(object), PredicateGraph(store: store, transaction: nil, pending: [:]))
    }
}

extension CompiledPredicate {
    /// True when the object or record in `source` matches.
    @inline(__always)
    func evaluate<Source: AttributeSource>(on source: Source) throws -> Bool {
        try root.evaluate(on: source)
    }

    /// True when `object` matches; loads its values first.
    func evaluate(on object: ManagedObject) throws -> Bool {
        try object.loadValues()
        return try root.evaluate(on: ObjectSource(object: object))
    }
}

extension CompiledNode {
    func evaluate<Source: AttributeSource>(on source: Source) throws -> Bool {
        switch self {
        case .constant(let value): value
        case .not(let node): !(try node.evaluate(on: source))
        case .and(let nodes): try nodes.allSatisfy { try $0.evaluate(on: source) }
        case .or(let nodes): try nodes.contains { try $0.evaluate(on: source) }
        case .comparison(let comparison): try comparison.evaluate(on: source)
        }
    }
}

extension CompiledComparison {
    /// Core Data's meaning: `nil` equals only `nil` and is never less or
    /// greater than anything; numbers compare by value whatever their type;
    /// strings compare folded by `[c]`/`[d]`; string operators never match nil.
    func evaluate<Source: AttributeSource>(on source: Source) throws -> Bool {
        if followsRelationships { return try source.evaluateOnGraph(self) }
        if let listElementType { return try evaluateElements(of: listElementType, on: source) }
        let value = resolve(left, source)
        switch operation {
        case .equal:
            return equal(value, resolve(right, source))
        case .notEqual:
            return !equal(value, resolve(right, source))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return isOrdered(value, resolve(right, source))
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else { return false }
            return isBetween(value, resolve(bounds[0], source), resolve(bounds[1], source))
        case .in:
            guard case .list(let elements) = right else { return isPart(value, of: resolve(right, source)) }
            return elements.contains { equal(value, resolve($0, source)) }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let text = Self.text(value) else { return false }
            return matchString(text, pattern: Self.text(resolve(right, source)))
        }
    }

    /// A list attribute's elements tested one by one: `ANY` (one passes),
    /// `ALL` (none fails; true for an empty or absent list), `NONE`.
    private func evaluateElements<Source: AttributeSource>(of type: AttributeType, on source: Source) throws -> Bool {
        guard case .attribute(let number) = left else { return false }
        var elements: [AttributeValue] = []
        if case .data(let data)? = source.attributeValue(number) {
            elements = JSONAttributeCoding.elements(of: data, as: type) ?? []
        }
        var test = self
        test.listElementType = nil
        func passes(_ element: AttributeValue) throws -> Bool {
            try test.evaluate(on: ElementSource(base: source, number: number, element: element))
        }
        return switch quantifier {
        case .all: try elements.allSatisfy(passes)
        case .none: try !elements.contains(where: passes)
        case .any, .direct: try elements.contains(where: passes)
        }
    }

    private func resolve<Source: AttributeSource>(_ operand: Operand, _ source: Source) -> AttributeValue? {
        switch operand {
        case .attribute(let number): source.attributeValue(number)
        case .constant(let value): value
        case .arithmetic(let operation, let left, let right): operation.apply(resolve(left, source), resolve(right, source))
        case .variable, .list, .path, .object, .aggregate, .subquery: nil
        }
    }

    static func text(_ value: AttributeValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .url(let url)?: url.absoluteString
        default: nil
        }
    }

    // The operators' rules, for flat records and relationship paths alike
    // (the graph's evaluation gives them scalars).

    /// `<`, `<=`, `>`, `>=`: `nil` is never less or greater than anything.
    @inline(__always)
    func isOrdered(_ a: AttributeValue?, _ b: AttributeValue?) -> Bool {
        guard let a, let b else { return false }
        let order = compare(a, b)
        switch operation {
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        default: return order >= 0
        }
    }

    /// `BETWEEN {lower, upper}`, both ends included; `nil` anywhere never matches.
    @inline(__always)
    func isBetween(_ value: AttributeValue?, _ lower: AttributeValue?, _ upper: AttributeValue?) -> Bool {
        guard let value, let lower, let upper else { return false }
        return compare(value, lower) >= 0 && compare(value, upper) <= 0
    }

    /// `IN` with a string on the right: whether the left one is part of it
    /// (Foundation's meaning), folded by the options.
    func isPart(_ value: AttributeValue?, of whole: AttributeValue?) -> Bool {
        guard let text = Self.text(value), let whole = Self.text(whole) else { return false }
        return StringMatching.contains(StringMatching.fold(whole, options), StringMatching.fold(text, options))
    }

    /// `==`: `nil` equals only `nil`; numbers by value, strings folded.
    func equal(_ a: AttributeValue?, _ b: AttributeValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (nil, _), (_, nil): return false
        case (let a?, let b?): return compare(a, b) == 0
        }
    }

    func compare(_ a: AttributeValue, _ b: AttributeValue) -> Int {
        if !options.isEmpty, let x = Self.text(a), let y = Self.text(b) {
            return AttributeValue.compareStrings(StringMatching.fold(x, options), StringMatching.fold(y, options))
        }
        return a.compare(to: b)
    }

    /// Whether `text` matches the string operator; `pattern` is the right
    /// side's text when it wasn't prepared as a constant.
    func matchString(_ text: String, pattern other: @autoclosure () -> String?) -> Bool {
        let folded = StringMatching.fold(text, options)
        if let regularExpression {
            return regularExpression.matches(options.contains(.diacriticInsensitive) ? folded : text)
        }
        if let likePattern { return StringMatching.like(folded, pattern: likePattern) }
        let pattern: String
        if let prepared = self.pattern {
            pattern = prepared
        } else if let other = other() {
            pattern = StringMatching.fold(other, options)
        } else {
            return false
        }
        switch operation {
        // Foundation: an empty string is never a prefix, suffix or part.
        case .beginsWith: return !pattern.isEmpty && folded.hasPrefix(pattern)
        case .endsWith: return !pattern.isEmpty && folded.hasSuffix(pattern)
        case .contains: return !pattern.isEmpty && StringMatching.contains(folded, pattern)
        case .like: return StringMatching.like(folded, pattern: Array(pattern))
        case .matches: return (try? RegularExpression.compiled(pattern, caseInsensitive: options.contains(.caseInsensitive)))?.matches(text) ?? false
        default: return false
        }
    }
}

/// A source whose list attribute `number` reads as one of its elements (the
/// other attributes as the object's): what a list's element test evaluates.
struct ElementSource<Base: AttributeSource>: AttributeSource {
    let base: Base
    let number: Int
    let element: AttributeValue

    func attributeValue(_ number: Int) -> AttributeValue? {
        number == self.number ? element : base.attributeValue(number)
    }

    func evaluateOnGraph(_ comparison: CompiledComparison) throws -> Bool {
        try base.evaluateOnGraph(comparison)
    }

    func value(of path: CompiledPath) throws -> AttributeValue? {
        try base.value(of: path)
    }
}
