extension PersistentStore {
    /// Checks every relationship of `entity`: each reference points to an
    /// existing object (a reference left by a `noAction` delete rule is
    /// counted apart, not a problem); each to-one's index holds exactly its
    /// references; a one-to-one's two sides point at each other; each
    /// joined to-many's entries name existing objects and match their other
    /// side (the inverse's entries, or the reverse entries of a to-many
    /// without inverse); each ordered to-many's order lists exactly its members.
    func checkRelationships(
        of entity: EntityDescription, in txn: any StorageTransaction, readable: (String) -> Bool,
        problem: (String) -> Void, report: inout StoreCheckReport.EntityReport
    ) throws {
        let spaces = spaces(for: entity)
        for linkSpaces in spaces.relationships {
            let link = linkSpaces.link
            let names = RelationshipSpaces.spaceNames(of: link)
            let spaceNames = [names.references, names.join, names.reverseJoin, names.order].compactMap { $0 }
            guard spaceNames.allSatisfy(readable) else {
                problem("\(entity.name).\(link.name): its entries' pages are damaged; it was not checked")
                continue
            }
            let label = "\(entity.name).\(link.name)"
            // A dangling reference is expected where the other side's delete rule is no action.
            let mayDangle = link.inverse?.description.deleteRule == .noAction
            func exists(_ destination: UInt64) throws -> Bool {
                try self.spaces(for: link.destination).records.contains(StoreLayout.key(destination), in: txn)
            }
            func missing(_ owner: UInt64, _ destination: UInt64) {
                if mayDangle {
                    report.danglingReferences += 1
                } else {
                    problem("\(label) of record \(owner) points to \(link.destination.name) \(destination), which doesn't exist")
                }
            }
            switch link.storage {
            case .reference:
                var expected = Set<[UInt8]>()
                for (owner, destination) in try references(of: link, in: txn) {
                    expected.insert(StoreLayout.pairKey(destination, owner))
                    if try !exists(destination) {
                        missing(owner, destination)
                    } else if let inverse = link.inverse, !inverse.isToMany {
                        // One-to-one: the destination points back.
                        let back = try reference(inverse, of: destination, in: txn)
                        if back != owner {
                            problem("\(label) of record \(owner) points to \(link.destination.name) \(destination), whose \(inverse.name) points to \(back.map(String.init) ?? "nothing")")
                        }
                    }
                }
                var entries = 0
                try linkSpaces.references!.forEach(in: txn, readAhead: .max) { entry in
                    entries += 1
                    if expected.remove(Array(entry.key)) == nil {
                        problem("\(label): an index entry names a reference no record holds")
                    }
                    return true
                }
                if !expected.isEmpty { problem("\(label): \(expected.count) references have no index entry") }
                report.relationshipEntries[link.name] = entries
            case .join:
                var entries = 0
                var pairs: [(UInt64, UInt64)] = []
                try linkSpaces.join!.forEach(in: txn, readAhead: .max) { entry in
                    entries += 1
                    guard entry.key.count == 16 else {
                        problem("\(label): an entry has a \(entry.key.count)-byte key")
                        return true
                    }
                    pairs.append((StoreLayout.primaryKey(fromSuffixOf: UnsafeRawBufferPointer(rebasing: entry.key.prefix(8))),
                                  StoreLayout.secondKey(of: entry.key)))
                    return true
                }
                let other: StorageSpace? = link.inverse.map { self.spaces(of: $0).join! } ?? linkSpaces.reverseJoin
                for (owner, member) in pairs {
                    if try !spaces.records.contains(StoreLayout.key(owner), in: txn) {
                        problem("\(label): an entry names record \(owner), which doesn't exist")
                    }
                    if try !exists(member) { missing(owner, member) }
                    if let other, try !other.contains(StoreLayout.pairKey(member, owner), in: txn) {
                        problem("\(label): record \(owner) holds \(link.destination.name) \(member), but the other side doesn't hold it")
                    }
                }
                if let reverse = linkSpaces.reverseJoin, try reverse.count(in: txn) != pairs.count {
                    problem("\(label): its reverse entries don't match its entries")
                }
                report.relationshipEntries[link.name] = entries
            case .inverseOfReference:
                break  // its entries are its inverse's, checked there
            }
            if let order = linkSpaces.order {
                try order.forEach(in: txn, readAhead: .max) { entry in
                    guard entry.key.count == 8 else { return true }
                    let owner = StoreLayout.primaryKey(fromSuffixOf: entry.key)
                    let listed = StoreLayout.keys(fromList: entry.value)
                    var members: [UInt64] = []
                    try forEachMemberKey(of: link, owner: owner, in: txn) { members.append($0); return true }
                    if Set(listed) != Set(members) || listed.count != Set(listed).count {
                        problem("\(label): the order of record \(owner) lists \(listed.count) members, its entries \(members.count)")
                    }
                    return true
                }
            }
        }
    }

    /// Every (record, destination) pair of a to-one's references.
    private func references(of link: RelationshipLink, in txn: any StorageTransaction) throws -> [(UInt64, UInt64)] {
        let entity = link.source
        var pairs: [(UInt64, UInt64)] = []
        try spaces(for: entity).records.forEach(in: txn, readAhead: .max) { entry in
            guard entry.key.count == 8 else { return true }
            let view: RecordView
            do {
                view = try RecordView(checkingHeader: entry.value, entity: entity)
            } catch {
                return true  // reported by the record check
            }
            if let destination = view.reference(link.field!) {
                pairs.append((StoreLayout.primaryKey(fromSuffixOf: entry.key), destination))
            }
            return true
        }
        return pairs
    }

    /// The destination a to-one of the record `owner` holds.
    private func reference(_ link: RelationshipLink, of owner: UInt64, in txn: any StorageTransaction) throws -> UInt64? {
        let entity = link.source
        let records = spaces(for: entity).records
        let found: UInt64?? = try records.withValue(forKey: StoreLayout.key(owner), in: txn) { bytes in
            do {
                return try RecordView(checkingHeader: bytes, entity: entity).reference(link.field!)
            } catch {
                return nil
            }
        }
        return found ?? nil
    }
}
