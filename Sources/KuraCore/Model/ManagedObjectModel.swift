import Synchronization

/// The schema of a store: its entities, and the named fetch request templates
/// that use them.
///
/// ```swift
/// let model = try ManagedObjectModel(News.self, Author.self)
/// ```
///
/// Entities are fixed when the model is made. Fetch request templates can be
/// added until a store opens with the model; from then on the model is frozen
/// and changing it throws ``KuraError/modelFrozen(_:)``. A model is `Sendable`
/// and can be shared by any number of containers.
public final class ManagedObjectModel: Sendable {
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    /// The name of this version of the model, a version number such as
    /// `"2"`, `"1.10"`, `"2026.11"` or `"2.0-beta.1"`: the store keeps it, a
    /// ``MigrationPlan`` finds a store's place among its stages by it, and it
    /// tells an older build of the app from a newer one (semantic
    /// versioning's order; the "Changing your model" article has the
    /// grammar). Opening a store with an identifier that isn't a version
    /// (`"1.00"`, `"v2"`, `" 2"`) throws ``KuraError/invalidModel(_:)``.
    /// Optional: without one, a store is matched by its schema.
    public let versionIdentifier: String?
    /// A short stable hash of the schema (entities, attributes,
    /// relationships, indexes; not the templates). Stores keep it to notice a model that changed.
    public let fingerprint: String

    private let entitiesByName: [String: EntityDescription]
    /// By destination entity: the relationships without an inverse that
    /// point to it, so deleting one of its objects can clear them.
    let linksWithoutInverseTo: [IdentityKey: [RelationshipLink]]
    private let entitiesByClass: [ObjectIdentifier: EntityDescription]
    let state = Mutex(State())

    struct State: ~Copyable {
        var isFrozen = false
        var templates: [String: FetchRequestTemplate] = [:]
        /// The template last asked for by name, and its name (empty for
        /// none: a template's name isn't): an app asks for the same one again
        /// and again, and comparing a name costs less than hashing it. Two
        /// fields, not an optional pair, so the comparison copies nothing.
        var lastTemplateName = ""
        var lastTemplate: FetchRequestTemplate?
        /// True once a store has set the entities' ``RecordLayout``s.
        var hasBoundLayouts = false
    }

    /// A model of the entities of these ``ManagedObject`` subclasses.
    /// - Throws: ``KuraError/invalidModel(_:)``.
    public convenience init(_ types: ManagedObject.Type..., versionIdentifier: String? = nil) throws {
        try self.init(versionIdentifier: versionIdentifier, entities: types.map { try EntityDescription($0) })
    }

    /// A model of the entities of these ``ManagedObject`` subclasses.
    /// - Throws: ``KuraError/invalidModel(_:)``.
    public convenience init(types: [ManagedObject.Type], versionIdentifier: String? = nil) throws {
        try self.init(versionIdentifier: versionIdentifier, entities: types.map { try EntityDescription($0) })
    }

    /// A model of these entities.
    /// - Throws: ``KuraError/invalidModel(_:)`` when two entities share a name
    ///   or a class.
    public convenience init(entities: [EntityDescription]) throws {
        try self.init(versionIdentifier: nil, entities: entities)
    }

    /// A version of a model, named for ``MigrationPlan``s.
    /// - Throws: ``KuraError/invalidModel(_:)`` when two entities share a name
    ///   or a class.
    public init(versionIdentifier: String?, entities: [EntityDescription]) throws {
        self.versionIdentifier = versionIdentifier

        var byName: [String: EntityDescription] = [:]
        var byClass: [ObjectIdentifier: EntityDescription] = [:]
        for entity in entities {
            guard byName.updateValue(entity, forKey: entity.name) == nil else {
                throw KuraError.invalidModel("two entities are named \(entity.name)")
            }
            if entity.managedObjectClass != ManagedObject.self {
                guard byClass.updateValue(entity, forKey: ObjectIdentifier(entity.managedObjectClass)) == nil else {
                    throw KuraError.invalidModel("class \(entity.managedObjectClass) is the class of two entities")
                }
            }
        }
        try Self.resolveInheritance(of: entities, byName: byName)
        try Self.resolveRelationships(of: entities, byName: byName)
        // A link without inverse to an entity reaches its sub-entities too;
        // an inherited link is its owner's (same entries).
        var incoming: [IdentityKey: [RelationshipLink]] = [:]
        for entity in entities {
            for link in entity.links where link.inverseNumber == nil && link.source.relationshipOwner(link.number) === link.source {
                for destination in link.destination.descendantsIncludingSelf {
                    incoming[IdentityKey(destination), default: []].append(link)
                }
            }
        }
        self.linksWithoutInverseTo = incoming
        self.entities = entities
        self.entitiesByName = byName
        self.entitiesByClass = byClass
        self.fingerprint = Self.fingerprint(of: entities)
    }

    /// The entity called `name`, or `nil`.
    public func entity(named name: String) -> EntityDescription? {
        entitiesByName[name]
    }

    /// The entity whose objects are of class `type`, or `nil`.
    public func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entitiesByClass[ObjectIdentifier(type)]
    }

    /// The entity called `name`, or ``KuraError/unknownEntity(_:)``.
    public func requireEntity(named name: String) throws -> EntityDescription {
        guard let entity = entitiesByName[name] else { throw KuraError.unknownEntity(name) }
        return entity
    }

    /// The entity `request` fetches: for a request made from one of this
    /// model's templates, the entity its predicate was compiled for, found
    /// without hashing the name (a small model is scanned by identity).
    func requireEntity(of request: FetchRequest<ManagedObject>) throws -> EntityDescription {
        if let entity = request.compiledPredicate?.entity, entities.count <= 16,
           entities.contains(where: { $0 === entity }), entity.name == request.entityName {
            return entity
        }
        return try requireEntity(named: request.entityName)
    }

    /// True once a store uses the model; it can no longer change.
    public var isFrozen: Bool {
        state.withLock { $0.isFrozen }
    }

    func freeze() {
        state.withLock { $0.isFrozen = true }
    }

    /// Sets where each entity's values sit in records (see
    /// ``RecordLayout``), as a store numbers them. The first store to open
    /// with the model sets them; another store must number them the same way.
    ///
    /// - Throws: ``KuraError/invalidModel(_:)`` when the model is in use with
    ///   a store that numbers them differently.
    func bindLayouts(_ layouts: [RecordLayout]) throws {
        try state.withLock { state in
            if state.hasBoundLayouts {
                for (entity, layout) in zip(entities, layouts) where entity.layout != layout {
                    throw KuraError.invalidModel(
                        "this model is in use with a store whose \(entity.name) records are laid out differently; "
                            + "open this store with a model instance of its own")
                }
                return
            }
            for (entity, layout) in zip(entities, layouts) { entity.layout = layout }
            state.hasBoundLayouts = true
        }
    }

    /// True when `other` has the same entities, attributes, relationships and indexes.
    public func hasSameSchema(as other: ManagedObjectModel) -> Bool {
        fingerprint == other.fingerprint && entities.count == other.entities.count
            && zip(entities, other.entities).allSatisfy { $0.hasSameSchema(as: $1) }
    }

    /// FNV-1a (64-bit) over a canonical text of the schema.
    private static func fingerprint(of entities: [EntityDescription]) -> String {
        var text = ""
        for entity in entities {
            text += "entity \(entity.name)\n"
            if let superentity = entity.superentity { text += "superentity \(superentity.name)\n" }
            if entity.isAbstract { text += "abstract\n" }
            for attribute in entity.attributes {
                text += "attribute \(attribute.name) \(attribute.type.rawValue) \(attribute.isOptional)"
                if let value = attribute.defaultValue { text += " \(StoredValue(value).text)" }
                if attribute.encoding != .plain { text += " \(attribute.encoding.rawValue)" }
                if let element = attribute.elementType { text += " list \(element.rawValue)" }
                text += "\n"
            }
            for relationship in entity.relationships {
                text += "relationship \(relationship.name) \(relationship.destinationEntityName) \(relationship.inverseName ?? "-") "
                    + "\(relationship.isToMany) \(relationship.isOrdered) \(relationship.isOptional) \(relationship.minimumCount) "
                    + "\(relationship.maximumCount.map(String.init) ?? "-") \(relationship.deleteRule.rawValue)\n"
            }
            for index in entity.indexes {
                text += "index \(index.name) \(index.isUnique) \(index.attributes.joined(separator: ","))\n"
            }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
