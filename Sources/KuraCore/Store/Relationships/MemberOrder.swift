import KuraKeys

/// The order of an ordered to-many's members, kept beside its entries
/// (whichever kind keeps those) in `kura.order.ENTITY.NAME`: two entries
/// per member, under the owner's key,
///
/// - (owner, 0, order key) → member key: the members in order, one range read;
/// - (owner, 1, member key) → order key: where a member is, to move or remove it.
///
/// Order keys leave room between them (see ``OrderKeys``), so an append, an
/// insert, a move or a removal writes a bounded number of entries whatever
/// the list's length. Membership is what the relationship's entries say;
/// the order only orders it.
///
/// Stores of format 4 and older kept one list per owner instead (the owner's
/// 8-byte key → all its members' keys): read as they are when opened
/// read-only (``isLegacy``), converted when opened read-write
/// (``PersistentStore/upgradeFormat()``).
struct MemberOrder: Sendable {
    let space: StorageSpace
    /// True for a store of an older format, read as it is: one list per owner.
    let isLegacy: Bool

    static func spaceNames(of link: RelationshipLink) -> [RelationshipSpaceName] {
        link.isOrdered ? [link.spaceName(StoreLayout.orderSpaceName, part: "order")] : []
    }

    /// The order of `link`, the last of `spaces`, or `nil` when it isn't ordered.
    init?(link: RelationshipLink, spaces: [StorageSpace], format: UInt32) {
        guard link.isOrdered, let space = spaces.last else { return nil }
        self.space = space
        isLegacy = format < StoreLayout.orderKeysFormatVersion
    }

    // MARK: Writing

    /// A save's change: the removed members' entries go, then each
    /// placement puts its member where it says, in turn.
    ///
    /// What the write itself knows isn't read again (``Known``): a new
    /// owner has no entries and a new member no place; a member placed
    /// right after the one placed before it goes between that one's key and
    /// the key that followed it; an append follows the last key. So a new
    /// list of any length, or a run of appends, is written without a read
    /// (on PostgreSQL, a read is a round trip, and sends the writes
    /// buffered before it).
    func write(_ change: MembershipWrite, in txn: StoreTransaction) throws {
        precondition(!isLegacy, "a store of an older format is upgraded before it is written")
        var known = Known(ownerIsNew: change.ownerIsNew, newMembers: change.newMembers)
        for member in change.removed { try remove(member, of: change.owner, known: &known, in: txn) }
        for placement in change.placements { try place(placement, of: change.owner, known: &known, in: txn) }
    }

    /// What a write knows of its owner's order without reading it.
    struct Known {
        /// Nothing is stored under the owner but what this write put.
        let ownerIsNew: Bool
        /// Members no order names but as this write put them.
        let newMembers: Set<UInt64>
        /// The key of each member this write placed (a spread's new keys included).
        var placed: [UInt64: UInt64] = [:]
        /// The member placed last, its key, and the key after it (`nil`: the end).
        var last: (member: UInt64, key: UInt64, next: UInt64?)?
        /// A key at or after the order's last one, once known (`.some(nil)`:
        /// the order is empty). A removal may leave it past the end, which
        /// an append doesn't mind: its key only has to follow every other.
        var end: UInt64??

        init(ownerIsNew: Bool, newMembers: Set<UInt64>) {
            self.ownerIsNew = ownerIsNew
            self.newMembers = newMembers
            if ownerIsNew { end = .some(nil) }
        }

        /// `member`'s key (`.some(nil)`: none) when known without a read.
        func place(of member: UInt64) -> UInt64?? {
            if let key = placed[member] { return .some(key) }
            return ownerIsNew || newMembers.contains(member) ? .some(nil) : nil
        }

        /// The order's first key (`.some(nil)`: empty) when known without a
        /// read: a new owner's entries are the ones this write placed.
        var first: UInt64?? {
            ownerIsNew ? .some(placed.values.min()) : nil
        }

        /// A key at or after the order's last one when known without a read.
        var lastKey: UInt64?? {
            end ?? (ownerIsNew ? .some(placed.values.max()) : nil)
        }
    }

    /// Removes every entry of an owner being deleted.
    func remove(_ owner: UInt64, in txn: StoreTransaction) throws {
        var keys: [[UInt8]] = []
        try space.forEach(in: txn, range: .prefix(StoreLayout.key(owner))) { keys.append(Array($0.key)); return true }
        for key in keys { try space.delete(key, in: txn) }
    }

    /// Writes an owner's whole order, evenly spaced (a migration's rebuild,
    /// an upgrade): its spaces hold nothing of the owner yet.
    func writeWhole(_ members: [UInt64], of owner: UInt64, in txn: StoreTransaction) throws {
        for (member, key) in zip(members, OrderKeys.fresh(count: members.count)) {
            try put(member, at: key, of: owner, in: txn)
        }
    }

    /// Takes `member` out of the order (if it is there).
    private func remove(_ member: UInt64, of owner: UInt64, known: inout Known, in txn: StoreTransaction) throws {
        let found = try known.place(of: member) ?? orderKey(of: member, owner: owner, in: txn)
        guard let key = found else { return }
        try space.delete(Self.entryKey(owner, .sequence, key), in: txn)
        try space.delete(Self.entryKey(owner, .position, member), in: txn)
        known.placed[member] = nil
        if known.last?.member == member { known.last = nil }
    }

    private func put(_ member: UInt64, at key: UInt64, of owner: UInt64, in txn: StoreTransaction) throws {
        try space.put(StoreLayout.key(member), forKey: Self.entryKey(owner, .sequence, key), in: txn)
        try space.put(StoreLayout.key(key), forKey: Self.entryKey(owner, .position, member), in: txn)
    }

    /// Puts a member where `placement` says (moving it if it is there
    /// already): between two order keys when they have room, else after
    /// spreading out the members around the place (``spread(_:of:after:before:in:)``).
    private func place(_ placement: OrderPlacement, of owner: UInt64, known: inout Known, in txn: StoreTransaction) throws {
        let member = placement.member
        try remove(member, of: owner, known: &known, in: txn)
        func last() throws -> UInt64? {
            try known.lastKey ?? edge(of: owner, .reverse, in: txn)?.key
        }
        var after: UInt64?
        var before: UInt64?
        switch placement {
        case .atEnd:
            after = try last()
        case .after(_, let anchor?) where known.last?.member == anchor:
            (after, before) = (known.last!.key, known.last!.next)
        case .after(_, let anchor?):
            if let key = try known.place(of: anchor) ?? orderKey(of: anchor, owner: owner, in: txn) {
                after = key
                before = try neighbours(of: owner, from: key, .forward, inclusive: false, limit: 1, in: txn).first?.key
            } else {
                // The member it follows left the list (another save took it out): at the end.
                after = try last()
            }
        case .after(_, nil):
            before = try known.first ?? edge(of: owner, .forward, in: txn)?.key
        }
        guard let key = OrderKeys.between(after, before) else {
            for (member, key) in try spread(member, of: owner, after: after, before: before, in: txn) {
                known.placed[member] = key
            }
            known.last = nil
            known.end = nil
            return
        }
        try put(member, at: key, of: owner, in: txn)
        known.placed[member] = key
        known.last = (member, key, before)
        if before == nil { known.end = .some(key) }
    }

    /// Makes room for `member` between the order keys `after` and `before`
    /// (adjacent, with none free between them): the members around the
    /// place, a window doubled until its keys have room for every member
    /// of it at ``OrderKeys/minimumGap``, are given keys evenly spread over
    /// the window's range, `member` among them. Rare: appends and inserts
    /// at the front take keys a ``OrderKeys/gap`` away, and an insert
    /// halves a gap, so a place fills after some 20 inserts there.
    /// Returns the members given keys, with their keys.
    private func spread(
        _ member: UInt64, of owner: UInt64, after: UInt64?, before: UInt64?, in txn: StoreTransaction
    ) throws -> [(member: UInt64, key: UInt64)] {
        var reach = 1
        while true {
            let lower = try after.map { try neighbours(of: owner, from: $0, .reverse, inclusive: true, limit: reach + 1, in: txn) } ?? []
            let upper = try before.map { try neighbours(of: owner, from: $0, .forward, inclusive: true, limit: reach + 1, in: txn) } ?? []
            // The keys just outside the window (`nil`: it reaches that end of the list).
            let low = lower.count > reach ? lower[reach].key : nil
            let high = upper.count > reach ? upper[reach].key : nil
            let window = lower.prefix(reach).reversed().map(\.member) + [member] + upper.prefix(reach).map(\.member)
            let wholeList = lower.count <= reach && upper.count <= reach
            if let keys = OrderKeys.spread(
                count: window.count, between: low, and: high, minimumGap: wholeList ? 1 : OrderKeys.minimumGap
            ) {
                for entry in lower.prefix(reach) + upper.prefix(reach) {
                    try space.delete(Self.entryKey(owner, .sequence, entry.key), in: txn)
                }
                for (member, key) in zip(window, keys) { try put(member, at: key, of: owner, in: txn) }
                return Array(zip(window, keys))
            }
            reach *= 2
        }
    }

    // MARK: Reading

    /// `keys` (an owner's members, ascending) in the stored order: the
    /// order gives the order, the entries membership; members the order
    /// doesn't name follow, ascending.
    func ordered(_ keys: [UInt64], of owner: UInt64, in txn: StoreTransaction) throws -> [UInt64] {
        Self.arrange(keys, listed: try isLegacy ? legacyList(of: owner, in: txn) : sequence(of: owner, in: txn))
    }

    /// `keys` (members, ascending) in the order of `listed`, each once;
    /// those `listed` doesn't name follow, ascending.
    static func arrange(_ keys: [UInt64], listed: [UInt64]) -> [UInt64] {
        let members = Set(keys)
        var seen = Set<UInt64>()
        var ordered = listed.filter { members.contains($0) && seen.insert($0).inserted }
        if ordered.count != keys.count {
            ordered += keys.filter { !seen.contains($0) }
        }
        return ordered
    }

    /// The members the order holds for `owner`, in order.
    private func sequence(of owner: UInt64, in txn: StoreTransaction) throws -> [UInt64] {
        var members: [UInt64] = []
        try space.forEach(in: txn, range: .prefix(StoreLayout.key(owner) + [Tag.sequence.rawValue])) { entry in
            members.append(StoreLayout.primaryKey(fromSuffixOf: entry.value))
            return true
        }
        return members
    }

    private func orderKey(of member: UInt64, owner: UInt64, in txn: StoreTransaction) throws -> UInt64? {
        try space.withValue(forKey: Self.entryKey(owner, .position, member), in: txn) { StoreLayout.primaryKey(fromSuffixOf: $0) }
    }

    /// The first (`.forward`) or last (`.reverse`) member of the order.
    private func edge(
        of owner: UInt64, _ direction: IterationDirection, in txn: StoreTransaction
    ) throws -> (key: UInt64, member: UInt64)? {
        var found: (key: UInt64, member: UInt64)?
        try space.forEach(in: txn, range: .prefix(StoreLayout.key(owner) + [Tag.sequence.rawValue]), direction: direction) { entry in
            found = (Self.orderKey(ofEntry: entry.key), StoreLayout.primaryKey(fromSuffixOf: entry.value))
            return false
        }
        return found
    }

    /// Up to `limit` members from order key `key` on, in `direction`.
    private func neighbours(
        of owner: UInt64, from key: UInt64, _ direction: IterationDirection, inclusive: Bool, limit: Int,
        in txn: StoreTransaction
    ) throws -> [(key: UInt64, member: UInt64)] {
        let prefix = StoreLayout.key(owner) + [Tag.sequence.rawValue]
        let start = KeyRange.Bound(Self.entryKey(owner, .sequence, key), isInclusive: inclusive)
        let range = direction == .forward
            ? KeyRange(lower: start, upper: KeyRange.successor(ofPrefix: prefix).map { KeyRange.Bound($0, isInclusive: false) })
            : KeyRange(lower: KeyRange.Bound(prefix, isInclusive: true), upper: start)
        var found: [(key: UInt64, member: UInt64)] = []
        try space.forEach(in: txn, range: range, direction: direction) { entry in
            found.append((Self.orderKey(ofEntry: entry.key), StoreLayout.primaryKey(fromSuffixOf: entry.value)))
            return found.count < limit
        }
        return found
    }

    // MARK: Layout

    /// What an entry under an owner's key holds.
    enum Tag: UInt8 {
        /// (owner, 0, order key) → member key.
        case sequence = 0
        /// (owner, 1, member key) → order key.
        case position = 1
    }

    /// An entry's key: the owner's key, the tag, then an order key or a member key (17 bytes).
    static func entryKey(_ owner: UInt64, _ tag: Tag, _ value: UInt64) -> [UInt8] {
        StoreLayout.key(owner) + [tag.rawValue] + StoreLayout.key(value)
    }

    static let entryKeyCount = 17

    private static func orderKey(ofEntry key: UnsafeRawBufferPointer) -> UInt64 {
        StoreLayout.primaryKey(fromSuffixOf: key)
    }

    // MARK: The older format

    /// An owner's list, as stores of format 4 and older keep it.
    private func legacyList(of owner: UInt64, in txn: StoreTransaction) throws -> [UInt64] {
        try StoreLayout.withKey(owner) { key in
            try space.withValue(forKey: key, in: txn) { StoreLayout.keys(fromList: $0) }
        } ?? []
    }

    /// Every owner's list, as stores of format 4 and older keep them (the upgrade's input).
    func legacyLists(in txn: StoreTransaction) throws -> [UInt64: [UInt64]] {
        var lists: [UInt64: [UInt64]] = [:]
        try space.forEach(in: txn, readAhead: .max) { entry in
            if entry.key.count == 8 { lists[StoreLayout.primaryKey(fromSuffixOf: entry.key)] = StoreLayout.keys(fromList: entry.value) }
            return true
        }
        return lists
    }
}

/// Where a save puts a member of an ordered to-many (member keys resolved).
enum OrderPlacement: Equatable {
    /// After the last member.
    case atEnd(UInt64)
    /// Right after `anchor` (first when `nil`). An anchor that isn't in the
    /// order (another save took it out) puts the member at the end.
    case after(UInt64, anchor: UInt64?)

    var member: UInt64 {
        switch self {
        case .atEnd(let member), .after(let member, _): member
        }
    }
}

extension RelationshipStorage {
    /// Every owner of a to-many with its members, ascending by owner: the
    /// pairs (owner, member) of `space`, put in `order` when it has one.
    func owners(
        in space: StorageSpace, orderedBy order: MemberOrder?, _ txn: StoreTransaction
    ) throws -> [(owner: UInt64, members: [UInt64])] {
        var byOwner = try pairsByFirstKey(in: space, txn)
        if let order {
            for (owner, keys) in byOwner { byOwner[owner] = try order.ordered(keys, of: owner, in: txn) }
        }
        return byOwner.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
