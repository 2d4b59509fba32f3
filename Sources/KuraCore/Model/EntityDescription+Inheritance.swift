/// An entity and its sub-entities: the family a root entity heads, as
/// Core Data's entity inheritance (`class Video: Media`).
///
/// A sub-entity has every attribute, relationship and index of its
/// superentity, first and in the same order (so a property has the same
/// position in both), then its own. Each concrete entity keeps its records
/// in its own space; what the family shares is its superentities' spaces:
/// an index declared on `Media` is one space holding the entries of every
/// `Media`, `Video` and `Audio`, so a unique constraint holds across them
/// and a fetch of `Media` reads one range; a relationship declared on
/// `Media` is likewise one set of entries. Primary keys tell the entities
/// apart: each entity of a family has a number (its *tag*, 0 for the root),
/// which its keys carry in bits 48–62, so a reference to a `Media` (a key)
/// names a `Video`'s record without another read.
final class EntityFamily: @unchecked Sendable {
    // @unchecked: set once by the model that makes it, before any other
    // thread sees the model; entities are unowned references as in
    // `RelationshipLink` (the model holds them).

    /// Where a primary key carries its entity's tag.
    static let keyTagShift = 48
    /// The bits of a primary key that hold the tag (bit 63 stays the
    /// temporary flag of ``ObjectID``).
    static let keyTagMask: UInt64 = 0x7FFF << 48
    /// The most entities a family can have.
    static let maximumTag = 0x7FFF

    struct Member {
        /// The entity, held unowned (``_UnownedReference``): the model holds it.
        var entity: EntityDescription { reference.object }
        private let reference: _UnownedReference<EntityDescription>

        init(_ entity: EntityDescription) {
            reference = _UnownedReference(entity)
        }
    }

    /// Every entity of the family, each after its superentity.
    let members: [Member]

    init(members: [EntityDescription]) {
        self.members = members.map(Member.init)
    }

    /// The entity whose keys carry `key`'s tag, or `nil`.
    @inline(__always)
    func entity(forKey key: UInt64) -> EntityDescription? {
        let tag = key & Self.keyTagMask
        for member in members where member.entity.layout.keyTag == tag { return member.entity }
        return nil
    }
}

extension EntityDescription {
    /// The entity this one is a sub-entity of, once in a model; `nil` for a root.
    public var superentity: EntityDescription? { resolvedSuperentity }

    /// The entities whose superentity is this one, in model order.
    public var subentities: [EntityDescription] {
        guard let family else { return [] }
        return family.members.map(\.entity).filter { $0.resolvedSuperentity === self }
    }

    /// This entity and every entity below it, each after its superentity:
    /// what a fetch of it with ``FetchRequest/includesSubentities`` reads.
    var descendantsIncludingSelf: [EntityDescription] {
        guard let family else { return [self] }
        return family.members.map(\.entity).filter { $0.isKind(of: self) }
    }

    /// True when this entity is `entity` or one of its sub-entities, at any depth.
    public func isKind(of entity: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// True when some entity inherits from this one.
    var hasSubentities: Bool {
        guard let family else { return false }
        return family.members.contains { $0.entity.resolvedSuperentity === self }
    }

    /// The entity of the family whose keys carry `key`'s tag: this one for
    /// an entity with no family (or a key of no member).
    @inline(__always)
    func concreteEntity(forKey key: UInt64) -> EntityDescription {
        guard isInFamily else { return self }
        return familyMember(forKey: key)
    }

    /// ``concreteEntity(forKey:)`` for an entity of a family.
    @inline(never)
    private func familyMember(forKey key: UInt64) -> EntityDescription {
        family?.entity(forKey: key) ?? self
    }

    /// True when `key` is a key of this entity's own objects (not a
    /// sibling's or a sub-entity's): an entry of a space the family shares
    /// names one of them.
    @inline(__always)
    func ownsKey(_ key: UInt64) -> Bool {
        !isInFamily || key & EntityFamily.keyTagMask == layout.keyTag
    }

    /// The entity whose space holds this entity's index at `position`: the
    /// topmost superentity with an index of that name (the index is
    /// inherited), else this one.
    func indexOwner(_ position: Int) -> (entity: EntityDescription, position: Int) {
        var owner = (entity: self, position: position)
        let name = indexes[position].name
        while let superentity = owner.entity.superentity,
              let inherited = superentity.indexes.firstIndex(where: { $0.name == name }) {
            owner = (superentity, inherited)
        }
        return owner
    }

    /// The entity whose spaces hold this entity's relationship `number`:
    /// the topmost superentity that has it (sub-entities inherit
    /// relationships by position), else this one.
    func relationshipOwner(_ number: Int) -> EntityDescription {
        var owner = self
        while let superentity = owner.superentity, number < superentity.declaredRelationships.count {
            owner = superentity
        }
        return owner
    }
}

extension ManagedObjectModel {
    /// Resolves every entity's superentity: it must be in the model, not
    /// make a cycle, and its attributes, relationships and indexes must
    /// begin this entity's. Sets each family's ``EntityFamily`` and gives
    /// its members their tags (model order) until a store numbers them.
    ///
    /// An inferred superentity (a class's superclass) that the model
    /// doesn't have is no superentity.
    static func resolveInheritance(of entities: [EntityDescription], byName: [String: EntityDescription]) throws {
        func superentity(of entity: EntityDescription) throws -> EntityDescription? {
            guard let name = entity.superentityName else { return nil }
            guard let found = byName[name] else {
                if entity.superentityIsInferred { return nil }
                throw KuraError.invalidModel("\(entity.name)'s superentity \(name) is not in the model")
            }
            return found
        }
        var roots: [ObjectIdentifier: EntityDescription] = [:]
        for entity in entities {
            var seen: Set<ObjectIdentifier> = [ObjectIdentifier(entity)]
            var current = entity
            while let parent = try superentity(of: current) {
                guard seen.insert(ObjectIdentifier(parent)).inserted else {
                    throw KuraError.invalidModel("the superentities of \(entity.name) make a cycle")
                }
                try checkInherits(current, from: parent)
                current.resolvedSuperentity = parent
                current = parent
            }
            if current !== entity { roots[ObjectIdentifier(entity)] = current }
        }
        // Each family in model order, each member after its superentity.
        var families: [ObjectIdentifier: [EntityDescription]] = [:]
        for entity in entities {
            guard let root = roots[ObjectIdentifier(entity)] else { continue }
            families[ObjectIdentifier(root), default: [root]].append(entity)
        }
        for (_, members) in families {
            guard members.count <= EntityFamily.maximumTag + 1 else {
                throw KuraError.invalidModel("\(members[0].name) has more than \(EntityFamily.maximumTag) sub-entities")
            }
            var ordered: [EntityDescription] = []
            var placed = Set<ObjectIdentifier>()
            while ordered.count < members.count {
                for member in members where !placed.contains(ObjectIdentifier(member)) {
                    let parent = try superentity(of: member)
                    if parent == nil || placed.contains(ObjectIdentifier(parent!)) {
                        ordered.append(member)
                        placed.insert(ObjectIdentifier(member))
                    }
                }
            }
            let family = EntityFamily(members: ordered)
            for (tag, member) in ordered.enumerated() {
                member.family = family
                if let parent = member.resolvedSuperentity {
                    member.layout = RecordLayout(identityFor: member, inheriting: parent, entityTag: tag)
                } else {
                    member.layout = member.layout.withEntityTag(tag)
                }
            }
        }
        // A class whose superclass's entity isn't in the model is a root:
        // nothing to resolve. (Its attributes are its own, flattened.)
    }

    /// Checks that `entity` begins with everything `parent` has.
    private static func checkInherits(_ entity: EntityDescription, from parent: EntityDescription) throws {
        func same(_ a: AttributeDescription, _ b: AttributeDescription) -> Bool {
            a.name == b.name && a.type == b.type && a.isOptional == b.isOptional && a.encoding == b.encoding
        }
        guard entity.attributes.count >= parent.attributes.count,
              zip(parent.attributes, entity.attributes).allSatisfy(same) else {
            throw KuraError.invalidModel(
                "\(entity.name) is a sub-entity of \(parent.name), so its attributes must begin with \(parent.name)'s, in order")
        }
        guard entity.declaredRelationships.count >= parent.declaredRelationships.count,
              zip(parent.declaredRelationships, entity.declaredRelationships).allSatisfy({ $0.name == $1.name
                  && $0.destinationEntityName == $1.destinationEntityName && $0.isToMany == $1.isToMany }) else {
            throw KuraError.invalidModel(
                "\(entity.name) is a sub-entity of \(parent.name), so its relationships must begin with \(parent.name)'s, in order")
        }
        for index in parent.indexes where !entity.indexes.contains(index) {
            throw KuraError.invalidModel(
                "\(entity.name) is a sub-entity of \(parent.name), so it has \(parent.name)'s index \(index.name)")
        }
    }
}
