/// A to-one: the destination's primary key in the source's record (a
/// reference field after the attributes), and an entry (destination key,
/// source key) in `kura.ref.ENTITY.NAME`, so the objects pointing at a
/// destination are found without a scan. A to-many whose inverse is a
/// to-one reads its members from these entries (``InverseReferences``).
final class ToOneReferences: RelationshipStorage {
    let link: RelationshipLink
    /// The entries (destination key, source key).
    let references: StorageSpace

    static func spaceNames(of link: RelationshipLink) -> [RelationshipSpaceName] {
        [link.spaceName(StoreLayout.referenceSpaceName, part: "references")]
    }

    init(link: RelationshipLink, spaces: [StorageSpace], format: UInt32) {
        self.link = link
        references = spaces[0]
    }

    var spaces: [StorageSpace] { [references] }

    func moveReference(of source: UInt64, from old: UInt64?, to new: UInt64?, in txn: StoreTransaction) throws {
        guard old != new else { return }
        if let old { try references.deletePair(old, source, in: txn) }
        if let new { try references.putPair(new, source, in: txn) }
    }

    func sourceKeys(
        pointingTo keys: [UInt64], cap: Int, store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64]? {
        try secondKeys(in: references, under: keys, cap: cap, store: store, in: txn)
    }

    /// Each reference points to an existing object (one left by a
    /// `noAction` delete rule is counted apart); the entries hold exactly
    /// the records' references; a one-to-one's two sides point at each other.
    func check(in store: PersistentStore, _ txn: StoreTransaction, _ checks: inout RelationshipChecks) throws {
        var expected = Set<[UInt8]>()
        for (owner, destination) in try referencePairs(store: store, in: txn) {
            expected.insert(StoreLayout.pairKey(destination, owner))
            if try !store.exists(destination, of: link.destination, in: txn) {
                checks.missing(owner, destination, of: link)
            } else if let inverse = link.inverse, !inverse.isToMany {
                let back = try reference(inverse, of: destination, store: store, in: txn)
                if back != owner {
                    checks.problem("\(checks.label) of record \(owner) points to \(link.destination.name) \(destination), whose \(inverse.name) points to \(back.map(String.init) ?? "nothing")")
                }
            }
        }
        var entries = 0
        try references.forEach(in: txn, readAhead: .max) { entry in
            entries += 1
            if expected.remove(Array(entry.key)) == nil {
                checks.problem("\(checks.label): an index entry names a reference no record holds")
            }
            return true
        }
        if !expected.isEmpty { checks.problem("\(checks.label): \(expected.count) references have no index entry") }
        checks.report.relationshipEntries[link.name] = entries
    }

    func entryCount(in txn: StoreTransaction) throws -> Int? {
        try references.count(in: txn)
    }

    /// Each source with its destination.
    func allMembers(store: PersistentStore, in txn: StoreTransaction) throws -> [(owner: UInt64, members: [UInt64])] {
        try pairsByFirstKey(in: references, reversed: true, txn).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    static var keepsMemberEntries: Bool { false }

    static var isRebuilt: Bool { true }

    /// An owner with several members (a to-many made a to-one) fails the migration, naming them.
    func rebuild(
        from pairs: [(owner: UInt64, members: [UInt64])], store: PersistentStore, in txn: StoreTransaction
    ) throws -> [UInt64: UInt64]? {
        var several: [ObjectID] = []
        var moved: [UInt64: UInt64] = [:]
        for (owner, members) in pairs where !members.isEmpty {
            if members.count > 1 {
                several.append(ObjectID(entity: link.source, number: owner, isTemporaryID: false))
                continue
            }
            moved[owner] = members[0]
            try references.putPair(members[0], owner, in: txn)
        }
        guard several.isEmpty else {
            throw KuraError.migrationFailed(path: store.path, failures: [MigrationFailure(.severalDestinationsForToOne(
                entity: link.source.name, relationship: link.name, objectIDs: Array(several.prefix(MigrationRun.namedObjects))))])
        }
        return moved
    }

    /// Every (record, destination) pair the records hold.
    /// Every record of the source's family below it holds the reference
    /// at the same field (see ``EntityFamily``).
    private func referencePairs(store: PersistentStore, in txn: StoreTransaction) throws -> [(UInt64, UInt64)] {
        var pairs: [(UInt64, UInt64)] = []
        for entity in link.source.descendantsIncludingSelf {
            try store.spaces(for: entity).records.forEach(in: txn, readAhead: .max) { entry in
                guard entry.key.count == 8 else { return true }
                guard let view = try? RecordView(checkingHeader: entry.value, entity: entity) else {
                    return true  // reported by the record check
                }
                if let destination = view.reference(link.field!) {
                    pairs.append((StoreLayout.primaryKey(fromSuffixOf: entry.key), destination))
                }
                return true
            }
        }
        return pairs
    }

    /// The destination a to-one of the record `owner` holds.
    private func reference(
        _ link: RelationshipLink, of owner: UInt64, store: PersistentStore, in txn: StoreTransaction
    ) throws -> UInt64? {
        let entity = link.source.concreteEntity(forKey: owner)
        let found: UInt64?? = try store.spaces(for: entity).records.withValue(forKey: StoreLayout.key(owner), in: txn) { bytes in
            try? RecordView(checkingHeader: bytes, entity: entity).reference(link.field!)
        }
        return found ?? nil
    }
}
