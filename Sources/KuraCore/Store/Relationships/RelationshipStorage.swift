/// How the store keeps one kind of relationship: its spaces, what a save
/// writes to them and what a delete removes, its reads (a fault's members,
/// the planner's walk from destinations to sources), its consistency check
/// and its rebuild in a migration. One type per kind, each in its own file:
///
/// - ``ToOneReferences``: a to-one (a reference field in the record, and
///   entries (destination, source) in `kura.ref`);
/// - ``InverseReferences``: a to-many whose inverse is a to-one (nothing of
///   its own: its members are the inverse's entries);
/// - ``JoinedMembers``: any other to-many (entries (owner, member) in
///   `kura.join`, and (member, owner) in `kura.rjoin` when it has no inverse).
///
/// An ordered to-many of either to-many kind also keeps its members' order
/// (``MemberOrder``). The model says which kind a relationship is
/// (``RelationshipLink/storage``); ``RelationshipLink/storageType`` is the
/// one place that maps it to its type, so a new kind is a new file and a
/// case there.
///
/// A kind's instance is made when its store opens and lives as long as its
/// spaces; it holds no store (methods that need one are given it).
protocol RelationshipStorage: AnyObject, Sendable {
    /// The names of the spaces a relationship of this kind keeps, each with
    /// what it holds (`kura` and the statistics show it).
    static func spaceNames(of link: RelationshipLink) -> [RelationshipSpaceName]

    /// A kind's storage, with the spaces ``spaceNames(of:)`` named, opened,
    /// in that order, in a store of `format` (see ``StoreLayout/formatVersion``).
    init(link: RelationshipLink, spaces: [StorageSpace], format: UInt32)

    var link: RelationshipLink { get }
    /// The spaces it keeps, in the order of ``spaceNames(of:)``.
    var spaces: [StorageSpace] { get }

    // MARK: Saving

    /// A to-one of `source` changed from `old` to `new` (an insert: from
    /// `nil`; a delete: to `nil`).
    func moveReference(of source: UInt64, from old: UInt64?, to new: UInt64?, in txn: StoreTransaction) throws

    /// A to-many's members added and removed, and where its order puts members.
    func write(_ change: MembershipWrite, in txn: StoreTransaction) throws

    /// Removes what this to-many keeps of an owner being deleted.
    func removeMembers(ofDeleted owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws

    // MARK: Reading

    /// The space of a to-many's entries: pairs whose first key is the owner.
    func memberSpace(in store: PersistentStore) -> StorageSpace

    /// The stored members of `owner`: in the stored order for an ordered
    /// to-many, else ascending.
    func memberKeys(of owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws -> [UInt64]

    /// The sources pointing to `keys` (destinations): their primary keys,
    /// each destination's ascending, or `nil` past `cap`.
    func sourceKeys(
        pointingTo keys: [UInt64], cap: Int, store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64]?

    // MARK: Checking and migrating

    /// Checks what this relationship keeps against the records (see
    /// ``PersistentStore/checkRelationships(of:in:readable:problem:report:)``).
    func check(in store: PersistentStore, _ txn: StoreTransaction, _ checks: inout RelationshipChecks) throws

    /// How many entries it keeps, for a migration's count of what a removal
    /// drops; `nil` when they are another relationship's.
    func entryCount(in txn: StoreTransaction) throws -> Int?

    /// Every owner with its members, ascending by owner (members in stored
    /// order for an ordered to-many): what a migration moves.
    func allMembers(store: PersistentStore, in txn: StoreTransaction) throws -> [(owner: UInt64, members: [UInt64])]

    /// True when a to-many of this kind keeps an entry per member, so a
    /// save writes each member added or removed (``write(_:in:)``); false
    /// when its members are kept by the other side (or it is a to-one).
    static var keepsMemberEntries: Bool { get }

    /// True when a migration fills this kind's spaces from the relationship
    /// it continues (false when it keeps nothing of its own).
    static var isRebuilt: Bool { get }

    /// Fills the (new, empty) spaces from `pairs`; returns, for a to-one,
    /// the reference each owner's record must hold.
    func rebuild(
        from pairs: [(owner: UInt64, members: [UInt64])], store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64: UInt64]?
}

/// A space a relationship keeps: its name, and what it holds.
struct RelationshipSpaceName {
    let name: String
    let part: String
}

/// A to-many's change, with inserted objects' keys resolved.
struct MembershipWrite {
    let owner: UInt64
    let added: [UInt64]
    let removed: [UInt64]
    /// For an ordered to-many: where members go, in turn (after the removed
    /// ones are taken out of the order).
    var placements: [OrderPlacement] = []
    /// The owner was inserted by this save: nothing is stored under it yet.
    var ownerIsNew = false
    /// Members inserted by this save (not merged into stored objects by an
    /// upsert): no order names them yet.
    var newMembers: Set<UInt64> = []
}

/// What a relationship's check reports to (see ``RelationshipStorage/check(in:_:_:)``).
struct RelationshipChecks {
    /// "Entity.relationship", to begin messages.
    let label: String
    let problem: (String) -> Void
    var report: StoreCheckReport.EntityReport
}

extension RelationshipLink {
    /// The type that stores this relationship's kind: the one place a kind is chosen.
    var storageType: any RelationshipStorage.Type {
        switch storage {
        case .reference: ToOneReferences.self
        case .inverseOfReference: InverseReferences.self
        case .join: JoinedMembers.self
        }
    }

    /// The names of the spaces this relationship keeps.
    var spaceNames: [RelationshipSpaceName] { storageType.spaceNames(of: self) }

    /// `kind` of the relationship's space named for its entity and storage
    /// name: for an inherited relationship, the superentity's that has it
    /// (the family shares its entries).
    func spaceName(_ kind: (String, String) -> String, part: String) -> RelationshipSpaceName {
        let owner = source.relationshipOwner(number)
        return RelationshipSpaceName(
            name: kind(owner.layout.storageName, owner.layout.relationshipStorageNames[number]), part: part)
    }
}

// What kinds don't do: a to-one has no members, a to-many no reference.
extension RelationshipStorage {
    func moveReference(of source: UInt64, from old: UInt64?, to new: UInt64?, in txn: StoreTransaction) throws {
        preconditionFailure("\(link.name) is a to-many")
    }

    func write(_ change: MembershipWrite, in txn: StoreTransaction) throws {}

    func removeMembers(ofDeleted owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws {}

    func memberSpace(in store: PersistentStore) -> StorageSpace {
        preconditionFailure("\(link.name) is a to-one")
    }

    /// A to-many's members from its member space, put in order by `order`.
    func memberKeys(of owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws -> [UInt64] {
        var keys: [UInt64] = []
        try store.forEachSecondKey(in: memberSpace(in: store), first: owner, in: txn) { keys.append($0); return true }
        return keys
    }

    /// The second keys of `space`'s entries under each of `keys`: the
    /// sources of a space whose entries are (destination, source).
    func secondKeys(
        in space: StorageSpace, under keys: [UInt64], cap: Int, store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64]? {
        var sources: [UInt64] = []
        for key in keys {
            try store.forEachSecondKey(in: space, first: key, in: txn) { sources.append($0); return sources.count <= cap }
            if sources.count > cap { return nil }
        }
        return sources
    }

    /// Every entry of a pair space, grouped by its first key.
    func pairsByFirstKey(in space: StorageSpace, reversed: Bool = false, _ txn: StoreTransaction) throws -> [UInt64: [UInt64]] {
        var byFirst: [UInt64: [UInt64]] = [:]
        try space.forEach(in: txn, readAhead: .max) { entry in
            guard entry.key.count == 16 else { return true }
            let first = StoreLayout.primaryKey(fromSuffixOf: UnsafeRawBufferPointer(rebasing: entry.key.prefix(8)))
            let second = StoreLayout.secondKey(of: entry.key)
            if reversed {
                byFirst[second, default: []].append(first)
            } else {
                byFirst[first, default: []].append(second)
            }
            return true
        }
        return byFirst
    }
}
