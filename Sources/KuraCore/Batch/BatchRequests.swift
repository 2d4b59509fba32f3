import Foundation

/// Deletes the objects a fetch request describes (or given object IDs) in
/// the store, without making an object (Core Data's `NSBatchDeleteRequest`,
/// SwiftData's `delete(model:where:)`). See
/// ``ManagedObjectContext/execute(_:)-(BatchDeleteRequest)``.
public struct BatchDeleteRequest: Sendable {
    /// The entity and predicate of the objects to delete (sort descriptors,
    /// offset and limit are not used).
    public var fetchRequest: FetchRequest<ManagedObject>
    /// When set, exactly these objects are deleted instead (of any entity).
    public var objectIDs: [ObjectID]?

    /// Deletes every object `fetchRequest` matches.
    public init<Object>(_ fetchRequest: FetchRequest<Object>) {
        self.fetchRequest = fetchRequest.untyped
    }

    /// Deletes the objects called `objectIDs` (saved ones: temporary IDs are refused).
    public init(objectIDs: [ObjectID]) {
        self.fetchRequest = FetchRequest(entityName: objectIDs.first?.entity.name ?? "")
        self.objectIDs = objectIDs
    }
}

/// Sets attributes of the objects a fetch request describes, in the store,
/// without making an object (Core Data's `NSBatchUpdateRequest`). See
/// ``ManagedObjectContext/execute(_:)-(BatchUpdateRequest)``.
public struct BatchUpdateRequest: Sendable {
    /// The entity and predicate of the objects to change.
    public var fetchRequest: FetchRequest<ManagedObject>
    /// The new values, by attribute name (`nil` clears an optional attribute).
    public var propertiesToUpdate: [String: AttributeValue?]

    /// Sets `propertiesToUpdate` on every object `fetchRequest` matches.
    public init<Object>(_ fetchRequest: FetchRequest<Object>, propertiesToUpdate: [String: AttributeValue?] = [:]) {
        self.fetchRequest = fetchRequest.untyped
        self.propertiesToUpdate = propertiesToUpdate
    }

    /// Sets the attribute `keyPath` names to `value`.
    ///
    /// ```swift
    /// var archive = BatchUpdateRequest(FetchRequest<News>(predicate: \.sortOrder < 10))
    /// archive.set(\News.isArchived, to: true)
    /// ```
    public mutating func set<Root: ManagedObject, Value: AttributeValueConvertible>(_ keyPath: KeyPath<Root, Value>, to value: Value) {
        propertiesToUpdate[PropertyKeyPathNames.path(of: keyPath)] = .some(value.attributeValue)
    }
}

/// Inserts objects from their values, in the store, without making an
/// object (Core Data's `NSBatchInsertRequest`). See
/// ``ManagedObjectContext/execute(_:)-(BatchInsertRequest)``.
///
/// The values come from a closure that fills each object's row by key path
/// (typed, and the cheapest: no dictionary or array a row), as dictionaries
/// (Core Data's form), or as rows of values for attributes named once:
///
/// ```swift
/// try context.execute(BatchInsertRequest(News.self, count: feed.count) { index, row in
///     row.set(\.objectId, to: feed[index].id)
///     row.set(\.title, to: feed[index].title)
/// })
///
/// let rows = feed.map { [AttributeValue.string($0.id), .string($0.title)] }
/// try context.execute(BatchInsertRequest(News.self, keys: ["objectId", "title"], rows: rows))
/// ```
public struct BatchInsertRequest: Sendable {
    /// The entity of the new objects (a concrete one).
    public var entityName: String
    /// The new objects' values.
    public var objects: Objects

    /// How the new objects' values are given.
    public enum Objects: Sendable {
        /// Each object's values by attribute name.
        case dictionaries([[String: AttributeValue?]])
        /// Each object's values for `keys`, in their order.
        case rows(keys: [String], values: [[AttributeValue?]])
        /// Each object's values set in a row by a closure (see
        /// ``BatchInsertRequest/init(_:count:fill:)``).
        case filled(Filling)

        var count: Int {
            switch self {
            case .dictionaries(let dictionaries): dictionaries.count
            case .rows(_, let values): values.count
            case .filled(let filling): filling.count
            }
        }
    }

    /// How many objects a closure fills, and the closure.
    public struct Filling: Sendable {
        let count: Int
        let fill: @Sendable (Int, inout BatchInsertValues) throws -> Void
    }

    /// Inserts `count` objects of `type`'s entity; `fill` sets the values of
    /// each, given its position (0 to `count` − 1) and its row, in order
    /// (Core Data's `NSBatchInsertRequest(entity:dictionaryHandler:)`,
    /// typed). Attributes a row doesn't set get their defaults. `fill`
    /// runs in ``ManagedObjectContext/execute(_:)-(BatchInsertRequest)``,
    /// before the write; an error it throws is thrown from there, with
    /// nothing inserted.
    public init<Object: ManagedObject>(
        _ type: Object.Type, count: Int, fill: @escaping @Sendable (_ index: Int, _ row: inout BatchInsertRow<Object>) throws -> Void
    ) {
        self.entityName = type.entityName
        self.objects = .filled(Filling(count: max(count, 0)) { index, values in
            // The values move into the row and back: no copy of a row's array.
            var row = BatchInsertRow<Object>(values: values)
            values.values = []
            defer { values = row.values }
            try fill(index, &row)
        })
    }

    /// Inserts an object of `entityName` for each dictionary of `objects`;
    /// attributes left out get their defaults.
    public init(entityName: String, objects: [[String: AttributeValue?]]) {
        self.entityName = entityName
        self.objects = .dictionaries(objects)
    }

    /// Inserts objects of `type`'s entity from dictionaries.
    public init<Object: ManagedObject>(_ type: Object.Type, objects: [[String: AttributeValue?]]) {
        self.init(entityName: type.entityName, objects: objects)
    }

    /// Inserts an object of `type`'s entity for each row of `rows`, whose
    /// values are for the attributes `keys` names, in order; attributes
    /// left out get their defaults.
    public init<Object: ManagedObject>(_ type: Object.Type, keys: [String], rows: [[AttributeValue?]]) {
        self.entityName = type.entityName
        self.objects = .rows(keys: keys, values: rows)
    }

    /// Inserts objects of `entityName` from rows of values for `keys`.
    public init(entityName: String, keys: [String], rows: [[AttributeValue?]]) {
        self.entityName = entityName
        self.objects = .rows(keys: keys, values: rows)
    }
}

/// What a batch request did.
public struct BatchResult: Sendable, Hashable {
    /// The objects deleted, changed or inserted: for a delete, the ones
    /// its delete rules deleted too; for an insert that a merge policy made
    /// an update of a stored object, that object.
    public let objectIDs: [ObjectID]
    /// The changes as a save's notification carries them, for
    /// ``ManagedObjectContext/mergeChanges(_:)`` (nullified references
    /// are updates).
    public let changes: ContextChanges

    /// How many objects the request deleted, changed or inserted.
    public var count: Int { objectIDs.count }
}
