import Foundation
import Kura

/// One object of an import's text, read and converted but not yet inserted:
/// its entity, the `objectID` it had, its attribute values in the entity's
/// types, and the object IDs its relationships name.
///
/// Records are made without a context (``ImportRecordReader``), so an
/// import reads them on one thread while another inserts the ones before.
struct ImportRecord: Sendable {
    let line: Int
    let entity: EntityDescription
    let oldID: ObjectID?
    var attributes: [(key: String, value: AttributeValue?)] = []
    /// Each relationship named, by its position in the entity, with the IDs given.
    var relationships: [(position: Int, ids: [String])] = []
}

/// Turns lines of an import's text into ``ImportRecord``s: finds each
/// object's entity and each key's property, and converts values to their
/// attribute's type. Every problem is an ``ObjectImport/Failure`` naming
/// its line.
struct ImportRecordReader: Sendable {
    let model: ManagedObjectModel
    /// The entity of objects without an `objectID`, if the import names one.
    let entityName: String?
    /// Each entity's properties by name, looked up once per entity.
    private var propertyTables: [ObjectIdentifier: [String: Property]] = [:]
    /// The keys of the last line and their properties, by position: lines
    /// written by ``ObjectExport`` repeat them, which saves hashing each key.
    private var lastLine: (entity: ObjectIdentifier, keys: [String], properties: [Property])?

    /// A property as an import needs it: an attribute's type, or a
    /// relationship's position in its entity and whether it is a to-many.
    enum Property {
        case attribute(AttributeType, AttributeEncoding)
        case relationship(Int, isToMany: Bool)
    }

    /// A value as the text gives it, before its attribute's type is known.
    enum Input {
        case value(AttributeValue?)
        case text(String)
        case ids([String])
        case wrong(String)
    }

    init(model: ManagedObjectModel, entityName: String?) {
        self.model = model
        self.entityName = entityName
    }

    func fail(_ line: Int, _ message: String) -> ObjectImport.Failure {
        ObjectImport.Failure(line: line, message: message)
    }

    /// The record of one JSON line (`number` counts from 1), or `nil` for a blank line.
    mutating func record(jsonLine line: ArraySlice<UInt8>, number: Int) throws(ObjectImport.Failure) -> ImportRecord? {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return nil }
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes: line)
        } catch {
            throw fail(number, "not JSON: \(error)")
        }
        guard case .object(let members) = value else { throw fail(number, "expected a JSON object") }
        let id = members.first { $0.key == ObjectExport.idColumn }.flatMap { if case .string(let id) = $0.value { id } else { nil } }
        var record = try newRecord(id: id, line: number)
        for (position, member) in members.enumerated() where member.key != ObjectExport.idColumn {
            try add(member.key, at: position, to: &record) { type in
                switch member.value {
                case .null: return .value(nil)
                case .bool(let flag): return type == .bool ? .value(.bool(flag)) : .wrong("true or false")
                case .number(let text), .string(let text): return .text(text)
                case .array(let elements):
                    let ids = elements.compactMap { if case .string(let id) = $0 { id } else { nil } }
                    return ids.count == elements.count ? .ids(ids) : .wrong("a list of object IDs")
                case .object: return .wrong("an object")
                }
            }
        }
        return record
    }

    /// The record of one CSV record, its fields named by `header`.
    mutating func record(
        csvFields fields: [String?], header: [String], line: Int
    ) throws(ObjectImport.Failure) -> ImportRecord {
        guard fields.count == header.count else {
            throw fail(line, "\(fields.count) fields, but the header has \(header.count)")
        }
        let idPosition = header.firstIndex(of: ObjectExport.idColumn)
        var record = try newRecord(id: idPosition.flatMap { fields[$0] }, line: line)
        for (position, key) in header.enumerated() where position != idPosition {
            let field = fields[position]
            try add(key, at: position, to: &record) { _ in
                guard let field else { return .value(nil) }
                return .text(field)
            }
        }
        return record
    }

    /// An empty record of the object with `id` (or of the entity named for the import).
    private func newRecord(id: String?, line: Int) throws(ObjectImport.Failure) -> ImportRecord {
        guard let id else {
            guard let entityName else { throw fail(line, "no objectID to tell the entity: name it (--entity ENTITY)") }
            guard let entity = model.entity(named: entityName) else {
                throw fail(line, "unknown entity '\(entityName)'")
            }
            guard !entity.isAbstract else { throw fail(line, "\(entityName) is abstract: name one of its sub-entities") }
            return ImportRecord(line: line, entity: entity, oldID: nil)
        }
        let objectID: ObjectID
        do {
            objectID = try model.objectID(forURIRepresentation: id)
        } catch {
            throw fail(line, "objectID '\(id)': \(InspectError(error).message)")
        }
        if let entityName, entityName != objectID.entity.name {
            throw fail(line, "objectID '\(id)' is not a \(entityName)")
        }
        guard !objectID.entity.isAbstract else {
            throw fail(line, "objectID '\(id)' names \(objectID.entity.name), which is abstract: name one of its sub-entities")
        }
        return ImportRecord(line: line, entity: objectID.entity, oldID: objectID)
    }

    /// Adds property `key` (the `position`th key of its line) from what `input` gives for its type.
    private mutating func add(
        _ key: String, at position: Int, to record: inout ImportRecord, _ input: (AttributeType?) -> Input
    ) throws(ObjectImport.Failure) {
        let line = record.line
        switch try property(key, at: position, of: record.entity, line: line) {
        case .attribute(let type, let encoding):
            switch input(type) {
            case .value(let given): record.attributes.append((key, given))
            case .text(let text) where encoding == .json:
                // A Codable value's JSON, as exported: its bytes as they were.
                guard (try? JSONValue.parse(text)) != nil else { throw fail(line, "\(key): '\(text)' is not JSON") }
                record.attributes.append((key, .data(Data(text.utf8))))
            case .text(let text):
                guard let parsed = AttributeValue(text: text, as: type) else {
                    throw fail(line, "\(key): '\(text)' is not a \(type.displayName)")
                }
                record.attributes.append((key, parsed))
            case .ids: throw fail(line, "\(key): expected a \(type.displayName), found a list")
            case .wrong(let what): throw fail(line, "\(key): expected a \(type.displayName), found \(what)")
            }
        case .relationship(let relationshipPosition, let isToMany):
            let ids: [String]
            switch input(nil) {
            case .value(nil): ids = []
            case .text(let text):
                // One ID is the usual case; String.split costs more than a scan.
                ids = text.isEmpty ? [] : text.utf8.contains(0x20) ? text.split(separator: " ").map(String.init) : [text]
            case .ids(let list): ids = list
            case .value, .wrong:
                let destination = record.entity.relationships[relationshipPosition].destinationEntityName
                throw fail(line, "\(key): expected object IDs such as kura://\(destination)/1")
            }
            guard isToMany || ids.count <= 1 else {
                throw fail(line, "\(key) is a to-one: one object ID, not \(ids.count)")
            }
            record.relationships.append((relationshipPosition, ids))
        }
    }

    /// The property called `key` of `entity`, the `position`th key of its line.
    private mutating func property(
        _ key: String, at position: Int, of entity: EntityDescription, line: Int
    ) throws(ObjectImport.Failure) -> Property {
        if let lastLine, lastLine.entity == ObjectIdentifier(entity), position < lastLine.keys.count, lastLine.keys[position] == key {
            return lastLine.properties[position]
        }
        let property = try property(key, of: entity, line: line)
        if lastLine?.entity != ObjectIdentifier(entity) { lastLine = (ObjectIdentifier(entity), [], []) }
        while lastLine!.keys.count <= position {
            lastLine!.keys.append("")
            lastLine!.properties.append(property)
        }
        lastLine!.keys[position] = key
        lastLine!.properties[position] = property
        return property
    }

    /// The property called `key` of `entity`.
    private mutating func property(_ key: String, of entity: EntityDescription, line: Int) throws(ObjectImport.Failure) -> Property {
        if let property = propertyTables[ObjectIdentifier(entity)]?[key] { return property }
        let property: Property
        if let attribute = entity.attribute(named: key) {
            property = .attribute(attribute.type, attribute.encoding)
        } else if let position = entity.relationships.firstIndex(where: { $0.name == key }) {
            property = .relationship(position, isToMany: entity.relationships[position].isToMany)
        } else {
            let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
            throw fail(line, "\(entity.name) has no property '\(key)'\(Suggestion.phrase(for: key, in: names))")
        }
        propertyTables[ObjectIdentifier(entity), default: [:]][key] = property
        return property
    }
}
