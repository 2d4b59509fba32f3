/// What an object knows of one of its relationships.
enum RelationshipState {
    /// Nothing read or changed yet: a to-one's destination is in the
    /// record, a to-many's members are in the store.
    case unloaded
    /// A to-one's current destination.
    case toOne(ManagedObject?)
    /// A to-many's members, as far as they were read, and its changes.
    case toMany(ToManyState)
}

/// A to-many's members and changes. The changes are kept as two net lists
/// relative to the stored members, whether or not those were read, so a
/// context can add an object to a large to-many (maintaining an inverse,
/// say) without reading its members, and a save writes only what changed.
final class ToManyState {
    /// The members and changes, in one value: the only unchecked state of a
    /// to-many (see ``ManagedObject/_state``).
    #if !InternalChecks
    @exclusivity(unchecked)
    #endif
    var _lists = _Lists()

    /// The fields of ``_lists``, each read through the property of its name.
    struct _Lists {
        var members: [ManagedObject]?
        var memberIDs: Set<IdentityKey>?
        var added: [IdentityKey: ManagedObject] = [:]
        var removed: [IdentityKey: ManagedObject] = [:]
        var placed: [IdentityKey: ManagedObject] = [:]
        var unreadEnds: [(object: ManagedObject, atFront: Bool)] = []
    }

    /// The current members in order, once read.
    private(set) var members: [ManagedObject]? {
        @inline(__always) _read { yield _lists.members }
        @inline(__always) _modify { yield &_lists.members }
    }
    /// The identities of `members`, made when a large to-many is first asked
    /// whether it holds an object (reading members doesn't pay for it).
    private var memberIDs: Set<IdentityKey>? {
        @inline(__always) _read { yield _lists.memberIDs }
        @inline(__always) _modify { yield &_lists.memberIDs }
    }
    /// Objects added since the members were stored (never stored members).
    var added: [IdentityKey: ManagedObject] {
        @inline(__always) _read { yield _lists.added }
        @inline(__always) _modify { yield &_lists.added }
    }
    /// Stored members removed since.
    var removed: [IdentityKey: ManagedObject] {
        @inline(__always) _read { yield _lists.removed }
        @inline(__always) _modify { yield &_lists.removed }
    }
    /// For an ordered to-many: members put at a place of their own (an
    /// insert at a position, a move, a stored member taken out and added
    /// again). A save places them, and the added ones, after the member
    /// before them; the others keep their stored order keys.
    var placed: [IdentityKey: ManagedObject] {
        @inline(__always) _read { yield _lists.placed }
        @inline(__always) _modify { yield &_lists.placed }
    }
    /// For an ordered to-many whose members weren't read: the objects
    /// added at an end (first or last), in turn. A save puts them there;
    /// reading the members puts them there too (see ``pendingEnds()``).
    var unreadEnds: [(object: ManagedObject, atFront: Bool)] {
        @inline(__always) _read { yield _lists.unreadEnds }
        @inline(__always) _modify { yield &_lists.unreadEnds }
    }

    /// Replaces the members (`nil`: read them again when needed).
    func setMembers(_ members: [ManagedObject]?) {
        self.members = members
        memberIDs = nil
        if members != nil { unreadEnds = [] }  // (the members hold them now)
    }

    /// Whether `object` is one of the read members.
    func isMember(_ object: ManagedObject) -> Bool {
        guard let members else { return false }
        if members.count <= 16 { return members.contains { $0 === object } }
        if memberIDs == nil { memberIDs = Set(members.lazy.map(IdentityKey.init)) }
        return memberIDs!.contains(IdentityKey(object))
    }

    /// Puts `object` among the read members, at `position` or at the end.
    func insertMember(_ object: ManagedObject, at position: Int?) {
        guard members != nil else { return }
        members!.insert(object, at: position.map { min(max(0, $0), members!.count) } ?? members!.count)
        memberIDs?.insert(IdentityKey(object))
    }

    /// Takes `object` out of the read members.
    func removeMember(_ object: ManagedObject) {
        members?.removeAll { $0 === object }
        memberIDs?.remove(IdentityKey(object))
    }

    /// True when the members differ from the stored ones.
    var hasChanges: Bool { !added.isEmpty || !removed.isEmpty || !placed.isEmpty }

    /// Records that `object` joined; undoes its removal if it was a stored member.
    func noteAdded(_ object: ManagedObject) {
        let identity = IdentityKey(object)
        // Checked for emptiness first: removing from an empty dictionary still hashes the key.
        if removed.isEmpty || removed.removeValue(forKey: identity) == nil { added[identity] = object }
    }

    /// Records that `object` left; undoes its addition if it was new.
    func noteRemoved(_ object: ManagedObject) {
        let identity = IdentityKey(object)
        if added.isEmpty || added.removeValue(forKey: identity) == nil { removed[identity] = object }
        if !placed.isEmpty { placed.removeValue(forKey: identity) }
    }

    /// Forgets the changes, once saved.
    func adoptSaved() {
        added = [:]
        removed = [:]
        placed = [:]
        unreadEnds = []
    }
}

/// An object's relationship states, one per relationship of its entity, in
/// one allocation made the first time a relationship is used. (A
/// `ContiguousArray` of a Kura type costs a generic metadata lookup per
/// allocation; this class's is static.)
final class RelationshipStates: ManagedBuffer<Int, RelationshipState> {
    /// The states of an object none of whose relationships was used. Shared
    /// by every such object, and never written to (it has no states).
    nonisolated(unsafe) static let empty = make(count: 0)

    /// `count` states, all ``RelationshipState/unloaded``.
    static func make(count: Int) -> RelationshipStates {
        let buffer = unsafeDowncast(create(minimumCapacity: count) { _ in count }, to: RelationshipStates.self)
        buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: .unloaded, count: count) }
        return buffer
    }

    deinit {
        withUnsafeMutablePointers { count, states in _ = states.deinitialize(count: count.pointee) }
    }

    // The header and elements are read through pointers: `header` is a
    // class property, checked for exclusive access at run time on each use.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee } }
    var isEmpty: Bool { count == 0 }

    subscript(number: Int) -> RelationshipState {
        get {
            withUnsafeMutablePointers { count, states in
                precondition(number >= 0 && number < count.pointee)
                return states[number]
            }
        }
        set {
            withUnsafeMutablePointers { count, states in
                precondition(number >= 0 && number < count.pointee)
                states[number] = newValue
            }
        }
    }
}
