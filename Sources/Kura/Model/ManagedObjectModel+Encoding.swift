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
    }

    struct Attribute: Codable, Equatable {
        var name: String
        var type: AttributeType
        var optional: Bool
        var defaultValue: StoredValue?
    }

    struct Index: Codable, Equatable {
        var name: String
        var attributes: [String]
        var unique: Bool
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
        var resultType: FetchRequest.ResultType
        var propertiesToFetch: [String]
        var includesPendingChanges: Bool
    }

    var entities: [Entity]
    /// Absent in stores written before templates were kept.
    var templates: [Template]?
}

extension FetchSortDescriptor.Comparison: Codable {}
extension FetchRequest.ResultType: Codable {}

extension ManagedObjectModel {
    /// The model as a document.
    var document: ModelDocument {
        ModelDocument(entities: entities.map { entity in
            ModelDocument.Entity(
                name: entity.name,
                attributes: entity.attributes.map {
                    ModelDocument.Attribute(
                        name: $0.name, type: $0.type, optional: $0.isOptional,
                        defaultValue: $0.defaultValue.map(StoredValue.init))
                },
                relationships: entity.relationships.isEmpty ? nil : entity.relationships.map {
                    ModelDocument.Relationship(
                        name: $0.name, destination: $0.destinationEntityName, inverse: $0.inverseName, toMany: $0.isToMany,
                        ordered: $0.isOrdered, optional: $0.isOptional, minimumCount: $0.minimumCount,
                        maximumCount: $0.maximumCount, deleteRule: $0.deleteRule)
                },
                indexes: entity.indexes.map {
                    ModelDocument.Index(name: $0.name, attributes: $0.attributes, unique: $0.isUnique)
                })
        }, templates: fetchRequestTemplatesByName.sorted { $0.key < $1.key }.map { name, request in
            ModelDocument.Template(
                name: name, entity: request.entityName, predicate: request.predicate?.predicateFormat,
                sortDescriptors: request.sortDescriptors.map { .init(key: $0.key, ascending: $0.ascending, comparison: $0.comparison) },
                fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset, resultType: request.resultType,
                propertiesToFetch: request.propertiesToFetch, includesPendingChanges: request.includesPendingChanges)
        })
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
            model = try ManagedObjectModel(entities: document.entities.map { entity in
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
                            name: attribute.name, type: attribute.type, isOptional: attribute.optional, defaultValue: value)
                    },
                    relationships: (entity.relationships ?? []).map {
                        RelationshipDescription(
                            name: $0.name, destinationEntityName: $0.destination, inverseName: $0.inverse, isToMany: $0.toMany,
                            isOrdered: $0.ordered, isOptional: $0.optional, minimumCount: $0.minimumCount,
                            maximumCount: $0.maximumCount, deleteRule: $0.deleteRule)
                    },
                    indexes: entity.indexes.map { IndexDescription($0.attributes, isUnique: $0.unique, name: $0.name) })
            })
        } catch let error as KuraError {
            throw ModelDecodingError(reason: "the stored model is invalid: \(error)")
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
                try model.setFetchRequestTemplate(request, forName: template.name)
            } catch {
                throw ModelDecodingError(reason: "the stored template '\(template.name)' is invalid: \(error)")
            }
        }
        return model
    }
}

struct ModelDecodingError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
