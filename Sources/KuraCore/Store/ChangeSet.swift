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
        /// The attributes set after `awakeFromInsert`: what an upsert merges
        /// into a stored object under ``MergePolicy/mergeByPropertyObjectTrump``.
        var changedAttributes = AttributeMask()
    }

    /// A class, not a struct: it holds several references (values, records,
    /// masks) that a struct would retain and release at every copy, and a
    /// save hands each update from step to step.
    final class Update {
        let objectID: ObjectID
        let values: ContiguousArray<AttributeValue?>
        let references: [Reference?]
        /// The row version the context read; `nil` to overwrite whatever is
        /// stored. Another version found is a conflict, settled by
        /// ``ChangeSet/mergePolicy``.
        let expectedVersion: UInt64?
        /// The relationships the context changed (by number): of the
        /// to-ones, the ones a by-property merge takes from ``references``.
        var changedRelationships = AttributeMask()
        /// The values a merge with the stored record made, when there was
        /// one: they replace ``values`` for everything after the merge.
        var merged: ContiguousArray<AttributeValue?>?
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
        /// save expects still stored (see ``RequestingStorageTransaction/beginRewriting(_:)``).
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
            if let merged { return merged[number] }
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
    /// ordered one, where members go (the removed ones leave its order).
    /// What a save writes follows the change, not the list's length.
    struct MembershipChange {
        let owner: Reference
        let link: RelationshipLink
        let added: [Reference]
        let removed: [Reference]
        var placements: [Placement] = []
    }

    /// Where a member of an ordered to-many goes, in turn (see ``OrderPlacement``).
    enum Placement {
        case atEnd(Reference)
        /// Right after `anchor`; first when `anchor` is `nil`.
        case after(Reference, anchor: Reference?)

        var member: Reference {
            switch self {
            case .atEnd(let member), .after(let member, _): member
            }
        }

        /// With keys for references; `nil` when the member has none (an
        /// anchor without one puts the member at the end).
        func resolved(_ resolve: (Reference?) -> UInt64?) -> OrderPlacement? {
            guard let member = resolve(member) else { return nil }
            guard case .after(_, let anchor?) = self else {
                if case .after = self { return .after(member, anchor: nil) }
                return .atEnd(member)
            }
            return resolve(anchor).map { .after(member, anchor: $0) } ?? .atEnd(member)
        }
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var memberships: [MembershipChange] = []
    /// What the save does about conflicts: with objects changed elsewhere,
    /// and with stored objects that have an insert's unique values.
    var mergePolicy = MergePolicy.error
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
    /// The updates a conflict settled other than by writing the context's
    /// values, by position: their objects are refreshed, or leave the
    /// context. Empty in a save without conflicts.
    var settledUpdates: [Int: SettledUpdate] = [:]
    /// The inserts an upsert made into updates, by position: of a stored
    /// object (``insertedKeys`` holds its key, ``insertedRecords`` its record
    /// as written), or of an earlier insert of the save (its position).
    var mergedInserts: [Int: MergedInsert] = [:]
    /// Objects whose membership changes the save drops: updates settled by
    /// keeping the stored object, and objects deleted elsewhere.
    var droppedOwners: Set<ObjectID> = []

    enum SettledUpdate {
        /// The record stored now isn't the context's values: read it again.
        case refreshed
        /// The object was deleted elsewhere, and the policy lets that stand.
        case deleted
    }

    enum MergedInsert: Equatable {
        case intoStored
        case intoInsert(Int)
    }

    /// Whether the save leaves out the membership changes of the object
    /// `reference` names (of `entity`): its update was settled by keeping the
    /// stored object (or by its deletion elsewhere), or it is an insert
    /// merged into a stored object under ``MergePolicy/rollback``. Both
    /// sides of a relationship with an inverse leave them out.
    func dropsMemberships(of reference: ChangeSet.Reference, _ entity: EntityDescription, policy: MergePolicy) -> Bool {
        switch reference {
        case .stored(let key):
            return !droppedOwners.isEmpty && droppedOwners.contains(ObjectID(entity: entity, number: key, isTemporaryID: false))
        case .inserted(let position):
            return policy == .rollback && !mergedInserts.isEmpty && mergedInserts[position] != nil
        }
    }

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
