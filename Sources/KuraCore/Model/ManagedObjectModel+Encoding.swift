import Foundation

/// The model as a store keeps it: JSON with sorted keys, so a person (or the
/// inspect tool) can read it and the same model always gives the same bytes.
struct ModelDocument: Codable, Equatable {
    struct Entity: Codable, Equatable {
        var name: String
        var attributes: [Attribute]
        /// Absent in stores written before relationships existed.
        var relationships: [Relationship]?
        var indexes: [Index]
        /// The name in database names and counters when it isn't `name`
        /// (the entity was renamed).
        var storedAs: String?
        /// Fields a record has, removed properties' included; absent before
        /// format 3 (then: attributes and to-ones, in order).
        var fieldCount: Int?
        /// The superentity's name, for a sub-entity (format 4).
        var superentity: String?
        /// True for an abstract entity; absent when false.
        var abstract: Bool?
        /// The entity's number in its family, which its primary keys carry
        /// (see ``EntityFamily``); absent when 0.
        var tag: Int?
    }

    struct Relationship: Codable, Equatable {
        var name: String
        var destination: String
        var inverse: String?
        var toMany: Bool
        var ordered: Bool
        var optional: Bool
        var minimumCount: Int
        var maximumCount: Int?
        var deleteRule: RelationshipDescription.DeleteRule
        /// A to-one's record field; absent before format 3.
        var field: Int?
        var storedAs: String?
    }

    struct Attribute: Codable, Equatable {
        var name: String
        var type: AttributeType
        var optional: Bool
        var defaultValue: StoredValue?
        /// The record field; absent before format 3 (then: the position).
        var field: Int?
        /// What a record written before the attribute existed reads as, when
        /// not nil (format 3; before it, the default).
        var absentValue: StoredValue?
        /// `json` for a Codable value's JSON; absent for plain values.
        var encoding: AttributeEncoding?
        /// A list's elements' type; absent for other attributes.
        var elementType: AttributeType?
    }

    struct Index: Codable, Equatable {
        var name: String
        var attributes: [String]
        var unique: Bool
        var storedAs: String?
    }

    struct Template: Codable, Equatable {
        struct Sort: Codable, Equatable {
            var key: String
            var ascending: Bool
            var comparison: FetchSortDescriptor.Comparison
        }

        var name: String
        var entity: String
        var predicate: String?
        var sortDescriptors: [Sort]
        var fetchLimit: Int
        var fetchOffset: Int
        var resultType: FetchResultType
        var propertiesToFetch: [String]
        var includesPendingChanges: Bool
        /// Absent when true (the default), as in stores written before it existed.
        var includesSubentities: Bool?
    }

    var entities: [Entity]
    /// Absent in stores written before templates were kept.
    var templates: [Template]?
    /// The model's ``ManagedObjectModel/versionIdentifier``.
    var version: String?
}

extension FetchSortDescriptor.Comparison: Codable {}
extension FetchResultType: Codable {}

extension ManagedObjectModel {
    /// The model as a document.
    var document: ModelDocument {
        ModelDocument(entities: entities.map { entity in
            let layout = entity.layout
            func stored(_ storageName: String, _ name: String) -> String? { storageName == name ? nil : storageName }
            return ModelDocument.Entity(
                name: entity.name,
                attributes: entity.attributes.enumerated().map { position, attribute in
                    ModelDocument.Attribute(
                        name: attribute.name, type: attribute.type, optional: attribute.isOptional,
                        defaultValue: attribute.defaultValue.map(StoredValue.init), field: layout.attributeFields[position],
                        absentValue: layout.absentValues[position].map(StoredValue.init),
                        encoding: attribute.encoding == .plain ? nil : attribute.encoding, elementType: attribute.elementType)
                },
                relationships: entity.relationships.isEmpty ? nil : entity.relationships.enumerated().map { number, relationship in
                    ModelDocument.Relationship(
                        name: relationship.name, destination: relationship.destinationEntityName,
                        inverse: relationship.inverseName, toMany: relationship.isToMany, ordered: relationship.isOrdered,
                        optional: relationship.isOptional, minimumCount: relationship.minimumCount,
                        maximumCount: relationship.maximumCount, deleteRule: relationship.deleteRule,
                        field: layout.relationshipFields[number],
                        storedAs: stored(layout.relationshipStorageNames[number], relationship.name))
                },
                indexes: entity.indexes.enumerated().map { position, index in
                    ModelDocument.Index(name: index.name, attributes: index.attributes, unique: index.isUnique,
                                        storedAs: stored(layout.indexStorageNames[position], index.name))
                },
                storedAs: stored(layout.storageName, entity.name), fieldCount: layout.fieldCount,
                superentity: entity.superentity?.name, abstract: entity.isAbstract ? true : nil,
                tag: layout.entityTag == 0 ? nil : layout.entityTag)
        }, templates: fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map { name, request in
            ModelDocument.Template(
                name: name, entity: request.entityName, predicate: request.predicate?.predicateFormat,
                sortDescriptors: request.sortDescriptors.map { .init(key: $0.key, ascending: $0.ascending, comparison: $0.comparison) },
                fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset, resultType: request.resultType,
                propertiesToFetch: request.propertiesToFetch, includesPendingChanges: request.includesPendingChanges,
                includesSubentities: request.includesSubentities ? nil : false)
        }, version: versionIdentifier)
    }

    /// The model as the bytes a store keeps.
    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(document))
    }

    /// Rebuilds a model from stored bytes. Entities get no Swift class: their
    /// objects are plain ``ManagedObject``s.
    ///
    /// - Throws: a description of what is wrong, for ``KuraError/corruptStore(path:reason:)``.
    static func decode(_ bytes: [UInt8]) throws -> ManagedObjectModel {
        let document: ModelDocument
        do {
            document = try JSONDecoder().decode(ModelDocument.self, from: Data(bytes))
        } catch {
            throw ModelDecodingError(reason: "the stored model is not valid JSON of a model (\(error))")
        }
        let model: ManagedObjectModel
        do {
            model = try ManagedObjectModel(versionIdentifier: document.version, entities: document.entities.map { entity in
                try EntityDescription(
                    name: entity.name,
                    attributes: try entity.attributes.map { attribute in
                        var value: AttributeValue?
                        if let stored = attribute.defaultValue {
                            guard let parsed = stored.value else {
                                throw ModelDecodingError(reason: "the default of \(entity.name).\(attribute.name) does not parse")
                            }
                            value = parsed
                        }
                        return AttributeDescription(
                            name: attribute.name, type: attribute.type, isOptional: attribute.optional, defaultValue: value,
                            encoding: attribute.encoding ?? .plain, elementType: attribute.elementType)
                    },
                    relationships: (entity.relationships ?? []).map {
                        RelationshipDescription(
                            name: $0.name, destinationEntityName: $0.destination, inverseName: $0.inverse, isToMany: $0.toMany,
                            isOrdered: $0.ordered, isOptional: $0.optional, minimumCount: $0.minimumCount,
                            maximumCount: $0.maximumCount, deleteRule: $0.deleteRule)
                    },
                    indexes: entity.indexes.map { IndexDescription($0.attributes, isUnique: $0.unique, name: $0.name) },
                    managedObjectClass: ManagedObject.self, inverseResolvers: [:],
                    superentityName: entity.superentity, isAbstract: entity.abstract ?? false)
            })
        } catch let error as KuraError {
            throw ModelDecodingError(reason: "the stored model is invalid: \(error)")
        }
        let layouts = try zip(document.entities, model.entities).map { try RecordLayout(stored: $0, of: $1) }
        guard Set(layouts.map(\.storageName)).count == layouts.count else {
            throw ModelDecodingError(reason: "two stored entities share their databases")
        }
        try checkFamilies(of: model, laidOutAs: layouts)
        do {
            try model.bindLayouts(layouts)
        } catch {
            throw ModelDecodingError(reason: "\(error)")
        }
        for template in document.templates ?? [] {
            do {
                var request = FetchRequest(entityName: template.entity)
                request.predicate = try template.predicate.map { try FetchPredicate(format: $0) }
                request.sortDescriptors = template.sortDescriptors.map {
                    FetchSortDescriptor(key: $0.key, ascending: $0.ascending, comparison: $0.comparison)
                }
                request.fetchLimit = template.fetchLimit
                request.fetchOffset = template.fetchOffset
                request.resultType = template.resultType
                request.propertiesToFetch = template.propertiesToFetch
                request.includesPendingChanges = template.includesPendingChanges
                request.includesSubentities = template.includesSubentities ?? true
                try model.setFetchRequestTemplate(request, forName: template.name)
            } catch {
                throw ModelDecodingError(reason: "the stored template '\(template.name)' is invalid: \(error)")
            }
        }
        return model
    }
}

extension ManagedObjectModel {
    /// Checks what a family's stored layouts must agree on: each member's
    /// tag is its own, in range, and a sub-entity's inherited properties
    /// are at its superentity's fields (see ``EntityFamily``).
    ///
    /// - Throws: ``ModelDecodingError``.
    static func checkFamilies(of model: ManagedObjectModel, laidOutAs layouts: [RecordLayout]) throws {
        var layoutOf: [ObjectIdentifier: RecordLayout] = [:]
        for (entity, layout) in zip(model.entities, layouts) { layoutOf[ObjectIdentifier(entity)] = layout }
        var tags: [ObjectIdentifier: Set<Int>] = [:]
        for (entity, layout) in zip(model.entities, layouts) {
            guard let family = entity.family else {
                guard layout.entityTag == 0 else { throw ModelDecodingError(reason: "\(entity.name) has a tag but no family") }
                continue
            }
            let root = ObjectIdentifier(family.members[0].entity)
            guard tags[root, default: []].insert(layout.entityTag).inserted else {
                throw ModelDecodingError(reason: "two entities of \(family.members[0].entity.name)'s family share a tag")
            }
            guard let parent = entity.superentity, let parentLayout = layoutOf[ObjectIdentifier(parent)] else { continue }
            guard layout.attributeFields.prefix(parent.attributes.count).elementsEqual(parentLayout.attributeFields),
                  layout.relationshipFields.prefix(parent.declaredRelationships.count).elementsEqual(parentLayout.relationshipFields)
            else {
                throw ModelDecodingError(reason: "the stored fields of \(entity.name) differ from its superentity \(parent.name)'s")
            }
        }
    }
}

struct ModelDecodingError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

extension RecordLayout {
    /// The layout a stored entity describes. A document written before
    /// format 3 has no field numbers: then fields follow the declaration
    /// order, attributes first, and absent values are the defaults.
    ///
    /// - Throws: ``ModelDecodingError`` when two properties share a field or
    ///   a field is out of range.
    convenience init(stored: ModelDocument.Entity, of entity: EntityDescription) throws {
        let identity = RecordLayout(identityFor: entity.attributes, relationships: entity.relationships,
                                    indexes: entity.indexes, entityName: entity.name)
        let relationships = stored.relationships ?? []
        let attributeFields = zip(stored.attributes, identity.attributeFields).map { $0.field ?? $1 }
        let relationshipFields = zip(relationships, identity.relationshipFields).map { $0.toMany ? nil : ($0.field ?? $1) }
        let fieldCount = stored.fieldCount ?? identity.fieldCount
        // Checked before any range is made of it: `0..<n` stops the program for a negative n.
        guard fieldCount >= 0, fieldCount <= Int(UInt16.max) else {
            throw ModelDecodingError(reason: "the stored field count of \(entity.name) is out of range")
        }
        // Checked before it is shifted into a key tag (a negative one would trap).
        guard (0...EntityFamily.maximumTag).contains(stored.tag ?? 0) else {
            throw ModelDecodingError(reason: "the stored tag of \(entity.name) is out of range")
        }
        var used = Set<Int>()
        for field in attributeFields + relationshipFields.compactMap({ $0 }) {
            guard field >= 0, field < fieldCount, used.insert(field).inserted else {
                throw ModelDecodingError(reason: "the stored fields of \(entity.name) overlap or are out of range")
            }
        }
        let absentValues = try zip(stored.attributes, entity.attributes).map { storedAttribute, attribute -> AttributeValue? in
            guard storedAttribute.field != nil else { return attribute.defaultValue }
            guard let absent = storedAttribute.absentValue else { return nil }
            guard let value = absent.value?.converted(to: attribute.type) else {
                throw ModelDecodingError(reason: "the absent value of \(entity.name).\(attribute.name) does not parse")
            }
            return value
        }
        self.init(attributes: entity.attributes, relationships: entity.relationships,
                  attributeFields: attributeFields, relationshipFields: relationshipFields, fieldCount: fieldCount,
                  absentValues: absentValues, storageName: stored.storedAs ?? stored.name,
                  relationshipStorageNames: relationships.map { $0.storedAs ?? $0.name },
                  indexStorageNames: stored.indexes.map { $0.storedAs ?? $0.name }, entityTag: stored.tag ?? 0)
    }
}
