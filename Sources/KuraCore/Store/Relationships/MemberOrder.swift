/// The order of an ordered to-many's members, kept beside its entries
/// (whichever kind keeps those): the owner's key mapped to the member keys
/// in order, in `kura.order.ENTITY.NAME`. Membership is what the entries
/// say; the list only orders it.
struct MemberOrder: Sendable {
    let space: StorageSpace

    static func spaceNames(of link: RelationshipLink) -> [RelationshipSpaceName] {
        link.isOrdered ? [link.spaceName(StoreLayout.orderSpaceName, part: "order")] : []
    }

    /// The order of `link`, the last of `spaces`, or `nil` when it isn't ordered.
    init?(link: RelationshipLink, spaces: [StorageSpace]) {
        guard link.isOrdered, let space = spaces.last else { return nil }
        self.space = space
    }

    func write(_ change: MembershipWrite, in txn: any StorageTransaction) throws {
        guard let members = change.order else { return }
        try space.put(StoreLayout.keyList(members), forKey: StoreLayout.key(change.owner), in: txn)
    }

    func remove(_ owner: UInt64, in txn: any StorageTransaction) throws {
        try space.delete(StoreLayout.key(owner), in: txn)
    }

    /// `keys` (an owner's members, ascending) in the stored order: the
    /// list gives the order, the entries membership; members the list
    /// doesn't name follow, ascending.
    func ordered(_ keys: [UInt64], of owner: UInt64, in txn: any StorageTransaction) throws -> [UInt64] {
        let listed = try StoreLayout.withKey(owner) { key in
            try space.withValue(forKey: key, in: txn) { StoreLayout.keys(fromList: $0) }
        } ?? []
        let members = Set(keys)
        var ordered = listed.filter { members.contains($0) }
        if ordered.count != keys.count {
            let seen = Set(ordered)
            ordered += keys.filter { !seen.contains($0) }
        }
        return ordered
    }


    /// Each owner's list names exactly its members, once each.
    func check(
        of storage: some RelationshipStorage, store: PersistentStore, _ txn: any StorageTransaction, _ checks: inout RelationshipChecks
    ) throws {
        let memberSpace = storage.memberSpace(in: store)
        try space.forEach(in: txn, readAhead: .max) { entry in
            guard entry.key.count == 8 else { return true }
            let owner = StoreLayout.primaryKey(fromSuffixOf: entry.key)
            let listed = StoreLayout.keys(fromList: entry.value)
            var members: [UInt64] = []
            try store.forEachSecondKey(in: memberSpace, first: owner, in: txn) { members.append($0); return true }
            if Set(listed) != Set(members) || listed.count != Set(listed).count {
                checks.problem("\(checks.label): the order of record \(owner) lists \(listed.count) members, its entries \(members.count)")
            }
            return true
        }
    }
}

extension RelationshipStorage {
    /// Every owner of a to-many with its members, ascending by owner: the
    /// pairs (owner, member) of `space`, put in `order` when it has one.
    func owners(
        in space: StorageSpace, orderedBy order: MemberOrder?, _ txn: any StorageTransaction
    ) throws -> [(owner: UInt64, members: [UInt64])] {
        var byOwner = try pairsByFirstKey(in: space, txn)
        if let order {
            for (owner, keys) in byOwner { byOwner[owner] = try order.ordered(keys, of: owner, in: txn) }
        }
        return byOwner.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
