/// Where an entity's values sit in its stored records, and the names of its
/// spaces: the part of an entity that its store fixes.
///
/// Every attribute and to-one relationship has a *field number*, its place in
/// a record's offset table. A new store numbers them in declaration order,
/// attributes first; the store's model keeps the numbers, and a later model
/// version keeps each property's number however its properties are ordered
/// or renamed. A new property takes the next unused number; a removed one's
/// number is never used again. So adding, removing, renaming and reordering
/// properties change the stored model only, never a record. Positions (an
/// attribute's index in ``EntityDescription/attributes``) stay an in-memory
/// detail of one model.
///
/// A record written before a field existed has fewer fields; the field reads
/// as the attribute's *absent value*: the default the attribute had when it
/// was added, kept in the store so that a later change of default applies to
/// new objects only.
///
/// Databases are named from *storage names*: an entity's, relationship's or
/// index's name when it was created. A renamed entity keeps its spaces.
final class RecordLayout: Sendable, Equatable {
    /// The field of each attribute, by position.
    let attributeFields: [Int]
    /// The field of each relationship, by number; `nil` for to-many ones.
    let relationshipFields: [Int?]
    /// The number of fields a record written now has (numbers of removed
    /// properties included: they are written as nil).
    let fieldCount: Int
    /// What each attribute reads as in a record written before it existed.
    let absentValues: [AttributeValue?]
    /// The entity's name in space names and ID counters.
    let storageName: String
    /// Each relationship's name in space names, by number.
    let relationshipStorageNames: [String]
    /// Each index's name in space names, by position.
    let indexStorageNames: [String]
    /// True when every attribute's field is its position (no indirection).
    let isIdentity: Bool
    /// The entity's number in its family (see ``EntityFamily``): 0 for a
    /// root, 1 and up for sub-entities, never reused. Every primary key of
    /// the entity carries it in bits 48–62 (``keyTag``), so a key alone says
    /// which entity's records hold it.
    let entityTag: Int
    /// ``entityTag`` where primary keys carry it.
    let keyTag: UInt64

    /// The tag of each field, or ``retiredTag`` for a field no property has now.
    let fieldTags: [UInt8]
    /// The payload size of each field's tag; -1 for variable-size ones.
    let fieldPayloadSizes: [Int]
    /// The attribute at each field, or -1 (a to-one or a retired field).
    let attributeAtField: [Int]
    /// The to-one at each field, counted among the to-ones in relationship
    /// order (the order of a record's references), or -1.
    let referenceAtField: [Int]
    /// True when some attribute is a decimal or URL (values that must parse).
    let hasParsedValues: Bool

    /// The tag of a field whose property was removed: any value is accepted
    /// (it is never read).
    static let retiredTag: UInt8 = 0xFF

    init(attributes: [AttributeDescription], relationships: [RelationshipDescription],
         attributeFields: [Int], relationshipFields: [Int?], fieldCount: Int, absentValues: [AttributeValue?],
         storageName: String, relationshipStorageNames: [String], indexStorageNames: [String], entityTag: Int = 0) {
        self.entityTag = entityTag
        keyTag = UInt64(entityTag) << EntityFamily.keyTagShift
        self.attributeFields = attributeFields
        self.relationshipFields = relationshipFields
        self.fieldCount = fieldCount
        self.absentValues = absentValues
        self.storageName = storageName
        self.relationshipStorageNames = relationshipStorageNames
        self.indexStorageNames = indexStorageNames
        isIdentity = attributeFields.enumerated().allSatisfy { $0.offset == $0.element }
        var tags = [UInt8](repeating: Self.retiredTag, count: fieldCount)
        var sizes = [Int](repeating: -1, count: fieldCount)
        var owners = [Int](repeating: -1, count: fieldCount)
        for (position, field) in attributeFields.enumerated() {
            let tag = RecordFormat.tag(for: attributes[position].type)
            tags[field] = tag.rawValue
            sizes[field] = RecordFormat.payloadSize(of: tag) ?? -1
            owners[field] = position
        }
        var references = [Int](repeating: -1, count: fieldCount)
        for (order, field) in relationshipFields.compactMap({ $0 }).enumerated() {
            tags[field] = RecordFormat.Tag.reference.rawValue
            sizes[field] = 8
            references[field] = order
        }
        referenceAtField = references
        fieldTags = tags
        fieldPayloadSizes = sizes
        attributeAtField = owners
        hasParsedValues = attributes.contains { $0.type == .decimal || $0.type == .url }
    }

    /// The layout of a new store: fields in declaration order, attributes
    /// first, then to-one relationships; storage names are the names.
    convenience init(identityFor attributes: [AttributeDescription], relationships: [RelationshipDescription],
                     indexes: [IndexDescription], entityName: String, entityTag: Int = 0) {
        var next = attributes.count
        let relationshipFields: [Int?] = relationships.map { relationship in
            guard !relationship.isToMany else { return nil }
            defer { next += 1 }
            return next
        }
        self.init(attributes: attributes, relationships: relationships,
                  attributeFields: Array(attributes.indices), relationshipFields: relationshipFields, fieldCount: next,
                  absentValues: attributes.map(\.defaultValue), storageName: entityName,
                  relationshipStorageNames: relationships.map(\.name), indexStorageNames: indexes.map(\.name),
                  entityTag: entityTag)
    }

    /// The layout of a new sub-entity of an entity laid out as `parent`:
    /// the properties it inherits (the first ones) keep the superentity's
    /// fields, so a superentity's property is at the same field in every
    /// record of the family; its own take the fields after the
    /// superentity's last.
    convenience init(identityFor entity: EntityDescription, inheriting parent: EntityDescription, entityTag: Int) {
        let layout = parent.layout
        var next = layout.fieldCount
        var attributeFields = layout.attributeFields
        var absentValues = layout.absentValues
        for attribute in entity.attributes.dropFirst(parent.attributes.count) {
            attributeFields.append(next)
            absentValues.append(attribute.defaultValue)
            next += 1
        }
        var relationshipFields = layout.relationshipFields
        var relationshipStorageNames = layout.relationshipStorageNames
        for relationship in entity.declaredRelationships.dropFirst(parent.declaredRelationships.count) {
            relationshipStorageNames.append(relationship.name)
            guard !relationship.isToMany else {
                relationshipFields.append(nil)
                continue
            }
            relationshipFields.append(next)
            next += 1
        }
        self.init(attributes: entity.attributes, relationships: entity.declaredRelationships,
                  attributeFields: attributeFields, relationshipFields: relationshipFields, fieldCount: next,
                  absentValues: absentValues, storageName: entity.name, relationshipStorageNames: relationshipStorageNames,
                  indexStorageNames: entity.indexes.map(\.name), entityTag: entityTag)
    }

    /// This layout with another ``entityTag``.
    func withEntityTag(_ tag: Int) -> RecordLayout {
        guard tag != entityTag else { return self }
        return RecordLayout(fields: self, entityTag: tag)
    }

    /// A copy of `other` with another tag.
    private init(fields other: RecordLayout, entityTag: Int) {
        attributeFields = other.attributeFields
        relationshipFields = other.relationshipFields
        fieldCount = other.fieldCount
        absentValues = other.absentValues
        storageName = other.storageName
        relationshipStorageNames = other.relationshipStorageNames
        indexStorageNames = other.indexStorageNames
        isIdentity = other.isIdentity
        self.entityTag = entityTag
        keyTag = UInt64(entityTag) << EntityFamily.keyTagShift
        fieldTags = other.fieldTags
        fieldPayloadSizes = other.fieldPayloadSizes
        attributeAtField = other.attributeAtField
        referenceAtField = other.referenceAtField
        hasParsedValues = other.hasParsedValues
    }

    static func == (lhs: RecordLayout, rhs: RecordLayout) -> Bool {
        lhs.attributeFields == rhs.attributeFields && lhs.relationshipFields == rhs.relationshipFields
            && lhs.fieldCount == rhs.fieldCount && lhs.absentValues == rhs.absentValues
            && lhs.storageName == rhs.storageName && lhs.relationshipStorageNames == rhs.relationshipStorageNames
            && lhs.indexStorageNames == rhs.indexStorageNames && lhs.entityTag == rhs.entityTag
    }
}
