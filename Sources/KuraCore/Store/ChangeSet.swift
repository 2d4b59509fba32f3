/// What a context asks the store to write in one save.
struct ChangeSet {
    /// An object a change points to: stored already, or inserted by this save.
    enum Reference: Hashable {
        case stored(UInt64)
        /// The position in ``ChangeSet/inserts``.
        case inserted(Int)
    }

    struct Insert {
        let objectID: ObjectID
        let values: ContiguousArray<AttributeValue?>
        /// The destination of each to-one, in the entity's order of to-ones.
        let references: [Reference?]
    }

    /// A class, not a struct: it holds several references (values, records,
    /// masks) that a struct would retain and release at every copy, and a
    /// save hands each update from step to step.
    final class Update {
        let objectID: ObjectID
        let values: ContiguousArray<AttributeValue?>
        let references: [Reference?]
        /// The row version the context read; `nil` to overwrite whatever is stored.
        let expectedVersion: UInt64?
        /// False when only many-to-many (or inverse-less) memberships
        /// changed: the record stays as it is, row version included.
        let rewritesRecord: Bool
        /// When ``values`` holds only some values: the record the others
        /// are in, copied from as they are.
        let unloaded: Unloaded?
        /// The attributes the context changed, if it knows: when the stored
        /// record is still the one it read, only the index entries of these
        /// can move.
        let changedAttributes: AttributeMask?
        /// The stored record as the context read it, if it did: what the
        /// save expects still stored (see ``StorageTransaction/beginRewriting(_:)``).
        let readRecord: [UInt8]?

        init(
            objectID: ObjectID, values: ContiguousArray<AttributeValue?>, references: [Reference?],
            expectedVersion: UInt64?, rewritesRecord: Bool, unloaded: Unloaded? = nil,
            changedAttributes: AttributeMask? = nil, readRecord: [UInt8]? = nil
        ) {
            self.objectID = objectID
            self.values = values
            self.references = references
            self.expectedVersion = expectedVersion
            self.rewritesRecord = rewritesRecord
            self.unloaded = unloaded
            self.changedAttributes = changedAttributes
            self.readRecord = readRecord
        }

        /// The value of attribute `number`: from ``values``, or decoded from
        /// the record when it is still there.
        func value(_ number: Int) -> AttributeValue? {
            guard let unloaded, !unloaded.loaded.contains(number) else { return values[number] }
            return unloaded.record.withUnsafeBytes { RecordView(trusted: $0).value(number, of: objectID.entity) }
        }
    }

    /// The values of an update that are still in the object's record (not
    /// decoded): the positions in ``loaded`` are in the update's values, the
    /// others are copied from ``record``, byte for byte.
    struct Unloaded {
        let record: [UInt8]
        let loaded: AttributeMask
    }

    struct Delete {
        let objectID: ObjectID
        /// The row version the context read; `nil` to delete whatever is stored.
        let expectedVersion: UInt64?
    }

    /// Members added to and removed from one object's to-many, and for an
    /// ordered one, all its members in order.
    struct MembershipChange {
        let owner: Reference
        let link: RelationshipLink
        let added: [Reference]
        let removed: [Reference]
        let order: [Reference]?
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var memberships: [MembershipChange] = []
    /// What the store's history records besides the objects, when it tracks history.
    var history: History?

    struct History {
        var author: String?
        /// For each update, in order: the names of the properties it changed.
        var updatedKeys: [[String]] = []
    }

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && memberships.isEmpty }
}

/// What a save wrote, for the context to adopt once it committed.
struct SaveResult {
    /// The primary key each insert got, in the order of ``ChangeSet/inserts``.
    var insertedKeys: [UInt64] = []
    /// The stored record of each insert, in order. Optional so that the
    /// context can move each one into its object (`swap`) rather than copy
    /// it: a copy is a retain now and a release when the result goes, each
    /// on a record no cache holds any more in a large save.
    var insertedRecords: [[UInt8]?] = []
    /// The stored record of each update, in order (`nil` when not rewritten).
    var updatedRecords: [[UInt8]?] = []

    /// The primary key `reference` names: stored, or given to an insert
    /// of this save (`insertedKeys`, by position).
    @inline(__always)
    static func resolve(_ reference: ChangeSet.Reference?, insertedKeys: [UInt64]) -> UInt64? {
        switch reference {
        case .stored(let key)?: key
        case .inserted(let position)?: insertedKeys[position]
        case nil: nil
        }
    }
}
