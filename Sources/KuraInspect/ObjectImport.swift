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
    ///   - bytes: The file's bytes.
    ///   - format: JSON Lines or CSV.
    ///   - entityName: The entity of objects without an `objectID`
    ///     (required for them; checked against the IDs of the others).
    ///   - container: The store to import into, through a new context.
    ///   - runsHooks: Whether the entity classes' hooks (`awakeFromInsert`,
    ///     `willSave`, `validateFor…`, `didSave`) run; the model's own
    ///     rules hold either way (`ManagedObjectContext.runsObjectHooks`).
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
    /// (`ManagedObjectContext.runsObjectHooks`), the author the
    /// history records, the merge policy. The imported objects stay
    /// registered in it after the save.
    ///
    /// - Throws: ``Failure``, also when the context already has unsaved
    ///   changes (the import's save would write them too), and when the
    ///   text is not valid UTF-8 (naming the line and column: bytes are
    ///   never replaced); nothing is written, and the context is rolled
    ///   back to where it was.
    public static func run(
        utf8 bytes: [UInt8], format: ExportFormat, entityName: String? = nil, in context: ManagedObjectContext
    ) throws(Failure) -> Summary {
        guard !context.hasChanges else {
            throw Failure(line: nil, message: "the context has unsaved changes: import into a context of its own")
        }
        if let invalid = UTF8Validation.firstInvalid(in: bytes) {
            throw Failure(line: invalid.line, message: "column \(invalid.column): the byte 0x\(String(invalid.byte, radix: 16, uppercase: true)) "
                + "is not UTF-8 (import reads UTF-8 text and changes no byte); nothing was imported")
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
            let (line, otherLine) = loader.lines(of: error)
            context.rollback()
            let also = otherLine.map { ", from line \($0)" } ?? ""
            throw Failure(line: line, message: "nothing was imported: \(InspectError(error).message)\(also)")
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
    /// Reads and converts the text's records (on a thread of its own for JSON lines).
    var reader: ImportRecordReader
    var inserted: [ManagedObject] = []
    /// The line each object of ``inserted`` comes from.
    var lineNumbers: [Int] = []
    var byOldID: [ObjectID: ManagedObject] = [:]
    /// Objects of the store that references named, found once each.
    var storedDestinations: [ObjectID: ManagedObject] = [:]
    /// Each reference's destination by the text of its ID: a text names the
    /// same few destinations many times (`kura://Tag/3`), and finding one by
    /// its text costs less than reading the ID again.
    var destinationsByText: [String: ManagedObject] = [:]
    /// To-ones first, then to-manys, so an ordered to-many's order is the text's.
    /// Each by its relationship's position in the object's entity (a
    /// position, not the description: copying one per reference costs more).
    var references: [(object: ManagedObject, relationship: Int, ids: [String], line: Int)] = []

    init(context: ManagedObjectContext, entityName: String?) {
        self.context = context
        self.reader = ImportRecordReader(model: context.model, entityName: entityName)
    }

    func fail(_ line: Int, _ message: String) -> ObjectImport.Failure {
        ObjectImport.Failure(line: line, message: message)
    }

    mutating func readJSONLines(_ bytes: [UInt8]) throws {
        try JSONLinesReading.forEachRecord(in: bytes, reader: reader) { record in try add(record) }
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
            try add(self.reader.record(csvFields: record.fields, header: header, line: record.line))
        }
    }

    /// Inserts the object of `record`, sets its attributes, and keeps its
    /// references for ``connect()``.
    mutating func add(_ record: ImportRecord) throws {
        if let oldID = record.oldID, byOldID[oldID] != nil { throw fail(record.line, "objectID '\(oldID)' appears twice") }
        let object = record.entity.managedObjectClass.init(entity: record.entity, insertInto: context)
        inserted.append(object)
        lineNumbers.append(record.line)
        if let oldID = record.oldID { byOldID[oldID] = object }
        for (key, value) in record.attributes {
            do {
                try object.setValue(value, forKey: key)
            } catch {
                throw fail(record.line, "\(key): \(InspectError(error).message)")
            }
        }
        for (position, ids) in record.relationships {
            references.append((object, position, ids, record.line))
        }
    }

    /// Connects every reference, to-ones before to-manys.
    mutating func connect() throws {
        // The last entity's relationships, described once per run of objects
        // of one entity (the list is made on each call).
        var described: (entity: EntityDescription, relationships: [RelationshipDescription])?
        for pass in [false, true] {
            for (object, position, ids, line) in references {
                if described?.entity !== object.entity { described = (object.entity, object.entity.relationships) }
                let relationship = described!.relationships[position]
                guard relationship.isToMany == pass else { continue }
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
        if let known = destinationsByText[id], known.entity.name == relationship.destinationEntityName { return known }
        let found = try findDestination(id, of: relationship, line: line)
        destinationsByText[id] = found
        return found
    }

    /// The object `id` names for `relationship`: one of this import's, or one of the store's.
    mutating func findDestination(_ id: String, of relationship: RelationshipDescription, line: Int) throws -> ManagedObject {
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

    /// The line of the object a save error is about, and for a unique
    /// index clash between two objects of the text, the line of the first.
    ///
    /// New objects have no IDs when the save fails, so a clash names its
    /// values, not its object: the objects of the text holding those values
    /// are found by comparing them (only after a failed save; a successful
    /// import pays nothing for this).
    func lines(of error: Error) -> (line: Int?, otherLine: Int?) {
        guard let error = error as? KuraError else { return (nil, nil) }
        switch error.code {
        case .validationFailed:
            return (error.validationFailures.first.flatMap { line(of: $0.objectID) }, nil)
        case .uniqueConstraintViolated where !error.objectIDs.isEmpty:
            return (line(of: error.objectIDs[0]), nil)
        case .uniqueConstraintViolated:
            let values = error.values
            guard let entity = error.entity.flatMap(context.model.entity(named:)),
                  let index = entity.indexes.first(where: { $0.name == error.index }) else { return (nil, nil) }
            var holders: [Int] = []
            for (position, object) in inserted.enumerated() where object.entity === entity {
                let held = index.attributes.map { key in ((try? object.value(forKey: key)) ?? nil).map { "\($0)" } ?? "nil" }
                if held == values { holders.append(lineNumbers[position]) }
                if holders.count == 2 { break }
            }
            // Two objects of the text: the second one clashed; one: it clashed with a stored object.
            return holders.count == 2 ? (holders[1], holders[0]) : (holders.first, nil)
        default:
            return (nil, nil)
        }
    }

    /// The line the object with `objectID` comes from, if it is one of the text's.
    private func line(of objectID: ObjectID) -> Int? {
        inserted.firstIndex { $0.objectID == objectID }.map { lineNumbers[$0] }
    }
}
