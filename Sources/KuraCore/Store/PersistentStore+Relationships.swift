extension PersistentStore {
    /// How the store keeps `link` (see ``RelationshipStorage``).
    func storage(of link: RelationshipLink) -> any RelationshipStorage {
        spaces(for: link.source).relationships[link.number]
    }

    /// The stored members of the to-many `link` of the object `owner`: their
    /// primary keys, in the stored order for an ordered relationship, else
    /// ascending.
    func memberKeys(of link: RelationshipLink, owner: UInt64, in txn: StoreTransaction) throws -> [UInt64] {
        try storage(of: link).memberKeys(of: owner, store: self, in: txn)
    }

    /// Calls `body` with each stored member key of a to-many, ascending,
    /// until it returns false. No record is read.
    func forEachMemberKey(
        of link: RelationshipLink, owner: UInt64, in txn: StoreTransaction, _ body: (UInt64) throws -> Bool
    ) throws {
        try forEachSecondKey(in: memberSpace(of: link), first: owner, in: txn, body)
    }

    /// The space of a to-many's entries: pairs whose first key is the owner.
    func memberSpace(of link: RelationshipLink) -> StorageSpace {
        storage(of: link).memberSpace(in: self)
    }

    /// The second keys of the 16-byte pair entries whose first key is `first`.
    func forEachSecondKey(
        in space: StorageSpace, first: UInt64, in txn: StoreTransaction, _ body: (UInt64) throws -> Bool
    ) throws {
        try space.forEach(in: txn, range: .prefix(StoreLayout.key(first))) { entry in
            guard entry.key.count == 16 else {
                throw KuraError.corruptStore(path: path, reason: "a relationship entry has a \(entry.key.count)-byte key")
            }
            return try body(StoreLayout.secondKey(of: entry.key))
        }
    }
}
