/// How a migration numbers what a family of entities shares (see
/// ``EntityFamily``): a sub-entity's inherited properties stay at its
/// superentity's fields, a new field is one no member of the family used,
/// and a new sub-entity takes a tag no member ever had.
extension SchemaMapping {
    /// The field counters and tags of the target model's families.
    struct FamilyNumbering {
        let source: ManagedObjectModel
        /// By the target family's root: the next field no member uses.
        private var nextFields: [ObjectIdentifier: Int] = [:]
        /// By the target family's root: the tags given so far.
        private var tags: [ObjectIdentifier: Int] = [:]

        init(source: ManagedObjectModel) {
            self.source = source
        }

        private static func root(of entity: EntityDescription) -> EntityDescription? {
            entity.family?.members[0].entity
        }

        /// The members of `entity`'s family in the source model (itself alone without one).
        private static func sourceFamily(of entity: EntityDescription) -> [EntityDescription] {
            entity.family?.members.map(\.entity) ?? [entity]
        }

        /// The first field a new property of `target`, which continues
        /// `old`, may take.
        mutating func nextField(of old: EntityDescription, continuedBy target: EntityDescription) -> Int {
            let base = Self.sourceFamily(of: old).map(\.layout.fieldCount).max() ?? 0
            guard let root = Self.root(of: target) else { return base }
            return max(base, nextFields[ObjectIdentifier(root)] ?? 0)
        }

        /// The first field a property of the new entity `target` may take.
        func nextField(ofNew target: EntityDescription) -> Int {
            guard let root = Self.root(of: target) else { return 0 }
            return nextFields[ObjectIdentifier(root)] ?? 0
        }

        /// Records that `target`'s family uses fields below `next`.
        mutating func setNextField(_ next: Int, of target: EntityDescription) {
            guard let root = Self.root(of: target) else { return }
            nextFields[ObjectIdentifier(root), default: 0] = max(nextFields[ObjectIdentifier(root)] ?? 0, next)
        }

        /// The tag of the new entity `target`: 0 for a family's new root,
        /// else one past every tag its family had or was given.
        mutating func newTag(for target: EntityDescription) -> Int {
            guard let root = Self.root(of: target), root !== target else { return 0 }
            let key = ObjectIdentifier(root)
            if tags[key] == nil {
                let storedRoot = SchemaMapping.match(root.name, root.renamingIdentifier, in: source.entities.map(\.name))
                    .map { source.entities[$0] }
                tags[key] = storedRoot.map { Self.sourceFamily(of: $0).map(\.layout.entityTag).max() ?? 0 } ?? 0
            }
            tags[key]! += 1
            return tags[key]!
        }
    }

    /// `entities` with each superentity before its sub-entities (else in order).
    static func superentitiesFirst(_ entities: [EntityDescription]) -> [EntityDescription] {
        func depth(_ entity: EntityDescription) -> Int {
            var depth = 0
            var current = entity.superentity
            while let parent = current {
                depth += 1
                current = parent.superentity
            }
            return depth
        }
        return entities.enumerated().sorted { (depth($0.element), $0.offset) < (depth($1.element), $1.offset) }.map(\.element)
    }
}

extension SchemaMapping.EntityMap {
    /// This map with the properties its target inherits at the fields of
    /// `parent`'s target; with `renumberingOwn` (a new entity), its own
    /// properties take fields from `nextField` on.
    func inheriting(from parent: Self, nextField: inout Int, renumberingOwn: Bool = false) -> Self {
        let inheritedAttributes = parent.target.attributes.count
        let inheritedRelationships = parent.target.declaredRelationships.count
        var attributeFields = parent.layout.attributeFields
        var absentValues = parent.layout.absentValues
        for position in layout.attributeFields.indices.dropFirst(inheritedAttributes) {
            if renumberingOwn {
                attributeFields.append(nextField)
                nextField += 1
            } else {
                attributeFields.append(layout.attributeFields[position])
            }
            absentValues.append(layout.absentValues[position])
        }
        var relationshipFields = parent.layout.relationshipFields
        for number in layout.relationshipFields.indices.dropFirst(inheritedRelationships) {
            guard let field = layout.relationshipFields[number] else {
                relationshipFields.append(nil)
                continue
            }
            if renumberingOwn {
                relationshipFields.append(nextField)
                nextField += 1
            } else {
                relationshipFields.append(field)
            }
        }
        let used = (attributeFields + relationshipFields.compactMap { $0 }).max().map { $0 + 1 } ?? 0
        nextField = max(nextField, used)
        let fieldCount = max(layout.fieldCount, used, renumberingOwn ? nextField : 0)
        return Self(
            source: source, target: target, attributeSources: attributeSources, converted: converted,
            relationshipSources: relationshipSources, indexSources: indexSources, rebuiltRelationships: rebuiltRelationships,
            attributesToFill: attributesToFill,
            layout: RecordLayout(
                attributes: target.attributes, relationships: target.relationships, attributeFields: attributeFields,
                relationshipFields: relationshipFields, fieldCount: fieldCount, absentValues: absentValues,
                storageName: layout.storageName, relationshipStorageNames: layout.relationshipStorageNames,
                indexStorageNames: layout.indexStorageNames, entityTag: layout.entityTag))
    }
}
