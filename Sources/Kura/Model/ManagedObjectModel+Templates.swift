/// A named fetch request kept in a model, checked when it was registered.
/// A class: a lookup takes one reference, not a copy of every part.
final class FetchRequestTemplate: Sendable {
    let request: FetchRequest<ManagedObject>
    /// The request's predicate, kept apart: read through ``request`` it goes
    /// through the request's computed `predicate` (about 60 instructions a
    /// lookup more, callgrind).
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

    /// A template's unique-index lookup.
    final class UniqueLookup: Sendable {
        let indexName: String
        /// The variable of each of the index's attributes, in the index's
        /// order, as its position in ``FetchRequestTemplate/variableList``.
        let variableIndices: [Int]
        /// See ``PlannedLookup/decidesMatch``.
        let decidesMatch: Bool

        init(indexName: String, variableIndices: [Int], decidesMatch: Bool) {
            self.indexName = indexName
            self.variableIndices = variableIndices
            self.decidesMatch = decidesMatch
        }
    }

    init(request: FetchRequest<ManagedObject>, entity: EntityDescription, variables: [String: VariableRequirement], compiled: CompiledPredicate?) {
        self.request = request
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
    }

    /// The unique index the predicate looks up with variables, if it does exactly that.
    private static func uniqueLookup(_ compiled: CompiledPredicate) -> (indexName: String, variables: [String], decidesMatch: Bool)? {
        let terms: [CompiledNode]
        if case .and(let nodes) = compiled.root { terms = nodes } else { terms = [compiled.root] }
        var variableOfAttribute: [Int: String] = [:]
        for term in terms {
            guard case .comparison(let comparison) = term, comparison.operation == .equal, comparison.options.isEmpty,
                  case .attribute(let number) = comparison.left, case .variable(let name) = comparison.right,
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

/// A `$variable` of a fetch request template, and what it must be given.
public struct TemplateVariable: Sendable, Hashable {
    /// The variable's name, without `$`.
    public var name: String
    /// The attribute the variable is compared with.
    public var key: String
    /// The attribute's type: the type a value must convert to.
    public var type: AttributeType
    /// True when the variable takes a list of values (`IN $ids`, `BETWEEN $range`).
    public var isList: Bool

    /// A variable called `name` compared with the attribute `key` of `type`.
    public init(name: String, key: String, type: AttributeType, isList: Bool) {
        self.name = name
        self.key = key
        self.type = type
        self.isList = isList
    }
}

extension ManagedObjectModel {
    /// Registers `request` as the template called `name` (or removes the
    /// template with `nil`).
    ///
    /// ```swift
    /// try model.setFetchRequestTemplate(FetchRequest(entityName: "News"), forName: "allNews")
    /// try model.setFetchRequestTemplate(
    ///     FetchRequest(entityName: "News", predicate: "objectId == $objectId"), forName: "getNews")
    /// ```
    ///
    /// The request is checked against the model now, not at the first fetch:
    /// its entity, every key of its predicate (each `$variable` takes the type
    /// of the attribute it is compared with), its sort keys and properties.
    /// Stores opened with the model keep its templates, so `kura` can list
    /// and run them.
    ///
    /// - Throws: ``KuraError/modelFrozen(_:)`` once a store uses the model;
    ///   any error the request would give at fetch (``KuraError/unknownEntity(_:)``,
    ///   ``KuraError/unknownAttribute(entity:key:)``, ``PredicateSyntaxError``, …).
    public func setFetchRequestTemplate<Object>(_ request: FetchRequest<Object>?, forName name: String) throws {
        guard !name.isEmpty else { throw KuraError.invalidFetchRequest("a template needs a name") }
        let checked = try request.map { try self.template(for: $0.untyped) }
        try state.withLock { state in
            guard !state.isFrozen else {
                throw KuraError.modelFrozen("a store uses this model, so template '\(name)' can't be set")
            }
            state.templates[name] = checked
            (state.lastTemplateName, state.lastTemplate) = ("", nil)
        }
    }

    /// Checks a request for use as a template.
    func template(for request: FetchRequest<ManagedObject>) throws -> FetchRequestTemplate {
        let fetch = try PreparedFetch(request, model: self, allowingVariables: true)
        // A store keeps the predicate as text: it must parse back (a tree
        // built in code may nest deeper than the parser allows).
        if let predicate = request.predicate {
            do {
                _ = try FetchPredicate(format: predicate.predicateFormat)
            } catch {
                throw KuraError.invalidFetchRequest("the predicate can't be kept in a store: \(error)")
            }
        }
        return FetchRequestTemplate(
            request: request, entity: fetch.entity, variables: fetch.predicate?.variables ?? [:], compiled: fetch.predicate)
    }

    /// The template called `name`, unsubstituted, or `nil`.
    public func fetchRequestTemplate(forName name: String) -> FetchRequest<ManagedObject>? {
        state.withLock { $0.templates[name]?.request }
    }

    /// Every template, by name.
    public var fetchRequestTemplatesByName: [String: FetchRequest<ManagedObject>] {
        state.withLock { $0.templates.mapValues(\.request) }
    }

    /// The variables of the template called `name`, sorted by name, or `nil`
    /// for an unknown template.
    public func templateVariables(forName name: String) -> [TemplateVariable]? {
        state.withLock { state in
            state.templates[name].map { template in
                template.variables.map { TemplateVariable(name: $0.key, key: $0.value.key, type: $0.value.type, isList: $0.value.isList) }
                    .sorted { $0.name < $1.name }
            }
        }
    }

    /// A copy of the template called `name` with its `$variables` replaced.
    ///
    /// ```swift
    /// let request = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": id])
    /// let news = try context.fetch(request).last
    /// ```
    ///
    /// Each value is converted to the type of the attribute its variable is
    /// compared with (an `Int` for a `Double` attribute, a `String` for a
    /// `UUID`). The predicate tree is rewritten, never parsed again, so the
    /// request costs what a hand-built one does. Extra variables are ignored.
    ///
    /// - Throws: ``KuraError/unknownTemplate(_:)``,
    ///   ``KuraError/missingSubstitutionVariable(_:)`` naming the variable,
    ///   ``KuraError/substitutionTypeMismatch(variable:expected:found:)``.
    public func fetchRequestFromTemplate(
        withName name: String, substitutionVariables: [String: Any]
    ) throws -> FetchRequest<ManagedObject> {
        let found = state.withLock { state -> FetchRequestTemplate? in
            if state.lastTemplateName == name, let last = state.lastTemplate { return last }
            let template = state.templates[name]
            if let template { (state.lastTemplateName, state.lastTemplate) = (name, template) }
            return template
        }
        guard let template = found else { throw KuraError.unknownTemplate(name) }
        // The template's request is copied when the request is made, at
        // the end (a copy retains each of its fields).
        guard template.substitutes else { return template.request }
        // The first value apart: a template of one variable makes no array.
        var first = FetchPredicate.Expression.value(nil)
        var others: [FetchPredicate.Expression] = []
        for position in template.variableList.indices {
            let (variable, requirement) = template.variableList[position]
            guard let given = substitutionVariables[variable] else { throw KuraError.missingSubstitutionVariable(variable) }
            let value = try Self.substitution(given, for: variable, requirement)
            if position == 0 { first = value } else { others.append(value) }
        }
        let box: CompiledPredicateBox
        if template.looksUp {
            // Equalities of attributes with values: substituting can't
            // fail, so it waits until a fetch needs the tree.
            box = CompiledPredicateBox(template, first: first, others: others)
        } else if let compiled = template.compiled {
            var operands: [(String, Operand)] = []
            operands.reserveCapacity(template.variableList.count)
            for (value, (variable, requirement)) in zip([first] + others, template.variableList) {
                operands.append((variable, try operand(value, requirement)))
            }
            box = CompiledPredicateBox(
                template, first: first, others: others,
                substituted: CompiledPredicate(entity: compiled.entity, root: try compiled.root.substituting(operands), variables: [:]))
        } else {
            var request = template.request
            let names = template.variableList.map(\.name)
            request.predicate = FetchPredicate(template.predicate!.root.substituting(Array(zip(names, [first] + others))))
            return request
        }
        var request = template.request
        request.compiledPredicate = box
        return request
    }

    /// A copy of the template called `name` with its `$variables` replaced,
    /// typed by the class of the template's entity.
    ///
    /// ```swift
    /// let request = try model.fetchRequestFromTemplate(withName: "getNews", substitutionVariables: ["objectId": id], as: News.self)
    /// let news: News? = try context.fetch(request).first
    /// ```
    ///
    /// - Throws: as ``fetchRequestFromTemplate(withName:substitutionVariables:)``,
    ///   and ``KuraError/classMismatch(requested:entity:entityClass:)`` when
    ///   the template's entity's objects are not `Object`s.
    public func fetchRequestFromTemplate<Object: ManagedObject>(
        withName name: String, substitutionVariables: [String: Any], as type: Object.Type
    ) throws -> FetchRequest<Object> {
        try typed(try fetchRequestFromTemplate(withName: name, substitutionVariables: substitutionVariables))
    }

    /// `request`, typed by `Object`, the class of its entity's objects.
    /// - Throws: ``KuraError/unknownEntity(_:)``, ``KuraError/classMismatch(requested:entity:entityClass:)``.
    func typed<Object: ManagedObject>(_ request: FetchRequest<ManagedObject>) throws -> FetchRequest<Object> {
        let entity = try requireEntity(of: request)
        guard entity.managedObjectClass is Object.Type else {
            throw KuraError.classMismatch(requested: "\(Object.self)", entity: entity.name, entityClass: "\(entity.managedObjectClass)")
        }
        return FetchRequest<Object>(retyping: request)
    }

    /// A substituted value as an operand: object IDs become references to
    /// objects of the variable's entity.
    private func operand(_ expression: FetchPredicate.Expression, _ requirement: VariableRequirement) throws -> Operand {
        switch expression {
        case .list(let elements): return .list(try elements.map { try operand($0, requirement) })
        case .object(let uri):
            guard let name = requirement.objectEntity, let entity = entity(named: name) else { return .constant(nil) }
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
