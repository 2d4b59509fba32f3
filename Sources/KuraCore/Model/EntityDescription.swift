/// An entity: a kind of object, with named, typed attributes, relationships
/// to other entities, and indexes.
///
/// Build one from a ``ManagedObject`` subclass (its ``Attribute`` properties
/// become the attributes), or as plain values for an entity with no Swift
/// class, whose objects are plain `ManagedObject`s used through
/// ``ManagedObject/value(forKey:)``:
///
/// ```swift
/// let news = try EntityDescription(News.self)
/// let note = try EntityDescription(name: "Note", attributes: [
///     AttributeDescription(name: "text", type: .string),
///     AttributeDescription(name: "created", type: .date),
/// ], indexes: [.index("created")])
/// ```
///
/// An entity is immutable once made, and `Sendable`. An entity with
/// relationships belongs to the one model that resolves them.
public final class EntityDescription: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked: every property is a `let` except `links`, which the model
    // that takes the entity sets once, in its initializer, before the model
    // (and so the entity's links) can be seen by any other thread.

    /// The entity's name, unique in its model.
    public let name: String
    /// The attributes, in the order their values are stored.
    public let attributes: [AttributeDescription]
    /// Each attribute's default value, in order: a new object's values.
    let defaultValues: ContiguousArray<AttributeValue?>

    /// A copy of ``defaultValues`` of the new object's own, so that its first
    /// set doesn't copy the shared array (a generic copy costs more than this).
    func newObjectValues() -> ContiguousArray<AttributeValue?> {
        // Appended one by one: Swift specializes this loop for the element
        // type, where the bulk initializers go through the runtime's generic copy.
        var values = ContiguousArray<AttributeValue?>()
        values.reserveCapacity(defaultValues.count)
        for value in defaultValues { values.append(value) }
        return values
    }
    /// The relationships, in the order given; once the entity is in a model,
    /// with each inverse named on both sides.
    public var relationships: [RelationshipDescription] {
        links.isEmpty ? declaredRelationships : links.map(\.description)
    }
    /// The relationships as given to the initializer.
    let declaredRelationships: [RelationshipDescription]
    /// The indexes.
    public let indexes: [IndexDescription]
    /// The class of the entity's objects; `ManagedObject` itself for an entity
    /// with no Swift class.
    public let managedObjectClass: ManagedObject.Type

    let attributeNumbers: [String: Int]
    /// The attributes' names in order: for a handful of attributes, comparing
    /// names (short ones are compared as two words) costs less than hashing one.
    let attributeNames: [String]
    let relationshipNumbers: [String: Int]
    /// The name this entity had in an earlier model version (Core Data's
    /// `renamingIdentifier`): a store holding an entity of that name
    /// migrates it to this one, keeping its objects.
    public let renamingIdentifier: String?
    /// The name of the entity this one is a sub-entity of (Core Data's
    /// `superentity`), as declared; the model resolves it (see
    /// ``superentity``).
    public let superentityName: String?
    /// True when the superentity was inferred from a class's superclass:
    /// a model without that class's entity makes this entity a root.
    let superentityIsInferred: Bool
    /// True for an entity that has no objects of its own, only its
    /// sub-entities' (Core Data's `isAbstract`): inserting one is an error.
    public let isAbstract: Bool
    /// This entity's place among its superentity and sub-entities, `nil`
    /// for an entity with neither; set once, by the model.
    var family: EntityFamily? {
        @inline(__always) _read { yield _resolved.family }
        set {
            _resolved.family = newValue
            _resolved.isInFamily = newValue != nil
        }
    }
    /// `family != nil`, read without retaining the family: every object ID
    /// made asks it.
    var isInFamily: Bool { @inline(__always) _read { yield _resolved.isInFamily } }
    /// The resolved ``superentityName``; set once, by the model.
    var resolvedSuperentity: EntityDescription? {
        @inline(__always) get { _resolved.superentity?.object }
        set { _resolved.superentity = newValue.map(_UnownedReference.init) }
    }
    /// The relationships resolved by the model; set once, by the model.
    var links: [RelationshipLink] {
        @inline(__always) _read { yield _resolved.links }
        set {
            _resolved.links = newValue
            _resolved.toOneLinks = newValue.filter { !$0.isToMany }
        }
    }
    /// The to-one relationships of ``links``, in order: the references a
    /// record holds (kept, so a save doesn't filter ``links`` per object).
    var toOneLinks: [RelationshipLink] { @inline(__always) _read { yield _resolved.toOneLinks } }
    /// Each index's attributes as positions in ``attributes``.
    let indexAttributeNumbers: [[Int]]
    /// Every attribute some index holds, once each, in order.
    let indexedAttributeNumbers: [Int]
    /// The attributes that must have a value (not optional), in order.
    let requiredAttributeNumbers: [Int]
    /// The attributes holding JSON (``AttributeEncoding/json``), in order.
    let jsonAttributeNumbers: [Int]
    /// Resolves typed properties to attribute positions.
    let keyPaths: AttributeKeyPaths
    /// Resolves typed relationship properties to relationship positions.
    let relationshipKeyPaths: AttributeKeyPaths
    /// The composite attributes (see ``Composite``), in order.
    let composites: [CompositeLayout]
    /// Resolves ``Composite`` properties to positions in ``composites``.
    let compositeKeyPaths: AttributeKeyPaths
    /// For entities made from a class: how to find the name of an inverse
    /// declared with a key path, by relationship position.
    let inverseResolvers: [Int: @Sendable () -> String]
    /// Where values sit in records and what the databases are named: the
    /// store's numbering, set once when the model is first opened with a
    /// store (see ``RecordLayout``), before any other thread sees it.
    var layout: RecordLayout {
        @inline(__always) _read { yield _resolved.layout }
        @inline(__always) _modify { yield &_resolved.layout }
    }

    /// What the model resolves and sets once, before any other thread sees
    /// the entity, and every object then reads: the only unchecked state of
    /// an entity (see ``ManagedObject/_state``); the superentity is held
    /// as an ``_UnownedReference`` (a model holds its entities).
    #if !InternalChecks
    @exclusivity(unchecked)
    #endif
    private var _resolved: _Resolved

    /// The fields of ``_resolved``, each read through the property of its name.
    struct _Resolved {
        var family: EntityFamily?
        var isInFamily = false
        var superentity: _UnownedReference<EntityDescription>?
        var links: [RelationshipLink] = []
        var toOneLinks: [RelationshipLink] = []
        var layout: RecordLayout
    }

    /// Makes an entity from plain values.
    ///
    /// A sub-entity of `superentity` (see ``superentity``) has its
    /// attributes, relationships and indexes first, then these:
    ///
    /// ```swift
    /// let media = try EntityDescription(name: "Media", isAbstract: true, attributes: [
    ///     AttributeDescription(name: "title", type: .string),
    /// ], indexes: [.unique("title")])
    /// let video = try EntityDescription(name: "Video", superentity: media, attributes: [
    ///     AttributeDescription(name: "duration", type: .double),
    /// ])
    /// let model = try ManagedObjectModel(entities: [media, video])
    /// ```
    ///
    /// - Throws: ``KuraError/invalidModel(_:)`` for an empty or invalid name,
    ///   duplicate attribute or index names (a superentity's included), an
    ///   index over an unknown attribute, or a default value that doesn't fit
    ///   its attribute.
    public convenience init(
        name: String,
        superentity: EntityDescription? = nil,
        isAbstract: Bool = false,
        attributes: [AttributeDescription],
        relationships: [RelationshipDescription] = [],
        indexes: [IndexDescription] = [],
        managedObjectClass: ManagedObject.Type = ManagedObject.self,
        renamingIdentifier: String? = nil
    ) throws {
        try self.init(
            name: name, attributes: (superentity?.attributes ?? []) + attributes,
            relationships: (superentity?.declaredRelationships ?? []) + relationships,
            indexes: (superentity?.indexes ?? []) + indexes, managedObjectClass: managedObjectClass,
            inverseResolvers: superentity?.inverseResolvers ?? [:], renamingIdentifier: renamingIdentifier,
            superentityName: superentity?.name, isAbstract: isAbstract)
    }

    init(
        name: String, attributes: [AttributeDescription], relationships: [RelationshipDescription],
        indexes: [IndexDescription], managedObjectClass: ManagedObject.Type,
        inverseResolvers: [Int: @Sendable () -> String], renamingIdentifier: String? = nil,
        superentityName: String? = nil, superentityIsInferred: Bool = false, isAbstract: Bool = false
    ) throws {
        try Self.checkName(name, of: "entity")
        var numbers: [String: Int] = [:]
        var checked: [AttributeDescription] = []
        for attribute in attributes {
            for component in attribute.name.split(separator: ".", omittingEmptySubsequences: false) {
                // (A dotted name is a composite attribute's field.)
                try Self.checkName(String(component), of: "attribute of \(name)", whole: attribute.name)
            }
            guard numbers.updateValue(checked.count, forKey: attribute.name) == nil else {
                throw KuraError.invalidModel("entity \(name) has two attributes named '\(attribute.name)'")
            }
            var attribute = attribute
            if let element = attribute.elementType {
                guard attribute.type == .data, attribute.encoding == .json, element != .data else {
                    throw KuraError.invalidModel(
                        "\(name).\(attribute.name) is a list of \(element.displayName): a JSON data attribute of scalar elements")
                }
            }
            if let value = attribute.defaultValue {
                guard let converted = value.converted(to: attribute.type) else {
                    throw KuraError.invalidModel(
                        "the default of \(name).\(attribute.name) is \(value.kindName), not \(attribute.type.displayName)")
                }
                attribute.defaultValue = converted
            }
            checked.append(attribute)
        }
        var relationshipNumbers: [String: Int] = [:]
        for (number, relationship) in relationships.enumerated() {
            try Self.checkName(relationship.name, of: "relationship of \(name)")
            guard numbers[relationship.name] == nil, relationshipNumbers.updateValue(number, forKey: relationship.name) == nil else {
                throw KuraError.invalidModel("entity \(name) has two properties named '\(relationship.name)'")
            }
            try Self.check(relationship, of: name)
        }
        let toOneCount = relationships.filter { !$0.isToMany }.count
        guard checked.count + toOneCount <= Int(UInt16.max) else {
            throw KuraError.invalidModel("entity \(name) has more than \(UInt16.max) attributes and to-one relationships")
        }
        var indexNames = Set<String>()
        var indexNumbers: [[Int]] = []
        for index in indexes {
            guard !index.attributes.isEmpty else {
                throw KuraError.invalidModel("index \(name).\(index.name) has no attributes")
            }
            guard indexNames.insert(index.name).inserted else {
                throw KuraError.invalidModel("entity \(name) has two indexes named '\(index.name)'")
            }
            try Self.checkName(index.name, of: "index of \(name)")
            indexNumbers.append(try index.attributes.map { attribute in
                guard let number = numbers[attribute] else {
                    throw KuraError.invalidModel("index \(name).\(index.name) names unknown attribute '\(attribute)'")
                }
                return number
            })
        }
        self.name = name
        self.attributes = checked
        self.defaultValues = ContiguousArray(checked.map(\.defaultValue))
        self.declaredRelationships = relationships
        self.relationshipNumbers = relationshipNumbers
        self.indexes = indexes
        self.managedObjectClass = managedObjectClass
        self.attributeNumbers = numbers
        self.attributeNames = checked.map(\.name)
        self.indexAttributeNumbers = indexNumbers
        self.indexedAttributeNumbers = Set(indexNumbers.joined()).sorted()
        self.requiredAttributeNumbers = checked.indices.filter { !checked[$0].isOptional }
        self.jsonAttributeNumbers = checked.indices.filter { checked[$0].encoding == .json }
        self.keyPaths = AttributeKeyPaths(count: checked.count)
        self.relationshipKeyPaths = AttributeKeyPaths(count: relationships.count, kind: .relationships)
        self.composites = try Self.composites(of: checked, relationshipNames: relationshipNumbers.keys, entity: name)
        self.compositeKeyPaths = AttributeKeyPaths(count: composites.count, kind: .composites)
        self.inverseResolvers = inverseResolvers
        self.renamingIdentifier = renamingIdentifier
        self.superentityName = superentityName
        self.superentityIsInferred = superentityIsInferred
        self.isAbstract = isAbstract
        _resolved = _Resolved(layout: RecordLayout(identityFor: checked, relationships: relationships, indexes: indexes, entityName: name))
    }

    /// Names are identifiers (a letter or `_`, then letters, digits and `_`),
    /// so every key can be written in a predicate.
    /// An attribute's name may be a composite attribute's field: identifiers
    /// joined with dots (`address.city`), each checked as a name.
    private static func checkName(_ name: String, of what: String, whole: String? = nil) throws {
        guard let first = name.unicodeScalars.first,
              first == "_" || first.properties.isAlphabetic,
              name.unicodeScalars.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        else {
            throw KuraError.invalidModel("'\(whole ?? name)' is not a valid name for an \(what): use letters, digits and _")
        }
    }

    /// Checks what a relationship says of itself, before the model resolves it.
    private static func check(_ relationship: RelationshipDescription, of entity: String) throws {
        let name = "\(entity).\(relationship.name)"
        if relationship.isToMany {
            guard relationship.minimumCount >= 0 else { throw KuraError.invalidModel("\(name) has a negative minimum count") }
            if let maximum = relationship.maximumCount, maximum < max(1, relationship.minimumCount) {
                throw KuraError.invalidModel("\(name) has a maximum count (\(maximum)) below 1 or below its minimum")
            }
        } else {
            guard !relationship.isOrdered else { throw KuraError.invalidModel("\(name) is a to-one, so it can't be ordered") }
            guard relationship.minimumCount == 0 && relationship.maximumCount == nil else {
                throw KuraError.invalidModel("\(name) is a to-one: counts apply to to-many relationships only")
            }
        }
    }

    /// The relationship called `name`, or `nil`.
    public func relationship(named name: String) -> RelationshipDescription? {
        relationshipNumbers[name].map { relationships[$0] }
    }

    /// The name of the inverse of relationship `number` as declared: by name,
    /// or by a key path to probe.
    func declaredInverseName(_ number: Int) -> String? {
        declaredRelationships[number].inverseName ?? inverseResolvers[number]?()
    }

    /// The resolved relationship called `name`, or `nil`.
    func link(named name: String) -> RelationshipLink? {
        relationshipNumbers[name].map { links[$0] }
    }

    /// The attribute called `name`, or `nil`.
    public func attribute(named name: String) -> AttributeDescription? {
        attributeNumber(named: name).map { attributes[$0] }
    }

    /// The position of the attribute called `name` in ``attributes``, or `nil`.
    public func attributeNumber(named name: String) -> Int? {
        guard attributeNames.count <= 16 else { return attributeNumbers[name] }
        for number in attributeNames.indices where attributeNames[number] == name { return number }
        return nil
    }

    /// The position of `key`, or ``KuraError/unknownAttribute(entity:key:)``.
    func requireAttributeNumber(_ key: String) throws -> Int {
        guard let number = attributeNumber(named: key) else {
            if relationshipNumbers[key] != nil {
                throw KuraError.invalidRelationship(
                    "\(name).\(key) is a relationship: use object(forKey:), objects(forKey:) or mutableSetValue(forKey:)")
            }
            throw KuraError.unknownAttribute(entity: name, key: key)
        }
        return number
    }

    /// True when `other` has the same name, attributes, relationships and
    /// indexes (the class doesn't count): the same schema, so the same stored bytes.
    public func hasSameSchema(as other: EntityDescription) -> Bool {
        name == other.name && attributes == other.attributes && indexes == other.indexes
            && links.map(\.description) == other.links.map(\.description)
            && superentity?.name == other.superentity?.name && isAbstract == other.isAbstract
    }

    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// `News(title: String, …, author: Author?)`.
    public var description: String {
        "\(name)(\((attributes.map(\.description) + relationships.map(\.description)).joined(separator: ", ")))"
    }
}
