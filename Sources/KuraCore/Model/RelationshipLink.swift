/// A relationship resolved against its model: its destination entity, its
/// inverse, and how the store keeps it. Made by ``ManagedObjectModel`` when
/// it takes its entities.
///
/// Which kind of storage it gets is ``storage``, decided here from the
/// relationship and its inverse; how each kind is kept is its type's
/// (``storageType``: `ToOneReferences`, `InverseReferences`,
/// `JoinedMembers`, in `Store/Relationships`; see the StoreFormat article).
final class RelationshipLink: @unchecked Sendable {
    // @unchecked: every property is set in init and never changes; the
    // entities are unowned references because a model holds its entities (and
    // their links) strongly, and links are only followed through a model, a
    // store or a context that keeps the model alive. Strong references would
    // make every model with relationships a reference cycle.

    /// How the store keeps a relationship.
    enum Storage: Sendable, Hashable {
        /// A to-one: a reference field in the record, indexed from the destination.
        case reference
        /// A to-many read from its inverse to-one's index.
        case inverseOfReference
        /// A to-many with entries of its own, one per member.
        case join
    }

    let description: RelationshipDescription
    /// The position among the entity's relationships.
    let number: Int
    /// The entities, held as ``_UnownedReference``s (a checked `unowned`
    /// in the internal-checks build).
    var source: EntityDescription { sourceReference.object }
    var destination: EntityDescription { destinationReference.object }
    private let sourceReference: _UnownedReference<EntityDescription>
    private let destinationReference: _UnownedReference<EntityDescription>
    /// The inverse's position among the destination's relationships.
    let inverseNumber: Int?
    /// For a to-one: the record field that holds its reference (see
    /// ``RecordLayout``).
    var field: Int? { source.layout.relationshipFields[number] }
    let storage: Storage
    /// True when deleting a destination leaves this side pointing at it:
    /// the inverse's delete rule is `noAction`. Such a reference to an
    /// object that is gone reads as nothing, everywhere (see the
    /// Relationships article). Stored, not read from the destination when
    /// asked: an object that outlived its model reads it without following
    /// an unowned reference.
    let mayOutliveDestinations: Bool

    init(description: RelationshipDescription, number: Int, source: EntityDescription, destination: EntityDescription,
         inverseNumber: Int?) {
        self.description = description
        self.number = number
        sourceReference = _UnownedReference(source)
        destinationReference = _UnownedReference(destination)
        self.inverseNumber = inverseNumber
        mayOutliveDestinations = inverseNumber.map { destination.relationships[$0].deleteRule == .noAction } ?? false
        if !description.isToMany {
            storage = .reference
        } else if let inverseNumber, !destination.relationships[inverseNumber].isToMany {
            storage = .inverseOfReference
        } else {
            storage = .join
        }
    }

    var name: String { description.name }
    var isToMany: Bool { description.isToMany }
    var isOrdered: Bool { description.isOrdered }

    /// The inverse relationship, if any.
    var inverse: RelationshipLink? {
        inverseNumber.map { destination.links[$0] }
    }

    /// A to-many without an inverse keeps reverse entries too, so deleting a
    /// member can find its owners.
    var keepsReverseEntries: Bool { storage == .join && inverseNumber == nil }
}

extension RelationshipLink: CustomReflectable {
    /// The relationship by name, number and storage: not its entities, which
    /// it holds unowned and which a mirror would follow even when
    /// an object outlived its model (`dump`, a test failure's report).
    var customMirror: Mirror {
        Mirror(self, children: ["description": description, "number": number, "storage": storage], displayStyle: .class)
    }
}
