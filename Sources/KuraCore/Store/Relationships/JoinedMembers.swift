/// A to-many with entries of its own: (owner key, member key) in
/// `kura.join.ENTITY.NAME`. A many-to-many has one such space per side,
/// kept in step by the context (each side's change is written as its own);
/// a to-many without an inverse also keeps the reverse entries (member
/// key, owner key) in `kura.rjoin.ENTITY.NAME`, so deleting a member finds
/// its owners. An ordered one keeps its order besides (``MemberOrder``).
final class JoinedMembers: RelationshipStorage {
    let link: RelationshipLink
    let join: StorageSpace
    /// For a to-many without inverse: (member key, owner key).
    let reverseJoin: StorageSpace?
    let order: MemberOrder?

    static func spaceNames(of link: RelationshipLink) -> [RelationshipSpaceName] {
        [link.spaceName(StoreLayout.joinSpaceName, part: "members")]
            + (link.inverse == nil ? [link.spaceName(StoreLayout.reverseJoinSpaceName, part: "members, reverse")] : [])
            + MemberOrder.spaceNames(of: link)
    }

    init(link: RelationshipLink, spaces: [StorageSpace], format: UInt32) {
        self.link = link
        join = spaces[0]
        reverseJoin = link.inverse == nil ? spaces[1] : nil
        order = MemberOrder(link: link, spaces: spaces, format: format)
    }

    var spaces: [StorageSpace] { [join] + (reverseJoin.map { [$0] } ?? []) + (order.map { [$0.space] } ?? []) }

    func write(_ change: MembershipWrite, in txn: StoreTransaction) throws {
        for member in change.removed { try remove(member, of: change.owner, in: txn) }
        for member in change.added {
            try join.putPair(change.owner, member, in: txn)
            try reverseJoin?.putPair(member, change.owner, in: txn)
        }
        try order?.write(change, in: txn)
    }

    func removeMembers(ofDeleted owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws {
        var members: [UInt64] = []
        try store.forEachSecondKey(in: join, first: owner, in: txn) { members.append($0); return true }
        for member in members { try remove(member, of: owner, in: txn) }
        try order?.remove(owner, in: txn)
    }

    private func remove(_ member: UInt64, of owner: UInt64, in txn: StoreTransaction) throws {
        try join.deletePair(owner, member, in: txn)
        try reverseJoin?.deletePair(member, owner, in: txn)
    }

    func memberSpace(in store: PersistentStore) -> StorageSpace { join }

    func memberKeys(of owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws -> [UInt64] {
        var keys: [UInt64] = []
        try store.forEachSecondKey(in: join, first: owner, in: txn) { keys.append($0); return true }
        return try order?.ordered(keys, of: owner, in: txn) ?? keys
    }

    /// The inverse's entries (member, owner), or the reverse ones.
    func sourceKeys(
        pointingTo keys: [UInt64], cap: Int, store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64]? {
        try secondKeys(in: sourceSpace(in: store), under: keys, cap: cap, store: store, in: txn)
    }

    /// Entries (member, owner): the inverse's, or the reverse ones.
    func sourceSpace(in store: PersistentStore) -> StorageSpace {
        link.inverse.map { (store.storage(of: $0) as! JoinedMembers).join } ?? reverseJoin!
    }

    /// Each entry names existing objects and matches its other side (the
    /// inverse's entries, or the reverse ones); the order lists exactly the members.
    func check(in store: PersistentStore, _ txn: StoreTransaction, _ checks: inout RelationshipChecks) throws {
        var entries = 0
        var pairs: [(UInt64, UInt64)] = []
        try join.forEach(in: txn, readAhead: .max) { entry in
            entries += 1
            guard entry.key.count == 16 else {
                checks.problem("\(checks.label): an entry has a \(entry.key.count)-byte key")
                return true
            }
            pairs.append((StoreLayout.primaryKey(fromSuffixOf: UnsafeRawBufferPointer(rebasing: entry.key.prefix(8))),
                          StoreLayout.secondKey(of: entry.key)))
            return true
        }
        let other = sourceSpace(in: store)
        for (owner, member) in pairs {
            if try !store.exists(owner, of: link.source, in: txn) {
                checks.problem("\(checks.label): an entry names record \(owner), which doesn't exist")
            }
            if try !store.exists(member, of: link.destination, in: txn) { checks.missing(owner, member, of: link) }
            if try !other.contains(StoreLayout.pairKey(member, owner), in: txn) {
                checks.problem("\(checks.label): record \(owner) holds \(link.destination.name) \(member), but the other side doesn't hold it")
            }
        }
        if let reverseJoin, try reverseJoin.count(in: txn) != pairs.count {
            checks.problem("\(checks.label): its reverse entries don't match its entries")
        }
        checks.report.relationshipEntries[link.name] = entries
        try order?.check(of: self, store: store, txn, &checks)
    }

    func entryCount(in txn: StoreTransaction) throws -> Int? {
        try join.count(in: txn)
    }

    /// Each owner with its members: in stored order for an ordered one.
    func allMembers(store: PersistentStore, in txn: StoreTransaction) throws -> [(owner: UInt64, members: [UInt64])] {
        try owners(in: join, orderedBy: order, txn)
    }

    static var keepsMemberEntries: Bool { true }

    static var isRebuilt: Bool { true }

    func rebuild(
        from pairs: [(owner: UInt64, members: [UInt64])], store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64: UInt64]? {
        for (owner, members) in pairs where !members.isEmpty {
            try write(MembershipWrite(owner: owner, added: members, removed: []), in: txn)
            try order?.writeWhole(members, of: owner, in: txn)
        }
        return nil
    }
}
