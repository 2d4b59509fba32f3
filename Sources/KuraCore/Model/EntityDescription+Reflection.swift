extension EntityDescription {
    /// Makes the entity of a ``ManagedObject`` subclass from its ``Attribute``
    /// properties (the subclass's superclasses' attributes come first) and
    /// its ``ManagedObject/indexes``.
    ///
    /// The class is reflected once, here, on one prototype object; objects
    /// made later never are.
    ///
    /// - Throws: ``KuraError/invalidModel(_:)`` when the class declares no
    ///   attributes or an invalid one.
    public convenience init(_ type: ManagedObject.Type) throws {
        let (prototype, initialValues) = AttributeDefaults.recording { type.init(entity: .prototype, insertInto: nil) }
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var inverseResolvers: [Int: @Sendable () -> String] = [:]
        var indexes: [IndexDescription] = []
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror, current.subjectType != ManagedObject.self {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        // The initial values arrive in the order the attributes were
        // initialized: the class's own first, then each superclass's (a
        // class initializes its own properties before its superclass's),
        // each class's in declaration order. The mirrors go from the
        // topmost class down.
        let counts = mirrors.map { $0.children.count { $0.value is AttributeDeclaration || $0.value is CompositeDeclaration } }
        guard counts.reduce(0, +) == initialValues.count else {
            throw KuraError.invalidModel(
                "\(type) initialized its @Attribute properties \(initialValues.count) times for \(counts.reduce(0, +)) declared; "
                    + "give attributes their initial values in their declarations, not in an initializer")
        }
        var defaultsByMirror: [ArraySlice<AttributeDefaults.RecordedDefault>] = []
        var next = initialValues[...]
        for count in counts.reversed() {
            defaultsByMirror.insert(next.prefix(count), at: 0)
            next = next.dropFirst(count)
        }
        let renamed = type.propertyRenamingIdentifiers
        for (mirror, defaults) in zip(mirrors, defaultsByMirror) {
            var defaults = defaults
            for child in mirror.children {
                guard let label = child.label else { continue }
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                if let declaration = child.value as? RelationshipDeclaration {
                    if let resolver = declaration.inverse { inverseResolvers[relationships.count] = resolver }
                    relationships.append(RelationshipDescription(
                        name: name, destinationEntityName: declaration.destinationType.entityName, isToMany: declaration.isToMany,
                        isOrdered: declaration.isOrdered, isOptional: declaration.isOptional,
                        minimumCount: declaration.minimumCount, maximumCount: declaration.maximumCount,
                        deleteRule: declaration.deleteRule, renamingIdentifier: renamed[name]))
                    continue
                }
                if child.value is CompositeDeclaration {
                    guard case .composite(let fields) = defaults.removeFirst() else { throw Self.outOfOrder(type) }
                    switch fields {
                    case .success(let fields): attributes += fields.map { $0.attribute(of: name, renamingIdentifier: nil) }
                    case .failure(let error):
                        guard case .invalidModel(let reason) = error.detail else { throw error }
                        throw KuraError.invalidModel("\(type).\(name), a \(reason)")
                    }
                    continue
                }
                guard let declaration = child.value as? AttributeDeclaration else { continue }
                guard case .value(let defaultValue) = defaults.removeFirst() else { throw Self.outOfOrder(type) }
                if !declaration.holdsEveryStoredValue && !declaration.isOptional && defaultValue == nil {
                    throw KuraError.invalidModel(
                        "\(type).\(name) is an enumeration or a Codable value without an initial value: give it one or make "
                            + "it optional, so that a stored value this build can't read (a newer build's) reads as something")
                }
                attributes.append(AttributeDescription(
                    name: name,
                    type: declaration.attributeType,
                    isOptional: declaration.isOptional,
                    defaultValue: defaultValue,
                    renamingIdentifier: renamed[name],
                    encoding: declaration.encoding, elementType: declaration.elementType))
                if declaration.options.contains(.unique) {
                    indexes.append(.unique(name))
                } else if declaration.options.contains(.indexed) {
                    indexes.append(.index(name))
                }
            }
        }
        guard !attributes.isEmpty || !relationships.isEmpty else {
            throw KuraError.invalidModel("\(type) declares no @Attribute or @Relationship properties")
        }
        // A superclass's indexes come first (a sub-entity has its
        // superentity's), each once however many classes declare it.
        var classIndexes: [IndexDescription] = []
        var ancestor: AnyClass? = type
        var chain: [ManagedObject.Type] = []
        while let current = ancestor as? ManagedObject.Type, current != ManagedObject.self {
            chain.insert(current, at: 0)
            ancestor = _getSuperclass(current)
        }
        for current in chain {
            for index in current.indexes where !classIndexes.contains(where: { $0.name == index.name }) {
                classIndexes.append(index)
            }
        }
        try self.init(
            name: type.entityName, attributes: attributes, relationships: relationships,
            indexes: indexes.filter { index in !classIndexes.contains { $0.name == index.name } } + classIndexes,
            managedObjectClass: type, inverseResolvers: inverseResolvers,
            renamingIdentifier: type.renamingIdentifier, superentityName: type.superentityName,
            superentityIsInferred: type.superentityName == Self.inferredSuperentityName(of: type),
            isAbstract: Self.declaresAbstract(type))
    }

    /// The error for a class whose properties recorded their initial values
    /// in another order than they are declared.
    private static func outOfOrder(_ type: ManagedObject.Type) -> KuraError {
        KuraError.invalidModel(
            "\(type) initialized its @Attribute and @Composite properties out of order; "
                + "give them their initial values in their declarations, not in an initializer")
    }

    /// True when `type` overrides ``ManagedObject/isAbstract`` to return
    /// true: its subclasses, which inherit the override, are concrete.
    static func declaresAbstract(_ type: ManagedObject.Type) -> Bool {
        guard type.isAbstract else { return false }
        guard let superclass = _getSuperclass(type) as? ManagedObject.Type else { return true }
        return !superclass.isAbstract
    }

    /// The entity name of `type`'s superclass, when that is a subclass of
    /// ``ManagedObject``: the default ``ManagedObject/superentityName``.
    static func inferredSuperentityName(of type: ManagedObject.Type) -> String? {
        guard let superclass = _getSuperclass(type) as? ManagedObject.Type, superclass != ManagedObject.self else {
            return nil
        }
        return superclass.entityName
    }

    /// The entity of the prototype objects made while reflecting a class.
    static let prototype = try! EntityDescription(name: "_Prototype", attributes: [])
}
