import Foundation
import Kura

/// The formats of `kura export` and `kura import`.
public enum ExportFormat: String, Sendable, Equatable, CaseIterable {
    /// JSON Lines: one object per line; may hold several entities.
    case jsonl
    /// CSV with a header row: one entity.
    case csv
}

/// Objects as rows: the columns `kura` prints, exports and imports.
///
/// An object's row is its ID (`objectID`, such as `kura://News/42`), its
/// attributes in the model's order, then its relationships: a to-one as its
/// destination's ID, a to-many as its members' IDs (in order for an ordered
/// one). Every value is written losslessly (`AttributeValue.text`):
/// dates to the last bit of their seconds, decimals in full, data as base64.
public enum ObjectExport {
    /// The name of the column holding each object's ID.
    public static let idColumn = "objectID"

    /// The columns of `entity`'s rows.
    static func columns(of entity: EntityDescription) throws -> [String] {
        let properties = entity.attributes.map(\.name) + entity.relationships.map(\.name)
        guard !properties.contains(idColumn) else {
            throw InspectError("\(entity.name) has a property named \(idColumn), which can't be told from the objects' IDs")
        }
        return [idColumn] + properties
    }

    /// `object`'s row, in the order of ``columns(of:)``.
    static func row(of object: ManagedObject, entity: EntityDescription) throws -> [Cell] {
        var row: [Cell] = [.text(object.objectID.uriRepresentation)]
        row.reserveCapacity(1 + entity.attributes.count + entity.relationships.count)
        for attribute in entity.attributes {
            row.append(Cell(try object.value(forKey: attribute.name), of: attribute))
        }
        // The IDs alone: no object (or fault) for each member.
        for relationship in entity.relationships {
            let ids = try object.objectIDs(forRelationshipNamed: relationship.name)
            if relationship.isToMany {
                row.append(.objectIDs(ids.map(\.uriRepresentation), destination: relationship.destinationEntityName))
            } else {
                row.append(ids.first.map { .text($0.uriRepresentation) } ?? .null)
            }
        }
        return row
    }

    /// Writes the objects `request` fetches (every object of every entity
    /// for `nil`), one line at a time through `write`, and returns how many.
    /// An error `write` throws (output that can't be written) stops it.
    ///
    /// Memory stays flat: the IDs are fetched first, then the objects are
    /// read a thousand at a time, each batch in a context of its own. Each
    /// entity is read in its own snapshot; for one snapshot of a store that
    /// is being written, export a backup of it.
    ///
    /// - Throws: ``InspectError`` for a CSV export of several entities;
    ///   Kura's errors for the fetch.
    @discardableResult
    public static func export(
        _ request: FetchRequest<ManagedObject>?, from container: PersistentContainer, format: ExportFormat,
        write: (String) throws -> Void
    ) throws -> Int {
        // The whole store: each entity's own objects (a superentity's
        // fetch would repeat its sub-entities').
        let requests = request.map { [$0] } ?? container.model.entities.map { entity in
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            return request
        }
        guard format == .jsonl || requests.count == 1 else {
            throw InspectError("CSV holds one entity: export ENTITY --format csv")
        }
        var written = 0
        for request in requests {
            // A superentity's objects are written each with its own entity's
            // columns, one entity after another.
            let found = try container.newContext().fetchObjectIDs(request)
            var groups: [(entity: EntityDescription, ids: [ObjectID])] = []
            for id in found {
                if let last = groups.indices.last, groups[last].entity === id.entity {
                    groups[last].ids.append(id)
                } else if let known = groups.firstIndex(where: { $0.entity === id.entity }) {
                    groups[known].ids.append(id)
                } else {
                    groups.append((id.entity, [id]))
                }
            }
            if groups.isEmpty { groups = [(try container.model.requireEntity(named: request.entityName), [])] }
            guard format == .jsonl || groups.count == 1 else {
                throw InspectError("CSV holds one entity, and \(request.entityName)'s objects are of \(groups.count): "
                    + "export each of " + groups.map(\.entity.name).joined(separator: ", ") + " --format csv, or use jsonl")
            }
            for (entity, ids) in groups {
                written += try export(ids, of: entity, from: container, format: format, write: write)
            }
        }
        return written
    }

    /// Writes the objects `ids` of `entity`, a batch at a time.
    private static func export(
        _ ids: [ObjectID], of entity: EntityDescription, from container: PersistentContainer, format: ExportFormat,
        write: (String) throws -> Void
    ) throws -> Int {
        var written = 0
        let columns = try columns(of: entity)
        if format == .csv { try write(CSVText.record(columns)) }
        let keys = jsonKeys(columns)
        let batches = stride(from: 0, to: ids.count, by: batchSize).map { Array(ids[$0..<min($0 + batchSize, ids.count)]) }
        // Batches are read and written two at a time, one per core (each
        // in a context of its own), and printed in order.
        var next = 0
        while next < batches.count {
            try Task.checkCancellation()
            let group = Array(batches[next..<min(next + parallelBatches, batches.count)])
            let results = BatchResults(count: group.count)
            DispatchQueue.concurrentPerform(iterations: group.count) { slot in
                results.store(slot, Result { try Self.lines(of: group[slot], entity: entity, keys: keys, format: format, in: container) })
            }
            for result in results.all {
                let (text, count) = try result.get()
                if count > 0 { try write(text) }
                written += count
            }
            next += group.count
        }
        return written
    }

    /// Each column name quoted, with its colon: the keys of ``writeJSON(keys:row:to:)``.
    static func jsonKeys(_ columns: [String]) -> [[UInt8]] {
        columns.map { name in
            var key: [UInt8] = []
            JSONValue.write(string: name, to: &key)
            return key + [UInt8(ascii: ":")]
        }
    }

    /// Appends a row as a JSON object; `keys` from ``jsonKeys(_:)``.
    static func writeJSON(keys: [[UInt8]], row: [Cell], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (position, cell) in row.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += keys[position]
            cell.writeJSON(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    static let batchSize = 1000
    static let parallelBatches = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))

    /// The lines of one batch of objects, as one piece of text, and how
    /// many objects it holds (objects deleted meanwhile are left out).
    private static func lines(
        of ids: [ObjectID], entity: EntityDescription, keys: [[UInt8]], format: ExportFormat, in container: PersistentContainer
    ) throws -> (String, Int) {
        let context = container.newContext()
        return try withExtendedLifetime(context) {
            // One read for the batch's records, one per relationship for
            // its IDs (from the records and entries: no object per member).
            let objects = try context.existingObjects(with: ids)
            let destinations = try entity.relationships.map { try context.objectIDs(forRelationshipNamed: $0.name, of: objects) }
            let writer = RowWriter(entity: entity, model: container.model, keys: keys, format: format)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(objects.count * 256)
            for (row, object) in objects.enumerated() {
                try writer.write(object, destinations: destinations, row: row, to: &bytes)
                bytes.append(0x0A)
            }
            return (String(decoding: bytes.dropLast(), as: UTF8.self), objects.count)
        }
    }

    /// Writes objects' rows (the columns of ``columns(of:)``, the values of
    /// ``row(of:entity:)``) straight into bytes: each ID from its entity's
    /// prefix and its number, no string or cell made for it, since an
    /// export writes millions.
    struct RowWriter {
        let entity: EntityDescription
        let relationships: [RelationshipDescription]
        let keys: [[UInt8]]
        let format: ExportFormat
        /// `kura://News/` for the entity, then for each relationship's
        /// destination; `nil` for an entity of a family, whose IDs may name
        /// its sub-entities (each is written as its URI).
        let idPrefix: [UInt8]?
        let destinationPrefixes: [[UInt8]?]

        init(entity: EntityDescription, model: ManagedObjectModel, keys: [[UInt8]], format: ExportFormat) {
            self.entity = entity
            relationships = entity.relationships
            self.keys = keys
            self.format = format
            func prefix(_ entity: EntityDescription?) -> [UInt8]? {
                guard let entity, entity.superentity == nil, entity.subentities.isEmpty else { return nil }
                return Array("kura://\(entity.name)/".utf8)
            }
            idPrefix = prefix(entity)
            destinationPrefixes = relationships.map { prefix(model.entity(named: $0.destinationEntityName)) }
        }

        /// Writes `object`'s row; its relationships' IDs are
        /// `destinations[relationship][row]` (from
        /// `ManagedObjectContext.objectIDs(forRelationshipNamed:of:)`).
        func write(_ object: ManagedObject, destinations: [[[ObjectID]]], row: Int, to bytes: inout [UInt8]) throws {
            let json = format == .jsonl
            var column = 0
            func separate() {
                if json {
                    bytes.append(column == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
                    bytes += keys[column]
                } else if column > 0 {
                    bytes.append(UInt8(ascii: ","))
                }
                column += 1
            }
            func id(_ prefix: [UInt8]?, _ id: ObjectID) {
                if let prefix, let key = id.primaryKey {
                    bytes += prefix
                    bytes += String(key).utf8
                } else {
                    bytes += id.uriRepresentation.utf8  // (a temporary ID: not in a saved store)
                }
            }
            separate()
            if json { bytes.append(UInt8(ascii: "\"")) }
            id(idPrefix, object.objectID)
            if json { bytes.append(UInt8(ascii: "\"")) }
            for attribute in entity.attributes {
                separate()
                let cell = Cell(try object.value(forKey: attribute.name), of: attribute)
                if json { cell.writeJSON(to: &bytes) } else { CSVText.append(cell.field, to: &bytes) }
            }
            for (number, (relationship, prefix)) in zip(relationships, destinationPrefixes).enumerated() {
                separate()
                let ids = destinations[number][row]
                if !relationship.isToMany, ids.isEmpty {
                    if json { bytes += "null".utf8 }  // CSV: an empty unquoted field
                    continue
                }
                // IDs need no escaping in JSON nor quoting in CSV (CSV's
                // empty to-many is the empty string, "", as Cell.field has it).
                if !json, ids.isEmpty {
                    bytes += "\"\"".utf8
                    continue
                }
                if json, relationship.isToMany { bytes.append(UInt8(ascii: "[")) }
                for (position, member) in ids.enumerated() {
                    if position > 0 { bytes.append(json ? UInt8(ascii: ",") : UInt8(ascii: " ")) }
                    if json { bytes.append(UInt8(ascii: "\"")) }
                    id(prefix, member)
                    if json { bytes.append(UInt8(ascii: "\"")) }
                }
                if json, relationship.isToMany { bytes.append(UInt8(ascii: "]")) }
            }
            if json { bytes.append(UInt8(ascii: "}")) }
        }
    }
}

/// The results of batches run at once, one slot each.
private final class BatchResults: @unchecked Sendable {
    private var slots: [Result<(String, Int), any Error>?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func store(_ slot: Int, _ result: Result<(String, Int), any Error>) {
        lock.withLock { slots[slot] = result }
    }

    var all: [Result<(String, Int), any Error>] { lock.withLock { slots.compactMap { $0 } } }
}
