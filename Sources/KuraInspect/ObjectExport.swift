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
/// one). Every value is written losslessly (``Kura/AttributeValue/text``):
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
            row.append(Cell(try object.value(forKey: attribute.name)))
        }
        for relationship in entity.relationships {
            if relationship.isToMany {
                row.append(.objectIDs(try object.objects(forKey: relationship.name).map(\.objectID.uriRepresentation),
                                      destination: relationship.destinationEntityName))
            } else {
                row.append(try object.object(forKey: relationship.name).map { .text($0.objectID.uriRepresentation) } ?? .null)
            }
        }
        return row
    }

    /// Writes the objects `request` fetches (every object of every entity
    /// for `nil`), one line at a time through `write`, and returns how many.
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
        _ request: FetchRequest?, from container: PersistentContainer, format: ExportFormat,
        write: (String) -> Void
    ) throws -> Int {
        let requests = request.map { [$0] } ?? container.model.entities.map { FetchRequest(entityName: $0.name) }
        guard format == .jsonl || requests.count == 1 else {
            throw InspectError("CSV holds one entity: export ENTITY --format csv")
        }
        var written = 0
        for request in requests {
            let entity = try container.model.requireEntity(named: request.entityName)
            let columns = try columns(of: entity)
            if format == .csv { write(CSVText.record(columns)) }
            let ids = try container.newContext().fetchObjectIDs(request)
            var start = 0
            while start < ids.count {
                try Task.checkCancellation()
                let context = container.newContext()
                try withExtendedLifetime(context) {
                    for id in ids[start..<min(start + batchSize, ids.count)] {
                        let row = try Self.row(of: try context.existingObject(with: id), entity: entity)
                        switch format {
                        case .csv: write(CSVText.record(row.map(\.field)))
                        case .jsonl: write(JSONValue.object(zip(columns, row).map { .init(key: $0, value: $1.json) }).text)
                        }
                    }
                }
                start += batchSize
            }
            written += ids.count
        }
        return written
    }

    static let batchSize = 1000
}
