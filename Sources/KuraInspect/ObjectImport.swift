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
        /// The new ID of each object, by the `objectID` it had in the text.
        public var newObjectIDs: [String: ObjectID] = [:]
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

    /// Imports `text` into the store of `container`.
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
        _ text: String, format: ExportFormat, entityName: String? = nil, into container: PersistentContainer,
        runsHooks: Bool = false, author: String? = "kura import"
    ) throws(Failure) -> Summary {
        let context = container.newContext()
        context.runsObjectHooks = runsHooks
        context.transactionAuthor = author
        var loader = Loader(context: context, entityName: entityName)
        do {
            switch format {
            case .jsonl: try loader.readJSONLines(text)
            case .csv: try loader.readCSV(text)
            }
            try loader.connect()
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(line: nil, message: "\(error)")
        }
        do {
            try context.save()
        } catch {
            throw Failure(line: loader.line(of: error), message: "nothing was imported: \(InspectError(error).message)")
        }
        var summary = Summary()
        for (id, object) in loader.byOldID { summary.newObjectIDs[id] = object.objectID }
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
    var byOldID: [String: ManagedObject] = [:]
    var lines: [ObjectIdentifier: Int] = [:]
    /// To-ones first, then to-manys, so an ordered to-many's order is the text's.
    var references: [(object: ManagedObject, relationship: RelationshipDescription, ids: [String], line: Int)] = []

    init(context: ManagedObjectContext, entityName: String?) {
        self.context = context
        self.entityName = entityName
    }

    func fail(_ line: Int, _ message: String) -> ObjectImport.Failure {
        ObjectImport.Failure(line: line, message: message)
    }

    mutating func readJSONLines(_ text: String) throws {
        var number = 0
        // Lines split as bytes: splitting a String by Characters costs more than parsing it.
        for line in Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes: Array(line))
            } catch {
                throw fail(number, "not JSON: \(error)")
            }
            guard case .object(let members) = value else { throw fail(number, "expected a JSON object") }
            let id = members.first { $0.key == ObjectExport.idColumn }.flatMap { if case .string(let id) = $0.value { id } else { nil } }
            let entity = try entity(for: id, line: number)
            let object = try insert(entity, id: id, line: number)
            for member in members where member.key != ObjectExport.idColumn {
                try set(member.key, of: object, entity: entity, line: number) { type in
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
            let entity = try entity(for: id, line: record.line)
            let object = try insert(entity, id: id, line: record.line)
            for (position, key) in header.enumerated() where position != idPosition {
                let field = record.fields[position]
                try set(key, of: object, entity: entity, line: record.line) { _ in
                    guard let field else { return .value(nil) }
                    return .text(field)
                }
            }
        }
    }

    /// The entity of an object: its ID's, or the one named for the import.
    func entity(for id: String?, line: Int) throws -> EntityDescription {
        var name = entityName
        if let id {
            let objectID: ObjectID
            do {
                objectID = try context.model.objectID(forURIRepresentation: id)
            } catch {
                throw fail(line, "objectID '\(id)': \(InspectError(error).message)")
            }
            if let entityName, entityName != objectID.entity.name {
                throw fail(line, "objectID '\(id)' is not a \(entityName)")
            }
            name = objectID.entity.name
        }
        guard let name else { throw fail(line, "no objectID to tell the entity: name it (--entity ENTITY)") }
        guard let entity = context.model.entity(named: name) else {
            throw fail(line, "unknown entity '\(name)'")
        }
        return entity
    }

    mutating func insert(_ entity: EntityDescription, id: String?, line: Int) throws -> ManagedObject {
        if let id, byOldID[id] != nil { throw fail(line, "objectID '\(id)' appears twice") }
        let object = try context.insertNewObject(forEntityName: entity.name)
        inserted.append(object)
        lines[ObjectIdentifier(object)] = line
        if let id { byOldID[id] = object }
        return object
    }

    enum Input {
        case value(AttributeValue?)
        case text(String)
        case ids([String])
        case wrong(String)
    }

    /// Sets property `key` from what `input` gives for its type.
    mutating func set(
        _ key: String, of object: ManagedObject, entity: EntityDescription, line: Int, _ input: (AttributeType?) -> Input
    ) throws {
        if let attribute = entity.attribute(named: key) {
            let value: AttributeValue?
            switch input(attribute.type) {
            case .value(let given): value = given
            case .text(let text):
                guard let parsed = AttributeValue(text: text, as: attribute.type) else {
                    throw fail(line, "\(key): '\(text)' is not a \(attribute.type.displayName)")
                }
                value = parsed
            case .ids: throw fail(line, "\(key): expected a \(attribute.type.displayName), found a list")
            case .wrong(let what): throw fail(line, "\(key): expected a \(attribute.type.displayName), found \(what)")
            }
            do {
                try object.setValue(value, forKey: key)
            } catch {
                throw fail(line, "\(key): \(InspectError(error).message)")
            }
        } else if let relationship = entity.relationships.first(where: { $0.name == key }) {
            let ids: [String]
            switch input(nil) {
            case .value(nil): ids = []
            case .text(let text): ids = text.split(separator: " ").map(String.init)
            case .ids(let list): ids = list
            case .value, .wrong: throw fail(line, "\(key): expected object IDs such as kura://\(relationship.destinationEntityName)/1")
            }
            guard relationship.isToMany || ids.count <= 1 else {
                throw fail(line, "\(key) is a to-one: one object ID, not \(ids.count)")
            }
            references.append((object, relationship, ids, line))
        } else {
            let names = entity.attributes.map(\.name) + entity.relationships.map(\.name)
            throw fail(line, "\(entity.name) has no property '\(key)'\(Suggestion.phrase(for: key, in: names))")
        }
    }

    /// Connects every reference, to-ones before to-manys.
    func connect() throws {
        for pass in [false, true] {
            for (object, relationship, ids, line) in references where relationship.isToMany == pass {
                let destinations = try ids.map { id in try destination(id, of: relationship, line: line) }
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
    func destination(_ id: String, of relationship: RelationshipDescription, line: Int) throws -> ManagedObject {
        if let object = byOldID[id] {
            guard object.entity.name == relationship.destinationEntityName else {
                throw fail(line, "\(relationship.name): \(id) is not a \(relationship.destinationEntityName)")
            }
            return object
        }
        do {
            let objectID = try context.model.objectID(forURIRepresentation: id)
            guard objectID.entity.name == relationship.destinationEntityName else {
                throw fail(line, "\(relationship.name): \(id) is not a \(relationship.destinationEntityName)")
            }
            return try context.existingObject(with: objectID)
        } catch let failure as ObjectImport.Failure {
            throw failure
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
        guard let named else { return nil }
        return inserted.first { $0.objectID == named }.flatMap { lines[ObjectIdentifier($0)] }
    }
}
