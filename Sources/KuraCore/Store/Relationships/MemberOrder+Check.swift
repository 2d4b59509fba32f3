extension MemberOrder {
    /// Each owner's order names exactly its members, once each, and each
    /// member's two entries agree.
    func check(
        of storage: some RelationshipStorage, store: PersistentStore, _ txn: StoreTransaction, _ checks: inout RelationshipChecks
    ) throws {
        let memberSpace = storage.memberSpace(in: store)
        func compare(_ owner: UInt64, listed: [UInt64]) throws {
            var members: [UInt64] = []
            try store.forEachSecondKey(in: memberSpace, first: owner, in: txn) { members.append($0); return true }
            if Set(listed) != Set(members) || listed.count != Set(listed).count {
                checks.problem("\(checks.label): the order of record \(owner) lists \(listed.count) members, its entries \(members.count)")
            }
        }
        if isLegacy {
            for (owner, listed) in try legacyLists(in: txn).sorted(by: { $0.key < $1.key }) { try compare(owner, listed: listed) }
            return
        }
        var sequences: [UInt64: [(key: UInt64, member: UInt64)]] = [:]
        var positions: [UInt64: [UInt64: UInt64]] = [:]
        var malformed = 0
        try space.forEach(in: txn, readAhead: .max) { entry in
            guard entry.key.count == Self.entryKeyCount, entry.value.count == 8, let tag = Tag(rawValue: entry.key[8]) else {
                malformed += 1
                return true
            }
            let owner = UInt64(bigEndian: entry.key.loadUnaligned(as: UInt64.self))
            let second = StoreLayout.primaryKey(fromSuffixOf: entry.key)
            let value = StoreLayout.primaryKey(fromSuffixOf: entry.value)
            switch tag {
            case .sequence: sequences[owner, default: []].append((second, value))
            case .position: positions[owner, default: [:]][second] = value
            }
            return true
        }
        if malformed > 0 {
            checks.problem("\(checks.label): \(malformed) order entries are malformed")
        }
        for owner in Set(sequences.keys).union(positions.keys).sorted() {
            let sequence = sequences[owner] ?? []
            let position = positions[owner] ?? [:]
            try compare(owner, listed: sequence.map(\.member))
            let agreeing = sequence.filter { position[$0.member] == $0.key }.count
            if agreeing != sequence.count || position.count != sequence.count {
                checks.problem("\(checks.label): the order of record \(owner) has \(sequence.count) members in order, \(position.count) positions, \(agreeing) agreeing")
            }
        }
    }
}
