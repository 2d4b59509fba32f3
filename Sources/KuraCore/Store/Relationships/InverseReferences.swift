/// A to-many whose inverse is a to-one: nothing of its own. Its members are
/// the entries of the inverse's `kura.ref` space under the owner's key
/// (``ToOneReferences``), so a save that sets the inverse sets both; an
/// ordered one keeps its order besides (``MemberOrder``).
final class InverseReferences: RelationshipStorage {
    let link: RelationshipLink
    let order: MemberOrder?

    static func spaceNames(of link: RelationshipLink) -> [RelationshipSpaceName] {
        MemberOrder.spaceNames(of: link)
    }

    init(link: RelationshipLink, spaces: [StorageSpace], format: UInt32) {
        self.link = link
        order = MemberOrder(link: link, spaces: spaces, format: format)
    }

    var spaces: [StorageSpace] { order.map { [$0.space] } ?? [] }

    func write(_ change: MembershipWrite, in txn: StoreTransaction) throws {
        try order?.write(change, in: txn)
    }

    func removeMembers(ofDeleted owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws {
        try order?.remove(owner, in: txn)
    }

    func memberSpace(in store: PersistentStore) -> StorageSpace {
        (store.storage(of: link.inverse!) as! ToOneReferences).references
    }

    func memberKeys(of owner: UInt64, store: PersistentStore, in txn: StoreTransaction) throws -> [UInt64] {
        var keys: [UInt64] = []
        try store.forEachSecondKey(in: memberSpace(in: store), first: owner, in: txn) { keys.append($0); return true }
        return try order?.ordered(keys, of: owner, in: txn) ?? keys
    }

    /// Each destination's to-one names its owner.
    func sourceKeys(
        pointingTo keys: [UInt64], cap: Int, store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64]? {
        let inverse = link.inverse!
        var sources: [UInt64] = []
        for key in keys {
            // The inverse's field is the same in every record of the family.
            let destination = link.destination.concreteEntity(forKey: key)
            let owner: UInt64?? = try StoreLayout.withKey(key) { bytes in
                try store.spaces(for: destination).records.withValue(forKey: bytes, in: txn) { record in
                    try store.validatedRecord(record, of: destination, values: []).reference(inverse.field!)
                }
            }
            if let owner = owner ?? nil { sources.append(owner) }
            if sources.count > cap { return nil }
        }
        return sources
    }

    /// Its entries are its inverse's, checked there; its order is checked here.
    func check(in store: PersistentStore, _ txn: StoreTransaction, _ checks: inout RelationshipChecks) throws {
        try order?.check(of: self, store: store, txn, &checks)
    }

    func entryCount(in txn: StoreTransaction) throws -> Int? { nil }

    /// Each owner with its members: in stored order for an ordered one.
    func allMembers(store: PersistentStore, in txn: StoreTransaction) throws -> [(owner: UInt64, members: [UInt64])] {
        try owners(in: memberSpace(in: store), orderedBy: order, txn)
    }

    static var keepsMemberEntries: Bool { false }

    /// Not rebuilt: its inverse's entries are rebuilt, and with them its members.
    static var isRebuilt: Bool { false }

    func rebuild(
        from pairs: [(owner: UInt64, members: [UInt64])], store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64: UInt64]? {
        nil
    }
}
