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
/// The values come as dictionaries (Core Data's form), or as rows of values
/// for attributes named once, which costs less for many objects:
///
/// ```swift
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

        var count: Int {
            switch self {
            case .dictionaries(let dictionaries): dictionaries.count
            case .rows(_, let values): values.count
            }
        }
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
