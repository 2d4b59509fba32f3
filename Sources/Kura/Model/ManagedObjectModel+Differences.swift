extension ManagedObjectModel {
    /// What differs between the schema a store keeps (`self`) and `model`, one
    /// line per difference, for ``KuraError/modelMismatch(path:differences:)``.
    func differences(from model: ManagedObjectModel) -> [String] {
        var lines: [String] = []
        let stored = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
        let given = Dictionary(uniqueKeysWithValues: model.entities.map { ($0.name, $0) })
        for entity in model.entities where stored[entity.name] == nil {
            lines.append("entity \(entity.name) is in the model but not in the store")
        }
        for entity in entities where given[entity.name] == nil {
            lines.append("entity \(entity.name) is in the store but not in the model")
        }
        for entity in entities {
            guard let other = given[entity.name] else { continue }
            lines += Self.differences(between: entity, and: other)
        }
        if lines.isEmpty && entities.map(\.name) != model.entities.map(\.name) {
            lines.append("the entities are in another order: store \(entities.map(\.name)), model \(model.entities.map(\.name))")
        }
        return lines
    }

    private static func differences(between stored: EntityDescription, and given: EntityDescription) -> [String] {
        var lines: [String] = []
        let name = stored.name
        for attribute in given.attributes where stored.attribute(named: attribute.name) == nil {
            lines.append("\(name).\(attribute.name) is in the model but not in the store")
        }
        for attribute in stored.attributes {
            guard let other = given.attribute(named: attribute.name) else {
                lines.append("\(name).\(attribute.name) is in the store but not in the model")
                continue
            }
            if attribute.type != other.type {
                lines.append("\(name).\(attribute.name) is \(attribute.type.displayName) in the store, \(other.type.displayName) in the model")
            }
            if attribute.isOptional != other.isOptional {
                lines.append("\(name).\(attribute.name) is \(attribute.isOptional ? "optional" : "required") in the store, \(other.isOptional ? "optional" : "required") in the model")
            }
            if attribute.defaultValue != other.defaultValue {
                lines.append("\(name).\(attribute.name) defaults to \(attribute.defaultValue.map { "\($0)" } ?? "nil") in the store, \(other.defaultValue.map { "\($0)" } ?? "nil") in the model")
            }
        }
        if lines.isEmpty && stored.attributes.map(\.name) != given.attributes.map(\.name) {
            lines.append("\(name)'s attributes are in another order")
        }
        for relationship in given.relationships where stored.relationship(named: relationship.name) == nil {
            lines.append("\(name).\(relationship.name) is a relationship in the model but not in the store")
        }
        for relationship in stored.relationships {
            guard let other = given.relationship(named: relationship.name) else {
                lines.append("\(name).\(relationship.name) is a relationship in the store but not in the model")
                continue
            }
            if relationship != other {
                lines.append("\(name).\(relationship.name) is \(relationship) in the store, \(other) in the model")
            }
        }
        if lines.isEmpty && stored.relationships.map(\.name) != given.relationships.map(\.name) {
            lines.append("\(name)'s relationships are in another order")
        }
        let storedIndexes = Dictionary(uniqueKeysWithValues: stored.indexes.map { ($0.name, $0) })
        let givenIndexes = Dictionary(uniqueKeysWithValues: given.indexes.map { ($0.name, $0) })
        for index in given.indexes where storedIndexes[index.name] == nil {
            lines.append("\(name) index \(index.name) is in the model but not in the store")
        }
        for index in stored.indexes {
            guard let other = givenIndexes[index.name] else {
                lines.append("\(name) index \(index.name) is in the store but not in the model")
                continue
            }
            if index != other {
                lines.append("\(name) index \(index.name) is \(index) in the store, \(other) in the model")
            }
        }
        return lines
    }
}
