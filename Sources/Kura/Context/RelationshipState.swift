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
    /// The current members in order, once read.
    @exclusivity(unchecked) var members: [ManagedObject]?
    /// The identities of `members`.
    @exclusivity(unchecked) var memberIDs: Set<ObjectIdentifier> = []
    /// Objects added since the members were stored (never stored members).
    @exclusivity(unchecked) var added: [ObjectIdentifier: ManagedObject] = [:]
    /// Stored members removed since.
    @exclusivity(unchecked) var removed: [ObjectIdentifier: ManagedObject] = [:]
    /// For an ordered to-many: the order was changed.
    @exclusivity(unchecked) var isReordered = false

    /// True when the members differ from the stored ones.
    var hasChanges: Bool { !added.isEmpty || !removed.isEmpty || isReordered }

    /// Records that `object` joined; undoes its removal if it was a stored member.
    func noteAdded(_ object: ManagedObject) {
        let identity = ObjectIdentifier(object)
        if removed.removeValue(forKey: identity) == nil { added[identity] = object }
    }

    /// Records that `object` left; undoes its addition if it was new.
    func noteRemoved(_ object: ManagedObject) {
        let identity = ObjectIdentifier(object)
        if added.removeValue(forKey: identity) == nil { removed[identity] = object }
    }
}
