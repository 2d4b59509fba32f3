/// How the model a store holds (the *source*) maps onto a newer model (the
/// *target*): which entity, attribute, relationship and index of one is which
/// of the other, the record layout the target gets, every difference, and
/// the work a migration must do.
///
/// Properties are matched by name, or by the target's renaming identifier
/// (its name in the source). Matched properties keep their record fields;
/// new ones take fields never used before (see ``RecordLayout``).
struct SchemaMapping {
    /// One target entity and the source entity it continues, if any.
    struct EntityMap {
        let source: EntityDescription?
        let target: EntityDescription
        /// For each target attribute: the source attribute's position.
        let attributeSources: [Int?]
        /// For each target attribute: true when its values must be converted
        /// (Float to Double), so its records are rewritten.
        let converted: [Bool]
        /// For each target relationship: the source relationship's number.
        let relationshipSources: [Int?]
        /// For each target index: the source index it is, unchanged, if any.
        let indexSources: [Int?]
        /// For each target relationship: true when its entries are rebuilt
        /// (its storage changed, or it takes its data from its inverse).
        let rebuiltRelationships: [Bool]
        /// Required target attributes whose stored values may be nil.
        let attributesToFill: [Int]
        let layout: RecordLayout

        /// True when records must be rewritten: a value converted, or a
        /// to-one's reference moved.
        var rewritesRecords: Bool {
            converted.contains(true) || zip(target.relationships, rebuiltRelationships).contains { !$0.isToMany && $1 }
        }
    }

    let source: ManagedObjectModel
    let target: ManagedObjectModel
    let entities: [EntityMap]
    /// Source entities the target no longer has.
    let removedEntities: [EntityDescription]
    let differences: [ModelDifference]

    /// The differences a lightweight migration can't make.
    var needsCustomStage: [ModelDifference] { differences.filter { $0.cost == .needsCustomStage } }
    /// True when the store's model document only needs rewriting (or not even that).
    var isModelOnly: Bool { differences.allSatisfy { $0.cost <= .modelOnly } }
    /// True when nothing at all differs that a store keeps in records or spaces.
    var needsNoMigration: Bool { differences.allSatisfy { $0.cost == .none } }

    /// Maps `source` onto `target`. With `replacingIncompatible` (a custom
    /// stage), an attribute whose type can't be converted becomes a new
    /// attribute of the same name, for the stage's code to fill.
    init(from source: ManagedObjectModel, to target: ManagedObjectModel, replacingIncompatible: Bool = false) {
        self.source = source
        self.target = target
        var differences: [ModelDifference] = []
        var claimed = Set<ObjectIdentifier>()
        var takenStorage = Set(source.entities.map(\.layout.storageName))
        var mapOf: [ObjectIdentifier: EntityMap] = [:]
        var families = FamilyNumbering(source: source)
        // Entities: by renaming identifier first, then by name; each
        // superentity before its sub-entities (which take its fields).
        for entity in Self.superentitiesFirst(target.entities) {
            let match = Self.match(entity.name, entity.renamingIdentifier, in: source.entities.map(\.name))
                .map { source.entities[$0] }
            let parent = entity.superentity.flatMap { mapOf[ObjectIdentifier($0)] }
            if let match, claimed.insert(ObjectIdentifier(match)).inserted {
                if match.name != entity.name {
                    differences.append(ModelDifference(entity: entity.name, change: .entityRenamed(from: match.name), cost: .modelOnly))
                }
                if match.superentity?.name != entity.superentity.map({ mapOf[ObjectIdentifier($0)]?.source?.name }) ?? nil {
                    differences.append(ModelDifference(
                        entity: entity.name,
                        change: .superentityChanged(from: match.superentity?.name, to: entity.superentity?.name), cost: .needsCustomStage))
                }
                var nextField = families.nextField(of: match, continuedBy: entity)
                var map = Self.map(match, to: entity, replacingIncompatible: replacingIncompatible, nextField: &nextField,
                                   differences: &differences)
                if let parent { map = map.inheriting(from: parent, nextField: &nextField) }
                families.setNextField(nextField, of: entity)
                mapOf[ObjectIdentifier(entity)] = map
            } else {
                differences.append(ModelDifference(entity: entity.name, change: .entityAdded, cost: .modelOnly))
                let storage = Self.unique(entity.name, taken: &takenStorage)
                let identity = RecordLayout(identityFor: entity.attributes, relationships: entity.relationships,
                                            indexes: entity.indexes, entityName: storage, entityTag: families.newTag(for: entity))
                var map = EntityMap(
                    source: nil, target: entity, attributeSources: entity.attributes.map { _ in nil },
                    converted: entity.attributes.map { _ in false }, relationshipSources: entity.relationships.map { _ in nil },
                    indexSources: entity.indexes.map { _ in nil }, rebuiltRelationships: entity.relationships.map { _ in false },
                    attributesToFill: [], layout: identity)
                if let parent {
                    var nextField = families.nextField(ofNew: entity)
                    map = map.inheriting(from: parent, nextField: &nextField, renumberingOwn: true)
                }
                families.setNextField(map.layout.fieldCount, of: entity)
                mapOf[ObjectIdentifier(entity)] = map
            }
        }
        var maps = target.entities.map { mapOf[ObjectIdentifier($0)]! }
        let removed = source.entities.filter { !claimed.contains(ObjectIdentifier($0)) }
        for entity in removed {
            differences.append(ModelDifference(entity: entity.name, change: .entityRemoved, cost: .touchesData))
        }
        maps = Self.resolveRelations(maps, source: source, differences: &differences)
        if differences.isEmpty && source.entities.map(\.name) != target.entities.map(\.name) {
            differences.append(ModelDifference(entity: target.entities.first?.name ?? "", change: .propertiesReordered, cost: .none))
        }
        self.entities = maps
        self.removedEntities = removed
        self.differences = differences
    }

    /// The position of the source name a target name continues: its renaming
    /// identifier when the source has it, else its own name.
    static func match(_ name: String, _ renamingIdentifier: String?, in names: [String]) -> Int? {
        if let renamingIdentifier, let position = names.firstIndex(of: renamingIdentifier) { return position }
        return names.firstIndex(of: name)
    }

    /// `name`, or `name_2`, `name_3`… when a space already has that name.
    static func unique(_ name: String, taken: inout Set<String>) -> String {
        var candidate = name
        var suffix = 2
        while taken.contains(candidate) {
            candidate = "\(name)_\(suffix)"
            suffix += 1
        }
        taken.insert(candidate)
        return candidate
    }

    /// Whether a stored value of type `old` reads as `new` unchanged (all
    /// integers are stored as 64 bits), or needs converting (Float to Double).
    static func conversion(from old: AttributeType, to new: AttributeType) -> (possible: Bool, rewrites: Bool) {
        let integers: [AttributeType] = [.int16, .int32, .int64]
        if old == new { return (true, false) }
        if let from = integers.firstIndex(of: old), let to = integers.firstIndex(of: new) { return (from < to, false) }
        if old == .float && new == .double { return (true, true) }
        return (false, false)
    }

    /// How `old` continues as `new`: attributes, then relationships, then
    /// indexes (which follow the attributes they cover), and the record
    /// layout they make. What differs goes into `differences`.
    private static func map(
        _ old: EntityDescription, to new: EntityDescription, replacingIncompatible: Bool, nextField: inout Int,
        differences: inout [ModelDifference]
    ) -> EntityMap {
        let attributes = mapAttributes(
            old, to: new, replacingIncompatible: replacingIncompatible, nextField: &nextField, differences: &differences)
        let relationships = mapRelationships(old, to: new, nextField: &nextField, differences: &differences)
        let indexes = mapIndexes(old, to: new, attributes: attributes, differences: &differences)
        let layout = RecordLayout(
            attributes: new.attributes, relationships: new.relationships, attributeFields: attributes.fields,
            relationshipFields: relationships.fields, fieldCount: nextField, absentValues: attributes.absent,
            storageName: old.layout.storageName, relationshipStorageNames: relationships.storageNames,
            indexStorageNames: indexes.storageNames, entityTag: old.layout.entityTag)
        return EntityMap(
            source: old, target: new, attributeSources: attributes.sources, converted: attributes.converted,
            relationshipSources: relationships.sources, indexSources: indexes.sources,
            rebuiltRelationships: new.relationships.map { _ in false }, attributesToFill: attributes.toFill, layout: layout)
    }

    /// Where each attribute of the target entity comes from.
    private struct AttributeMapping {
        /// The source attribute each continues, or `nil` for a new one.
        var sources: [Int?] = []
        /// Whether each is converted from its source's type.
        var converted: [Bool] = []
        /// Each one's field in the record.
        var fields: [Int] = []
        /// What each reads as in a record that lacks its field.
        var absent: [AttributeValue?] = []
        /// The required attributes a custom stage must fill.
        var toFill: [Int] = []
    }

    private static func mapAttributes(
        _ old: EntityDescription, to new: EntityDescription, replacingIncompatible: Bool, nextField: inout Int,
        differences: inout [ModelDifference]
    ) -> AttributeMapping {
        let entity = new.name
        let oldLayout = old.layout
        var mapping = AttributeMapping()
        var claimedAttributes = Set<Int>()
        var replaced = Set<Int>()
        for (position, attribute) in new.attributes.enumerated() {
            var source = match(attribute.name, attribute.renamingIdentifier, in: old.attributes.map(\.name))
            if let found = source, !claimedAttributes.insert(found).inserted { source = nil }
            if let found = source {
                let stored = old.attributes[found]
                let conversion = conversion(from: stored.type, to: attribute.type)
                compare(stored, with: attribute, of: entity, replacingIncompatible: replacingIncompatible, differences: &differences)
                if conversion.possible {
                    mapping.sources.append(found)
                    mapping.converted.append(conversion.rewrites)
                    mapping.fields.append(oldLayout.attributeFields[found])
                    mapping.absent.append(oldLayout.absentValues[found].flatMap { $0.converted(to: attribute.type) })
                    if stored.isOptional && !attribute.isOptional { mapping.toFill.append(position) }
                    continue
                }
                // Incompatible: a new attribute of that name, filled by the stage.
                claimedAttributes.remove(found)
                replaced.insert(found)
            } else {
                differences.append(ModelDifference(entity: entity, property: attribute.name, change: .attributeAdded, cost: .modelOnly))
            }
            mapping.sources.append(nil)
            mapping.converted.append(false)
            mapping.fields.append(nextField)
            nextField += 1
            mapping.absent.append(attribute.defaultValue)
            if !attribute.isOptional && attribute.defaultValue == nil { mapping.toFill.append(position) }
        }
        for (position, attribute) in old.attributes.enumerated()
        where !claimedAttributes.contains(position) && !replaced.contains(position) {
            differences.append(ModelDifference(entity: entity, property: attribute.name, change: .attributeRemoved, cost: .modelOnly))
        }
        if !differences.contains(where: { $0.entity == entity }),
           mapping.sources.compactMap({ $0 }) != Array(old.attributes.indices) {
            differences.append(ModelDifference(entity: entity, change: .propertiesReordered, cost: .none))
        }
        return mapping
    }

    /// What differs between a stored attribute and the target attribute
    /// that continues it: its name, its type (and what converting costs),
    /// whether it is optional, its default.
    private static func compare(
        _ stored: AttributeDescription, with attribute: AttributeDescription, of entity: String, replacingIncompatible: Bool,
        differences: inout [ModelDifference]
    ) {
        let name = attribute.name
        if stored.name != name {
            differences.append(ModelDifference(entity: entity, property: name, change: .attributeRenamed(from: stored.name), cost: .modelOnly))
        }
        let conversion = conversion(from: stored.type, to: attribute.type)
        if stored.type != attribute.type {
            let cost: ModelDifference.Cost = !conversion.possible ? (replacingIncompatible ? .touchesData : .needsCustomStage)
                : conversion.rewrites ? .touchesData : .modelOnly
            differences.append(ModelDifference(
                entity: entity, property: name, change: .attributeTypeChanged(from: stored.type, to: attribute.type), cost: cost))
        }
        guard conversion.possible else { return }
        if stored.isOptional != attribute.isOptional {
            differences.append(ModelDifference(
                entity: entity, property: name,
                change: attribute.isOptional ? .attributeMadeOptional : .attributeMadeRequired,
                cost: attribute.isOptional ? .modelOnly : .touchesData))
        }
        if stored.defaultValue?.converted(to: attribute.type) != attribute.defaultValue {
            differences.append(ModelDifference(
                entity: entity, property: name,
                change: .defaultValueChanged(from: stored.defaultValue.map { "\($0)" }, to: attribute.defaultValue.map { "\($0)" }),
                cost: .none))
        }
    }

    /// Where each relationship of the target entity comes from: the source
    /// relationship it continues, its field (a to-one's), its spaces' name.
    private struct RelationshipMapping {
        var sources: [Int?] = []
        var fields: [Int?] = []
        var storageNames: [String] = []
    }

    /// Relationships: matched by name or renaming identifier; whether
    /// their entries carry over is settled once both ends are known.
    private static func mapRelationships(
        _ old: EntityDescription, to new: EntityDescription, nextField: inout Int, differences: inout [ModelDifference]
    ) -> RelationshipMapping {
        let oldLayout = old.layout
        var mapping = RelationshipMapping()
        var takenRelationshipStorage = Set(oldLayout.relationshipStorageNames)
        var claimedRelationships = Set<Int>()
        for relationship in new.relationships {
            var source = match(relationship.name, relationship.renamingIdentifier, in: old.relationships.map(\.name))
            if let found = source, !claimedRelationships.insert(found).inserted { source = nil }
            mapping.sources.append(source)
            if let found = source, !relationship.isToMany, let field = oldLayout.relationshipFields[found] {
                mapping.fields.append(field)
            } else if relationship.isToMany {
                mapping.fields.append(nil)
            } else {
                mapping.fields.append(nextField)
                nextField += 1
            }
            mapping.storageNames.append(source.map { oldLayout.relationshipStorageNames[$0] }
                ?? unique(relationship.name, taken: &takenRelationshipStorage))
        }
        for (number, relationship) in old.relationships.enumerated() where !claimedRelationships.contains(number) {
            differences.append(ModelDifference(
                entity: new.name, property: relationship.name, change: .relationshipRemoved, cost: .touchesData))
        }
        return mapping
    }

    /// Indexes: the same index when it covers the same stored attributes,
    /// unconverted, with the same uniqueness; else a new one, built.
    private static func mapIndexes(
        _ old: EntityDescription, to new: EntityDescription, attributes: AttributeMapping, differences: inout [ModelDifference]
    ) -> (sources: [Int?], storageNames: [String]) {
        var sources: [Int?] = []
        var storageNames: [String] = []
        var takenIndexStorage = Set(old.layout.indexStorageNames)
        var claimedIndexes = Set<Int>()
        for (position, index) in new.indexes.enumerated() {
            let covered = new.indexAttributeNumbers[position].map { attributes.sources[$0] }
            let unchanged = new.indexAttributeNumbers[position].allSatisfy {
                !attributes.converted[$0] && !attributes.toFill.contains($0)
            }
            let found = unchanged ? old.indexes.indices.first { candidate in
                !claimedIndexes.contains(candidate) && old.indexes[candidate].isUnique == index.isUnique
                    && old.indexAttributeNumbers[candidate].map(Optional.some) == covered
            } : nil
            if let found {
                claimedIndexes.insert(found)
                sources.append(found)
                storageNames.append(old.layout.indexStorageNames[found])
            } else {
                sources.append(nil)
                storageNames.append(unique(index.name, taken: &takenIndexStorage))
                differences.append(ModelDifference(
                    entity: new.name, property: index.name, change: .indexAdded(unique: index.isUnique), cost: .touchesData))
            }
        }
        for (position, index) in old.indexes.enumerated() where !claimedIndexes.contains(position) {
            differences.append(ModelDifference(entity: new.name, property: index.name, change: .indexRemoved, cost: .touchesData))
        }
        return (sources, storageNames)
    }

    /// Settles each target relationship: whether its stored entries carry
    /// over, or are rebuilt (into spaces of a new name) from the entries
    /// of the source relationship it continues, or of its inverse's.
    private static func resolveRelations(
        _ maps: [EntityMap], source: ManagedObjectModel, differences: inout [ModelDifference]
    ) -> [EntityMap] {
        var targetOf: [ObjectIdentifier: EntityDescription] = [:]
        var mapOf: [ObjectIdentifier: EntityMap] = [:]
        for map in maps {
            if let old = map.source { targetOf[ObjectIdentifier(old)] = map.target }
            mapOf[ObjectIdentifier(map.target)] = map
        }
        func sourceLink(_ link: RelationshipLink) -> RelationshipLink? {
            guard let map = mapOf[ObjectIdentifier(link.source)], let old = map.source,
                  let number = map.relationshipSources[link.number] else { return nil }
            return old.links[number]
        }
        return maps.map { map in
            guard let old = map.source else { return map }
            let entity = map.target.name
            var rebuilt = map.rebuiltRelationships
            var storage = map.layout.relationshipStorageNames
            var taken = Set(old.layout.relationshipStorageNames + storage)
            for link in map.target.links {
                let name = link.name
                guard let previous = sourceLink(link) else {
                    differences.append(ModelDifference(entity: entity, property: name, change: .relationshipAdded, cost: .modelOnly))
                    // A new relationship whose inverse existed takes its entries.
                    if let inverse = link.inverse, sourceLink(inverse) != nil {
                        rebuilt[link.number] = link.storageType.isRebuilt
                        if rebuilt[link.number] { differences[differences.count - 1].cost = .touchesData }
                    }
                    continue
                }
                if previous.name != name {
                    differences.append(ModelDifference(entity: entity, property: name, change: .relationshipRenamed(from: previous.name), cost: .modelOnly))
                }
                guard targetOf[ObjectIdentifier(previous.destination)] === link.destination else {
                    differences.append(ModelDifference(
                        entity: entity, property: name,
                        change: .relationshipChanged(from: "to \(previous.destination.name)", to: "to \(link.destination.name)"),
                        cost: .needsCustomStage))
                    continue
                }
                let previousInverse = previous.inverse
                let inverseSource = link.inverse.flatMap(sourceLink)
                if let inverseSource, inverseSource !== previousInverse {
                    differences.append(ModelDifference(
                        entity: entity, property: name,
                        change: .relationshipChanged(
                            from: "inverse \(previousInverse?.name ?? "none")", to: "inverse \(link.inverse?.name ?? "none")"),
                        cost: .needsCustomStage))
                    continue
                }
                var described = previous.description
                described.name = link.description.name
                described.destinationEntityName = link.description.destinationEntityName
                described.inverseName = link.description.inverseName
                described.renamingIdentifier = link.description.renamingIdentifier
                let sameStorage = previous.storage == link.storage && previous.isOrdered == link.isOrdered
                    && previous.keepsReverseEntries == link.keepsReverseEntries && previous.isToMany == link.isToMany
                if !sameStorage || described != link.description {
                    let cost: ModelDifference.Cost = !sameStorage ? .touchesData
                        : (!link.isToMany && !link.description.isOptional && previous.description.isOptional) ? .touchesData : .modelOnly
                    differences.append(ModelDifference(
                        entity: entity, property: name,
                        change: .relationshipChanged(from: "\(previous.description)", to: "\(link.description)"), cost: cost))
                }
                // A to-one that was a to-one keeps its field and entries.
                if !sameStorage && !(previous.storage == .reference && link.storage == .reference) {
                    rebuilt[link.number] = link.storageType.isRebuilt
                }
            }
            for number in rebuilt.indices where rebuilt[number] {
                storage[number] = unique(map.target.relationships[number].name, taken: &taken)
            }
            let layout = RecordLayout(
                attributes: map.target.attributes, relationships: map.target.relationships,
                attributeFields: map.layout.attributeFields, relationshipFields: map.layout.relationshipFields,
                fieldCount: map.layout.fieldCount, absentValues: map.layout.absentValues, storageName: map.layout.storageName,
                relationshipStorageNames: storage, indexStorageNames: map.layout.indexStorageNames,
                entityTag: map.layout.entityTag)
            return EntityMap(
                source: old, target: map.target, attributeSources: map.attributeSources, converted: map.converted,
                relationshipSources: map.relationshipSources, indexSources: map.indexSources, rebuiltRelationships: rebuilt,
                attributesToFill: map.attributesToFill, layout: layout)
        }
    }
}
