/// A named fetch request kept in a model, checked when it was registered.
/// A class: a lookup takes one reference, not a copy of every part.
@usableFromInline
final class FetchRequestTemplate: Sendable {
    let request: FetchRequest<ManagedObject>
    /// The request's predicate, kept apart: read through ``request`` it goes
    /// through the request's computed `predicate`, a copy each lookup.
    let predicate: FetchPredicate?
    let entity: EntityDescription
    /// What each `$variable` must be given.
    let variables: [String: VariableRequirement]
    /// The same, as a list: a lookup walks it without hashing.
    let variableList: [(name: String, requirement: VariableRequirement)]
    /// The predicate compiled with its variables, substituted without compiling again.
    let compiled: CompiledPredicate?
    /// For `key == $variable` (AND …) over every attribute of a unique
    /// index: the index, and the variable of each of its attributes in order.
    let lookup: UniqueLookup?
    /// Whether a request made from the template substitutes values: it has
    /// a predicate, with variables. (Flags, so a lookup reads them without
    /// copying the optionals they stand for: a retain and a release each.)
    let substitutes: Bool
    /// Whether ``lookup`` is set.
    let looksUp: Bool
    /// Whether a fetch of objects from the template is its unique lookup
    /// alone: the index key decides the match, every variable is one of the
    /// lookup's, and the request has nothing else to do (no sorts, offset,
    /// prefetching or negative limits, indexes allowed). Such a fetch makes
    /// no request: ``ManagedObjectContext/fetchObjects(template:_:)``.
    let looksUpDirectly: Bool
    /// The entities of the variables compared with objects, by name.
    let objectEntities: [String: EntityDescription]

    /// A template's unique-index lookup.
    final class UniqueLookup: Sendable {
        let indexName: String
        /// The variable of each of the index's attributes, in the index's
        /// order, as its position in ``FetchRequestTemplate/variableList``.
        let variableIndices: [Int]
        /// See ``PlannedLookup/decidesMatch``.
        let decidesMatch: Bool

        /// The unique index's key for the values `value(i)` gives (the value
        /// of the variable at position `i` of the template's
        /// ``FetchRequestTemplate/variableList``), or `nil` when one is nil:
        /// nil never matches through a unique index, so the fetch plans normally.
        func key(_ value: (Int) throws -> FetchPredicate.Expression) rethrows -> [UInt8]? {
            var key: [UInt8] = []
            key.reserveCapacity(64)
            for index in variableIndices {
                guard case .value(let value?) = try value(index) else { return nil }
                IndexKeyEncoding.append(value, to: &key)
            }
            return key
        }

        init(indexName: String, variableIndices: [Int], decidesMatch: Bool) {
            self.indexName = indexName
            self.variableIndices = variableIndices
            self.decidesMatch = decidesMatch
        }
    }

    init(request: FetchRequest<ManagedObject>, entity: EntityDescription, variables: [String: VariableRequirement],
         compiled: CompiledPredicate?, objectEntities: [String: EntityDescription]) {
        self.request = request
        self.objectEntities = objectEntities
        predicate = request.predicate
        self.entity = entity
        self.variables = variables
        let variableList = variables.map { ($0.key, $0.value) }
        self.variableList = variableList
        self.compiled = compiled
        lookup = compiled.flatMap(Self.uniqueLookup).map { found in
            let positions = found.variables.map { name in variableList.firstIndex { $0.0 == name }! }
            return UniqueLookup(indexName: found.indexName, variableIndices: positions, decidesMatch: found.decidesMatch)
        }
        substitutes = predicate != nil && !variables.isEmpty
        looksUp = lookup != nil
        looksUpDirectly = lookup.map { $0.decidesMatch && $0.variableIndices.count == variableList.count } ?? false
            && request.sortDescriptors.isEmpty && request.fetchOffset == 0 && request.fetchLimit >= 0
            && request.fetchBatchSize >= 0 && request.relationshipKeyPathsForPrefetching.isEmpty && request.allowsIndexes
    }

    /// The unique index the predicate looks up with variables, if it does exactly that.
    private static func uniqueLookup(_ compiled: CompiledPredicate) -> (indexName: String, variables: [String], decidesMatch: Bool)? {
        let terms: [CompiledNode]
        if case .and(let nodes) = compiled.root { terms = nodes } else { terms = [compiled.root] }
        var variableOfAttribute: [Int: String] = [:]
        for term in terms {
            guard case .comparison(let comparison) = term, comparison.operation == .equal, comparison.options.isEmpty,
                  comparison.listElementType == nil, case .attribute(let number) = comparison.left, case .variable(let name) = comparison.right,
                  variableOfAttribute.updateValue(name, forKey: number) == nil else { return nil }
        }
        let entity = compiled.entity
        for (index, numbers) in zip(entity.indexes, entity.indexAttributeNumbers)
            where index.isUnique && Set(numbers) == Set(variableOfAttribute.keys) && numbers.count == variableOfAttribute.count {
            let exactTypes: Set<AttributeType> = [.int16, .int32, .int64, .bool, .string, .uuid]
            let decidesMatch = numbers.allSatisfy { exactTypes.contains(entity.attributes[$0].type) }
            return (index.name, numbers.map { variableOfAttribute[$0]! }, decidesMatch)
        }
        return nil
    }
}

extension FetchRequestTemplate {
    /// For a template that ``looksUpDirectly``, its lookup and the index key
    /// of the values `value(i)` gives (converted as ``request(_:)``
    /// converts them, and throwing as it does); `nil` when the template
    /// doesn't, or a value is nil.
    func directLookup(_ value: (Int) throws -> Any) throws -> (lookup: UniqueLookup, key: [UInt8])? {
        guard looksUpDirectly, let lookup else { return nil }
        let key = try lookup.key { position in
            let (variable, requirement) = variableList[position]
            return try Self.substitution(try value(position), for: variable, requirement)
        }
        return key.map { (lookup, $0) }
    }

    /// A copy of the template's request with its `$variables` replaced:
    /// `value(i)` gives the value of the variable at position `i` of
    /// ``variableList`` (or throws).
    func request(_ value: (Int) throws -> Any) throws -> FetchRequest<ManagedObject> {
        // The template's request is copied when the request is made, at
        // the end (a copy retains each of its fields).
        guard substitutes else { return request }
        // The first value apart: a template of one variable makes no array.
        var first = FetchPredicate.Expression.value(nil)
        var others: [FetchPredicate.Expression] = []
        for position in variableList.indices {
            let (variable, requirement) = variableList[position]
            let substituted = try Self.substitution(try value(position), for: variable, requirement)
            if position == 0 { first = substituted } else { others.append(substituted) }
        }
        let box: CompiledPredicateBox
        if looksUp {
            // Equalities of attributes with values: substituting can't
            // fail, so it waits until a fetch needs the tree.
            box = CompiledPredicateBox(self, first: first, others: others)
        } else if let compiled {
            var operands: [(String, Operand)] = []
            operands.reserveCapacity(variableList.count)
            for (value, (variable, requirement)) in zip([first] + others, variableList) {
                operands.append((variable, try operand(value, requirement)))
            }
            box = CompiledPredicateBox(
                self, first: first, others: others,
                substituted: CompiledPredicate(entity: compiled.entity, root: try compiled.root.substituting(operands), variables: [:]))
        } else {
            var request = request
            let names = variableList.map(\.name)
            request.predicate = FetchPredicate(predicate!.root.substituting(Array(zip(names, [first] + others))))
            return request
        }
        var request = request
        request.compiledPredicate = box
        return request
    }

    /// A substituted value as an operand: object IDs become references to
    /// objects of the variable's entity.
    private func operand(_ expression: FetchPredicate.Expression, _ requirement: VariableRequirement) throws -> Operand {
        switch expression {
        case .list(let elements): return .list(try elements.map { try operand($0, requirement) })
        case .object(let uri):
            guard let name = requirement.objectEntity, let entity = objectEntities[name] else { return .constant(nil) }
            return .object(try ObjectReferenceParsing.reference(uri, of: entity))
        default: return Operand(substituted: expression)
        }
    }

    /// A substitution value converted for its variable.
    private static func substitution(_ given: Any, for variable: String, _ requirement: VariableRequirement) throws -> FetchPredicate.Expression {
        // The usual case, one plain value (a string, a number, …) for a
        // variable of an attribute: no list, no object, nothing else made.
        if requirement.objectEntity == nil && !requirement.isList, let value = PredicateArguments.commonValue(given),
           let converted = value.convertedForComparison(to: requirement.type) {
            return .value(converted)
        }
        func mismatch(_ found: String) -> KuraError {
            .substitutionTypeMismatch(variable: variable, expected: requirement.type, found: found)
        }
        func convert(_ value: AttributeValue?) throws -> FetchPredicate.Expression {
            guard let value else { return .value(nil) }
            guard let converted = value.convertedForComparison(to: requirement.type) else {
                throw mismatch("\(value.kindName) \(PredicateFormatter.format(value))")
            }
            return .value(converted)
        }
        let expression: FetchPredicate.Expression
        do {
            expression = try PredicateArguments.expression(from: given)
        } catch {
            throw mismatch("\(type(of: given))")
        }
        if let objectEntity = requirement.objectEntity {
            func object(_ element: FetchPredicate.Expression) throws -> FetchPredicate.Expression {
                switch element {
                case .object(let uri) where uri.hasPrefix("kura://\(objectEntity)/"): return element
                case .value(nil): return element
                default: throw mismatch("\(type(of: given)) (an object or object ID of \(objectEntity) is needed)")
                }
            }
            switch (expression, requirement.isList) {
            case (.list(let elements), true): return .list(try elements.map(object))
            case (.list, false): throw mismatch("a list (one object is needed)")
            default: return try object(expression)
            }
        }
        switch (expression, requirement.isList) {
        case (.list(let elements), true):
            return .list(try elements.map { element in
                guard case .value(let value) = element else { throw mismatch("a list of lists") }
                return try convert(value)
            })
        case (.value(let value), false):
            return try convert(value)
        case (.value(let value), true):
            throw mismatch("\(value.map { "\($0.kindName) \(PredicateFormatter.format($0))" } ?? "nil") (a list is needed)")
        default:
            throw mismatch("a list")
        }
    }
}
