import Foundation

extension ManagedObjectModel {
    /// Registers `request` as the template called `name`, its `$variables`
    /// declared with their Swift types, and returns it typed: requests from
    /// it take a value of each type, in the order declared.
    ///
    /// ```swift
    /// let getNews = try model.setFetchRequestTemplate(
    ///     FetchRequest<News>(predicate: "objectId == $objectId"), forName: "getNews", variables: ("objectId", String.self))
    /// let news = try context.fetch(getNews, id).first
    /// ```
    ///
    /// - Throws: what ``setFetchRequestTemplate(_:forName:)`` throws, and
    ///   ``KuraError/invalidFetchRequest(_:)`` when the variables declared
    ///   aren't the predicate's, or a type can't be what its variable is
    ///   compared with. Nothing is registered then.
    public func setFetchRequestTemplate<Object: ManagedObject, First, each Value>(
        _ request: FetchRequest<Object>, forName name: String,
        variables first: (String, First.Type), _ others: repeat (String, (each Value).Type)
    ) throws -> FetchTemplate<Object, First, repeat each Value> {
        // (At least one variable: without any, this would be the untyped
        // registration's overload.)
        var declared: [(name: String, type: Any.Type)] = [(first.0, first.1)]
        for variable in repeat each others { declared.append((variable.0, variable.1)) }
        return try register(request, forName: name, declaring: declared)
    }

    /// Registers a Foundation predicate of one variable (`#Predicate<Article, String>
    /// { article, url in article.url == url }`) as the template called
    /// `name`, its variable called `variable` (`$1` by default), and
    /// returns it typed.
    ///
    /// The predicate converts as ``FetchPredicate/init(_:)-(Predicate<Root>)``
    /// does, once, here; a variable stands where a captured value could,
    /// but not as the string a `contains` or `starts(with:)` looks for
    /// (Swift's empty string is part of every string: the value decides
    /// the meaning).
    public func setFetchRequestTemplate<Object: ManagedObject, V1>(
        _ predicate: Predicate<Object, V1>, sortBy: [SortDescriptor<Object>] = [], forName name: String,
        variables variable: String = "1"
    ) throws -> FetchTemplate<Object, V1> {
        let names = [variable]
        let converted = try FetchPredicate(
            converting: predicate.expression, root: predicate.variable.0.key, variables: [(predicate.variable.1.key, variable)])
        return try register(try Self.request(converted, sortBy), forName: name, declaring: Array(zip(names, [V1.self])))
    }

    /// Registers a Foundation predicate of two variables as the template
    /// called `name`; see ``setFetchRequestTemplate(_:sortBy:forName:variables:)-(Predicate<Object,V1>,_,_,_)``.
    public func setFetchRequestTemplate<Object: ManagedObject, V1, V2>(
        _ predicate: Predicate<Object, V1, V2>, sortBy: [SortDescriptor<Object>] = [], forName name: String,
        variables first: String = "1", _ second: String = "2"
    ) throws -> FetchTemplate<Object, V1, V2> {
        let variables = predicate.variable
        let converted = try FetchPredicate(
            converting: predicate.expression, root: variables.0.key, variables: [(variables.1.key, first), (variables.2.key, second)])
        return try register(try Self.request(converted, sortBy), forName: name,
                            declaring: Array(zip([first, second], [V1.self, V2.self] as [Any.Type])))
    }

    /// Registers a Foundation predicate of three variables as the template
    /// called `name`; see ``setFetchRequestTemplate(_:sortBy:forName:variables:)-(Predicate<Object,V1>,_,_,_)``.
    public func setFetchRequestTemplate<Object: ManagedObject, V1, V2, V3>(
        _ predicate: Predicate<Object, V1, V2, V3>, sortBy: [SortDescriptor<Object>] = [], forName name: String,
        variables first: String = "1", _ second: String = "2", _ third: String = "3"
    ) throws -> FetchTemplate<Object, V1, V2, V3> {
        let variables = predicate.variable
        let converted = try FetchPredicate(
            converting: predicate.expression, root: variables.0.key,
            variables: [(variables.1.key, first), (variables.2.key, second), (variables.3.key, third)])
        return try register(try Self.request(converted, sortBy), forName: name,
                            declaring: Array(zip([first, second, third], [V1.self, V2.self, V3.self] as [Any.Type])))
    }

    /// A request of `predicate` sorted by Foundation's descriptors.
    private static func request<Object: ManagedObject>(
        _ predicate: FetchPredicate, _ sortBy: [SortDescriptor<Object>]
    ) throws -> FetchRequest<Object> {
        FetchRequest<Object>(predicate: predicate, sortBy: try sortBy.map(FetchSortDescriptor.init))
    }

    /// Checks `request` and its declared variables, then registers it.
    private func register<Object: ManagedObject, each Value>(
        _ request: FetchRequest<Object>, forName name: String, declaring declared: [(name: String, type: Any.Type)]
    ) throws -> FetchTemplate<Object, repeat each Value> {
        guard !name.isEmpty else { throw KuraError.invalidFetchRequest("a template needs a name") }
        let checked = try template(for: request.untyped)
        guard checked.entity.managedObjectClass is Object.Type else {
            throw KuraError.classMismatch(requested: "\(Object.self)", entity: checked.entity.name, entityClass: "\(checked.entity.managedObjectClass)")
        }
        func refuse(_ reason: String) -> KuraError { .invalidFetchRequest("template '\(name)': \(reason)") }
        let names = declared.map(\.name)
        if Set(names).count != names.count { throw refuse("a variable is declared twice: \(names.joined(separator: ", "))") }
        let used = Set(checked.variables.keys)
        if let missing = used.subtracting(names).sorted().first {
            throw refuse("$\(missing) is in the predicate but not declared")
        }
        if let extra = names.first(where: { !used.contains($0) }) {
            throw refuse("$\(extra) is declared but not in the predicate")
        }
        for (variable, type) in declared {
            let requirement = checked.variables[variable]!
            try TemplateVariableType.check(type, for: requirement, objectEntity: requirement.objectEntity.flatMap { checked.objectEntities[$0] }) {
                refuse("$\(variable) is compared with \(requirement.key) (\($0)), so it can't be a \(type)")
            }
        }
        try store(checked, forName: name)
        let positions = checked.variableList.map { variable in names.firstIndex(of: variable.name)! }
        return FetchTemplate(name: name, variableNames: names, template: checked, valuePositions: positions)
    }
}

/// What Swift types a template's variable may be declared with.
enum TemplateVariableType {
    /// Checks `type` can be given for a variable of `requirement`;
    /// `refuse` makes the error from a description of what is needed.
    static func check(
        _ type: Any.Type, for requirement: VariableRequirement, objectEntity: EntityDescription?, refuse: (String) -> KuraError
    ) throws {
        var single = AnyOptional.unwrappedType(type)
        if requirement.isList {
            guard let list = single as? any TemplateListType.Type else { throw refuse("a list: an Array or a Set") }
            single = AnyOptional.unwrappedType(list.elementType)
        }
        if let objectEntity {
            guard single == ObjectID.self || isClass(objectEntity.managedObjectClass, of: single) else {
                throw refuse("objects of \(objectEntity.name): \(objectEntity.managedObjectClass) or ObjectID")
            }
            return
        }
        guard let convertible = single as? any AttributeValueConvertible.Type else {
            throw refuse(requirement.type.displayName)
        }
        let given = convertible.attributeType
        let needed = requirement.type
        guard given == needed || (given.isNumeric && needed.isNumeric) || (given.isTextual && needed.isTextual) else {
            throw refuse(needed.isNumeric ? "a number" : needed.displayName)
        }
    }

    /// Whether objects of `objectClass` are `type`s.
    private static func isClass(_ objectClass: ManagedObject.Type, of type: Any.Type) -> Bool {
        func test<T>(_: T.Type) -> Bool { objectClass is T.Type }
        return _openExistential(type, do: test)
    }
}

/// The collections a list variable (`IN $ids`) may be declared as.
protocol TemplateListType {
    static var elementType: Any.Type { get }
}

extension Array: TemplateListType {
    static var elementType: Any.Type { Element.self }
}

extension Set: TemplateListType {
    static var elementType: Any.Type { Element.self }
}

extension ContiguousArray: TemplateListType {
    static var elementType: Any.Type { Element.self }
}
