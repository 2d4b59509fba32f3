/// A view of one object's relationship, from
/// ``ManagedObject/mutableSetValue(forKey:)`` or a typed property's
/// projection (`author.$news`): what changes through it changes the
/// relationship and its inverse, and its errors are thrown, never fatal.
///
/// ``count`` of a to-many whose members weren't read and haven't changed
/// counts the stored entries without making an object for each member:
/// `author.$news.count` is the way to count a large to-many.
public struct RelationshipMembers {
    let owner: ManagedObject
    let link: RelationshipLink

    /// The members, in order for an ordered relationship (a to-one: its destination, if any).
    public var objects: [ManagedObject] {
        get throws {
            if !link.isToMany { return try owner.destination(link).map { [$0] } ?? [] }
            return try owner.members(link)
        }
    }

    /// How many members there are.
    public var count: Int {
        get throws {
            if !link.isToMany { return try owner.destination(link) == nil ? 0 : 1 }
            return try owner.memberCount(link)
        }
    }

    /// Whether `object` is a member.
    public func contains(_ object: ManagedObject) throws -> Bool {
        if !link.isToMany { return try owner.destination(link) === object }
        _ = try owner.members(link)
        return owner.toManyState(link).isMember(object)
    }

    /// Adds `object` (at the end of an ordered relationship).
    public func insert(_ object: ManagedObject) throws {
        try requireToMany()
        try owner.addMember(object, link)
    }

    /// Adds `object` at `position` of an ordered relationship (or moves it there).
    ///
    /// As `Array.insert(_:at:)`: a new member goes at `0...count`, a member
    /// moves to `0..<count` (its place once it is taken out).
    ///
    /// - Throws: ``KuraError/invalidRelationship(_:)`` for a relationship
    ///   that isn't ordered, or a position out of that range: the member is
    ///   put nowhere else.
    public func insert(_ object: ManagedObject, at position: Int) throws {
        guard link.isOrdered else {
            throw KuraError.invalidRelationship("\(owner.entity.name).\(link.name) is not ordered")
        }
        if position == 0, owner.knownMembership(object, link) != nil {
            try owner.addMember(object, link, at: 0)  // put first without reading the members, whether it is one or not
        } else if try contains(object) {
            try checkPosition(position, within: try count - 1)
            try owner.moveMember(object, to: position, link)
        } else {
            try checkPosition(position, within: try count)
            try owner.addMember(object, link, at: position)
        }
    }

    private func checkPosition(_ position: Int, within last: Int) throws {
        guard position < 0 || position > last else { return }
        throw KuraError.invalidRelationship(
            "position \(position) of \(owner.entity.name).\(link.name) is out of range: it has \(try count) members, "
                + "so the position is from 0 through \(last)")
    }

    /// Removes `object`, if it is a member.
    public func remove(_ object: ManagedObject) throws {
        try requireToMany()
        try owner.removeMember(object, link)
    }

    /// Makes the members exactly `objects` (in that order, if ordered).
    public func set(_ objects: [ManagedObject]) throws {
        try requireToMany()
        try owner.setMembers(objects, link)
    }

    private func requireToMany() throws {
        guard link.isToMany else {
            throw KuraError.invalidRelationship("\(owner.entity.name).\(link.name) is a to-one relationship: use setObject(_:forKey:)")
        }
    }
}
