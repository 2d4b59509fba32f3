import Foundation
import Kura

/// Loads objects written by ``ObjectExport`` (or by hand, in the same
/// form) into a store, through a context and in one save: every object is
/// inserted, its attributes set, its relationships connected, then the
/// context saves once. Any error, in the text or in the save, names the
/// line it comes from, and nothing is written.
///
/// ```swift
/// let summary = try ObjectImport.run(text, format: .jsonl, into: container)
/// summary.insertedCounts   // ["News": 100_000]
/// ```
///
/// References (`"author": "kura://Author/3"`) point to an object of the
/// same import when one has that `objectID`, otherwise to the object of the
/// store with that ID. Imported objects get new IDs; ``Summary/newObjectIDs``
/// maps each `objectID` of the text to the object's new ID.
public enum ObjectImport {
    /// What an import inserted.
    public struct Summary: Sendable {
        /// Objects inserted, by entity.
        public var insertedCounts: [String: Int] = [:]
        /// Each object that had an `objectID` in the text: that ID, and the object's new one.
        public var objectIDs: [(old: ObjectID, new: ObjectID)] = []
        /// The new ID of each object, by the `objectID` it had in the text.
        public var newObjectIDs: [String: ObjectID] {
            Dictionary(objectIDs.map { ($0.old.uriRepresentation, $0.new) }) { first, _ in first }
        }
        /// All objects inserted.
        public var total: Int { insertedCounts.values.reduce(0, +) }
    }

    /// A line of the text that can't be imported, or a save that failed.
    public struct Failure: Error, CustomStringConvertible {
        /// The line the problem is on (for CSV, the line its record starts on); `nil` for the save as a whole.
        public let line: Int?
        public let message: String

        public var description: String { line.map { "line \($0): \(message)" } ?? message }
    }

    /// Imports `text` into the store of `container`: ``run(utf8:format:entityName:into:runsHooks:author:)``
    /// with the text's bytes.
    public static func run(
        _ text: String, format: ExportFormat, entityName: String? = nil, into container: PersistentContainer,
        runsHooks: Bool = false, author: String? = "kura import"
    ) throws(Failure) -> Summary {
        try run(utf8: Array(text.utf8), format: format, entityName: entityName, into: container, runsHooks: runsHooks, author: author)
    }

    /// Imports UTF-8 text (a file's bytes, as they are) into the store of `container`.
    ///
    /// - Parameters:
    ///   - format: JSON Lines or CSV.
    ///   - entityName: The entity of objects without an `objectID`
    ///     (required for them; checked against the IDs of the others).
    ///   - runsHooks: Whether the entity classes' hooks (`awakeFromInsert`,
    ///     `willSave`, `validateFor…`, `didSave`) run; the model's own
    ///     rules hold either way (``Kura/ManagedObjectContext/runsObjectHooks``).
    ///   - author: The author the save records in the store's history.
    /// - Throws: ``Failure``; nothing is written.
    public static func run(
        utf8 bytes: [UInt8], format: ExportFormat, entityName: String? = nil, into container: PersistentContainer,
        runsHooks: Bool = false, author: String? = "kura import"
    ) throws(Failure) -> Summary {
        let context = container.newContext()
        context.runsObjectHooks = runsHooks
        context.transactionAuthor = author
        return try run(utf8: bytes, format: format, entityName: entityName, in: context)
    }

    /// Imports UTF-8 text into the store of `context`, and saves it.
    ///
    /// The context's settings hold: whether hooks run
    /// (``Kura/ManagedObjectContext/runsObjectHooks``), the author the
    /// history records, the merge policy. The imported objects stay
    /// registered in it after the save.
    ///
    /// - Throws: ``Failure``, also when the context already has unsaved
    ///   changes (the import's save would write them too); nothing is
    ///   written, and the context is rolled back to where it was.
    public static func run(
        utf8 bytes: [UInt8], format: ExportFormat, entityName: String? = nil, in context: ManagedObjectContext
    ) throws(Failure) -> Summary {
        guard !context.hasChanges else {
            throw Failure(line: nil, message: "the context has unsaved changes: import into a context of its own")
        }
        var loader = Loader(context: context, entityName: entityName)
        do {
            switch format {
            case .jsonl: try loader.readJSONLines(bytes)
            case .csv: try loader.readCSV(String(decoding: bytes, as: UTF8.self))
            }
            try loader.connect()
        } catch let failure as Failure {
            context.rollback()
            throw failure
        } catch {
            context.rollback()
            throw Failure(line: nil, message: "\(error)")
        }
        do {
            try context.save()
        } catch {
            let line = loader.line(of: error)
            context.rollback()
            throw Failure(line: line, message: "nothing was imported: \(InspectError(error).message)")
        }
        var summary = Summary()
        summary.objectIDs = loader.byOldID.map { ($0.key, $0.value.objectID) }
        for object in loader.inserted { summary.insertedCounts[object.entity.name, default: 0] += 1 }
        return summary
    }
}

/// The state of one import: the objects made so far, and the references
/// to connect once every object exists.
private struct Loader {
    let context: ManagedObjectContext
    let entityName: String?
    var inserted: [ManagedObject] = []
    /// The line each object of ``inserted`` comes from.
    var lineNumbers: [Int] = []
    var byOldID: [ObjectID: ManagedObject] = [:]
    /// Objects of the store that references named, found once each.
    var storedDestinations: [ObjectID: ManagedObject] = [:]
    /// Each entity's properties by name, looked up once per entity.
    var propertyTables: [ObjectIdentifier: [String: Property]] = [:]
    /// The keys of the last line and their properties, by position: lines
    /// written by ``ObjectExport`` repeat them, which saves hashing each key.
    var lastLine: (entity: ObjectIdentifier, keys: [String], properties: [Property])?
    /// To-ones first, then to-manys, so an ordered to-many's order is the text's.
    var references: [(object: ManagedObject, relationship: RelationshipDescription, ids: [String], line: Int)] = []

    /// A property as an import needs it: an attribute's type, or a relationship's position in its entity.
    enum Property {
        case attribute(AttributeType)
        case relationship(Int)
    }

    init(context: ManagedObjectContext, entityName: String?) {
        self.context = context
        self.entityName = entityName
    }

    func fail(_ line: Int, _ message: String) -> ObjectImport.Failure {
        ObjectImport.Failure(line: line, message: message)
    }

    mutating func readJSONLines(_ bytes: [UInt8]) throws {
        var number = 0
        // Lines split as bytes: splitting a String by Characters costs more than parsing it.
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes: line)
            } catch {
                throw fail(number, "not JSON: \(error)")
            }
            guard case .object(let members) = value else { throw fail(number, "expected a JSON object") }
            let id = members.first { $0.key == ObjectExport.idColumn }.flatMap { if case .string(let id) = $0.value { id } else { nil } }
            let (entity, oldID) = try entity(for: id, line: number)
            let object = try insert(entity, oldID: oldID, line: number)
            for (position, member) in members.enumerated() where member.key != ObjectExport.idColumn {
                try set(member.key, at: position, of: object, entity: entity, line: number) { type in
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
        }
    }

    mutating func readCSV(_ text: String) throws {
        var reader = CSVText.Reader(text)
        let header: [String]
        do {
            guard let first = try reader.next() else { return }
            header = first.fields.map { $0 ?? "" }
        } catch {
            throw fail(error.line, error.message)
        }
        while true {
            let record: (fields: [String?], line: Int)
            do {
                guard let next = try reader.next() else { return }
                record = next
            } catch {
                throw fail(error.line, error.message)
            }
            guard record.fields.count == header.count else {
                throw fail(record.line, "\(record.fields.count) fields, but the header has \(header.count)")
            }
            let idPosition = header.firstIndex(of: ObjectExport.idColumn)
            let id = idPosition.flatMap { record.fields[$0] }
            let (entity, oldID) = try entity(for: id, line: record.line)
            let object = try insert(entity, oldID: oldID, line: record.line)
            for (position, key) in header.enumerated() where position != idPosition {
                let field = record.fields[position]
                try set(key, at: position, of: object, entity: entity, line: record.line) { _ in
                    guard let field else { return .value(nil) }
                    return .text(field)
                }
            }
        }
    }

    /// The entity of an object, its ID's or the one named for the import,
    /// and the ID read (of this model's entity).
    func entity(for id: String?, line: Int) throws -> (EntityDescription, ObjectID?) {
        guard let id else {
            guard let entityName else { throw fail(line, "no objectID to tell the entity: name it (--entity ENTITY)") }
            guard let entity = context.model.entity(named: entityName) else {
                throw fail(line, "unknown entity '\(entityName)'")
            }
            return (entity, nil)
        }
        let objectID: ObjectID
        do {
            objectID = try context.model.objectID(forURIRepresentation: id)
        } catch {
            throw fail(line, "objectID '\(id)': \(InspectError(error).message)")
        }
        if let entityName, entityName != objectID.entity.name {
            throw fail(line, "objectID '\(id)' is not a \(entityName)")
        }
        return (objectID.entity, objectID)
    }

    mutating func insert(_ entity: EntityDescription, oldID: ObjectID?, line: Int) throws -> ManagedObject {
        if let oldID, byOldID[oldID] != nil { throw fail(line, "objectID '\(oldID)' appears twice") }
        let object = try context.insertNewObject(forEntityName: entity.name)
        inserted.append(object)
        lineNumbers.append(line)
        if let oldID { byOldID[oldID] = object }
        return object
    }

    enum Input {
        case value(AttributeValue?)
        case text(String)
        case ids([String])
        case wrong(String)
    }

    /// The property called `key` of `entity`, the `position`th key of its line.
    mutating func property(_ key: String, at position: Int?, of entity: EntityDescription, line: Int) throws -> Property {
        guard let position else { return try property(key, of: entity, line: line) }
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
    mutating func property(_ key: String, of entity: EntityDescription, line: Int) throws -> Property {
        if let property = propertyTables[ObjectIdentifier(entity)]?[key] { return property }
        let property: Property
        if let attribute = entity.attribute(named: key) {
            property = .attribute(attribute.type)
        } else if let position = entity.relationships.firstIndex(where: { $0.name == key }) {
            property = .relationship(position)
        } else {
            let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
            throw fail(line, "\(entity.name) has no property '\(key)'\(Suggestion.phrase(for: key, in: names))")
        }
        propertyTables[ObjectIdentifier(entity), default: [:]][key] = property
        return property
    }

    /// Sets property `key` (at `position` in its line, if known) from what `input` gives for its type.
    mutating func set(
        _ key: String, at position: Int? = nil, of object: ManagedObject, entity: EntityDescription, line: Int,
        _ input: (AttributeType?) -> Input
    ) throws {
        switch try property(key, at: position, of: entity, line: line) {
        case .attribute(let type):
            let value: AttributeValue?
            switch input(type) {
            case .value(let given): value = given
            case .text(let text):
                guard let parsed = AttributeValue(text: text, as: type) else {
                    throw fail(line, "\(key): '\(text)' is not a \(type.displayName)")
                }
                value = parsed
            case .ids: throw fail(line, "\(key): expected a \(type.displayName), found a list")
            case .wrong(let what): throw fail(line, "\(key): expected a \(type.displayName), found \(what)")
            }
            do {
                try object.setValue(value, forKey: key)
            } catch {
                throw fail(line, "\(key): \(InspectError(error).message)")
            }
        case .relationship(let position):
            let relationship = entity.relationships[position]
            let ids: [String]
            switch input(nil) {
            case .value(nil): ids = []
            case .text(let text):
                // One ID is the usual case; String.split costs more than a scan.
                ids = text.isEmpty ? [] : text.utf8.contains(0x20) ? text.split(separator: " ").map(String.init) : [text]
            case .ids(let list): ids = list
            case .value, .wrong: throw fail(line, "\(key): expected object IDs such as kura://\(relationship.destinationEntityName)/1")
            }
            guard relationship.isToMany || ids.count <= 1 else {
                throw fail(line, "\(key) is a to-one: one object ID, not \(ids.count)")
            }
            references.append((object, relationship, ids, line))
        }
    }

    /// Connects every reference, to-ones before to-manys.
    mutating func connect() throws {
        for pass in [false, true] {
            for (object, relationship, ids, line) in references where relationship.isToMany == pass {
                var destinations: [ManagedObject] = []
                destinations.reserveCapacity(ids.count)
                for id in ids { destinations.append(try destination(id, of: relationship, line: line)) }
                do {
                    if relationship.isToMany {
                        try object.mutableSetValue(forKey: relationship.name).set(destinations)
                    } else {
                        try object.setObject(destinations.first, forKey: relationship.name)
                    }
                } catch {
                    throw fail(line, "\(relationship.name): \(InspectError(error).message)")
                }
            }
        }
    }

    /// The object `id` names: one of this import, or one already stored.
    mutating func destination(_ id: String, of relationship: RelationshipDescription, line: Int) throws -> ManagedObject {
        let objectID: ObjectID
        do {
            objectID = try context.model.objectID(forURIRepresentation: id)
        } catch {
            throw fail(line, "\(relationship.name): \(InspectError(error).message)")
        }
        guard objectID.entity.name == relationship.destinationEntityName else {
            throw fail(line, "\(relationship.name): \(id) is not a \(relationship.destinationEntityName)")
        }
        if let object = byOldID[objectID] ?? storedDestinations[objectID] { return object }
        do {
            let object = try context.existingObject(with: objectID)
            storedDestinations[objectID] = object
            return object
        } catch {
            throw fail(line, "\(relationship.name): \(id) is neither in the text nor in the store")
        }
    }

    /// The line of the first object a save error names.
    func line(of error: Error) -> Int? {
        let named: ObjectID? = switch error {
        case KuraError.validationFailed(let failures): failures.first?.objectID
        case KuraError.uniqueConstraintViolated(_, _, _, let objectID): objectID
        default: nil
        }
        guard let named, let position = inserted.firstIndex(where: { $0.objectID == named }) else { return nil }
        return lineNumbers[position]
    }
}
