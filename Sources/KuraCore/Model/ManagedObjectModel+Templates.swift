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
        try store(try request.map { try self.template(for: $0.untyped) }, forName: name)
    }

    /// Keeps `template` under `name` (none for `nil`), unless a store uses the model.
    func store(_ template: FetchRequestTemplate?, forName name: String) throws {
        try state.withLock { state in
            guard !state.isFrozen else {
                throw KuraError.modelFrozen("a store uses this model, so template '\(name)' can't be set")
            }
            state.templates[name] = template
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
        let variables = fetch.predicate?.variables ?? [:]
        var objectEntities: [String: EntityDescription] = [:]
        for name in variables.values.compactMap(\.objectEntity) { objectEntities[name] = entity(named: name) }
        return FetchRequestTemplate(
            request: request, entity: fetch.entity, variables: variables, compiled: fetch.predicate, objectEntities: objectEntities)
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
        return try template.request { position in
            let variable = template.variableList[position].name
            guard let given = substitutionVariables[variable] else { throw KuraError.missingSubstitutionVariable(variable) }
            return given
        }
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

}

