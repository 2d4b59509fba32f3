extension PersistentStore {
    /// The spaces of a relationship.
    func spaces(of link: RelationshipLink) -> RelationshipSpaces {
        spaces(for: link.source).relationships[link.number]
    }

    /// The stored members of the to-many `link` of the object `owner`: their
    /// primary keys, in the stored order for an ordered relationship, else
    /// ascending.
    func memberKeys(of link: RelationshipLink, owner: UInt64, in txn: any StorageTransaction) throws -> [UInt64] {
        var keys: [UInt64] = []
        try forEachMemberKey(of: link, owner: owner, in: txn) { key in
            keys.append(key)
            return true
        }
        guard link.isOrdered, let order = spaces(of: link).order else { return keys }
        let listed = try StoreLayout.withKey(owner) { key in
            try order.withValue(forKey: key, in: txn) { StoreLayout.keys(fromList: $0) }
        } ?? []
        // The list gives the order; membership is what the entries say.
        let members = Set(keys)
        var ordered = listed.filter { members.contains($0) }
        if ordered.count != keys.count {
            let seen = Set(ordered)
            ordered += keys.filter { !seen.contains($0) }
        }
        return ordered
    }

    /// Calls `body` with each stored member key of a to-many, ascending,
    /// until it returns false. No record is read.
    func forEachMemberKey(
        of link: RelationshipLink, owner: UInt64, in txn: any StorageTransaction, _ body: (UInt64) throws -> Bool
    ) throws {
        try forEachSecondKey(in: memberSpace(of: link), first: owner, in: txn, body)
    }

    /// The space of a to-many's entries: pairs whose first key is the owner.
    func memberSpace(of link: RelationshipLink) -> StorageSpace {
        switch link.storage {
        case .reference:
            preconditionFailure("\(link.name) is a to-one")
        case .inverseOfReference:
            spaces(of: link.inverse!).references!
        case .join:
            spaces(of: link).join!
        }
    }

    /// The second keys of the 16-byte pair entries whose first key is `first`.
    func forEachSecondKey(
        in space: StorageSpace, first: UInt64, in txn: any StorageTransaction, _ body: (UInt64) throws -> Bool
    ) throws {
        try space.forEach(in: txn, range: .prefix(StoreLayout.key(first))) { entry in
            guard entry.key.count == 16 else {
                throw KuraError.corruptStore(path: path, reason: "a relationship entry has a \(entry.key.count)-byte key")
            }
            return try body(StoreLayout.secondKey(of: entry.key))
        }
    }
}
