/// An object a predicate is evaluated on, or reaches through a relationship:
/// a stored record read in place, or an object of the fetching context (one
/// with unsaved changes, or a new one), whose current state counts.
enum GraphNode {
    case record(EntityDescription, UInt64, RecordView)
    case object(ManagedObject)

    var objectID: ObjectID {
        switch self {
        case .record(let entity, let key, _): ObjectID(entity: entity, number: key, isTemporaryID: false)
        case .object(let object): object.objectID
        }
    }

    var reference: ObjectReference {
        switch self {
        case .record(let entity, let key, _): ObjectReference(entity: entity, number: key, isTemporary: false)
        case .object(let object):
            ObjectReference(entity: object.entity, number: object.objectID.number, isTemporary: object.objectID.isTemporaryID)
        }
    }
}

/// Follows relationships for predicates: between stored records in the
/// fetch's own snapshot, and through the context's objects where the
/// context has changed them, so a fetch sees unsaved relationship changes.
struct PredicateGraph {
    let store: PersistentStore
    /// The fetch's read transaction, for reading records in place; `nil`
    /// when only the context's objects are evaluated.
    let transaction: (StoreTransaction)?
    /// The objects of the fetching context that have unsaved changes, by
    /// entity and primary key: seen instead of their records.
    let pending: [PendingKey: ManagedObject]

    struct PendingKey: Hashable {
        let entity: ObjectIdentifier
        let number: UInt64
    }

    /// The pending objects of `context`, for a graph.
    static func pendingObjects(of context: ManagedObjectContext?) -> [PendingKey: ManagedObject] {
        guard let context, !context.pending.isEmpty else { return [:] }
        var objects: [PendingKey: ManagedObject] = [:]
        for object in context.pending where !object.objectID.isTemporaryID && object.hasChanges {
            objects[PendingKey(entity: ObjectIdentifier(object.entity), number: object.objectID.number)] = object
        }
        return objects
    }

    /// The object `entity` `key` names: the context's changed object, else its
    /// record; `nil` when neither exists (a reference left by no-action) or
    /// the context deleted it.
    func node(_ entity: EntityDescription, _ key: UInt64) throws -> GraphNode? {
        // A relationship to a superentity reaches its sub-entities' records.
        let entity = entity.concreteEntity(forKey: key)
        if let object = pending[PendingKey(entity: ObjectIdentifier(entity), number: key)] {
            return object.isDeleted ? nil : .object(object)
        }
        guard let transaction else {
            preconditionFailure("a predicate graph without a transaction reached a record")
        }
        return try StoreLayout.withKey(key) { bytes in
            try store.spaces(for: entity).records.withValue(forKey: bytes, in: transaction) { record in
                GraphNode.record(entity, key, try store.validatedRecord(record, of: entity))
            }
        }
    }

    /// The value of attribute `number` of a node.
    func attribute(_ number: Int, of node: GraphNode) throws -> AttributeValue? {
        switch node {
        case .record(let entity, _, let view): return view.value(number, of: entity)
        case .object(let object): return try object.currentValue(number)
        }
    }

    /// The destination of a to-one.
    func destination(of node: GraphNode, _ link: RelationshipLink) throws -> GraphNode? {
        switch node {
        case .record(_, _, let view):
            guard let field = link.field, let key = view.reference(field) else { return nil }
            return try self.node(link.destination, key)
        case .object(let object):
            return try object.destination(link).map(GraphNode.object)
        }
    }

    /// The members of a to-many.
    func members(of node: GraphNode, _ link: RelationshipLink) throws -> [GraphNode] {
        switch node {
        case .record(_, let owner, _):
            guard let transaction else { return [] }
            var keys: [UInt64] = []
            try store.forEachMemberKey(of: link, owner: owner, in: transaction) { keys.append($0); return true }
            // Where a read is a request, the members' records are one.
            if keys.count > 1 {
                try transaction.readAhead { $0.read(keys: keys.map(StoreLayout.key), in: store.spaces(for: link.destination).records) }
            }
            return try keys.compactMap { try self.node(link.destination, $0) }
        case .object(let object):
            return try object.members(link).filter { !$0.isDeleted }.map(GraphNode.object)
        }
    }

    /// How many members a to-many has, without reading them where the store
    /// can count (not where members may be gone: see ``RelationshipLink/mayOutliveDestinations``).
    func memberCount(of node: GraphNode, _ link: RelationshipLink) throws -> Int {
        switch node {
        case .record(_, let owner, _) where pending.isEmpty && !link.mayOutliveDestinations:
            guard let transaction else { return 0 }
            var count = 0
            try store.forEachMemberKey(of: link, owner: owner, in: transaction) { _ in count += 1; return true }
            return count
        default:
            return try members(of: node, link).count
        }
    }
}
