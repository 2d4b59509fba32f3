extension ManagedObject {
    // MARK: Dynamic access

    /// The destination of the to-one relationship called `key`: the
    /// context's object (a fault until its values are read), or `nil`.
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)`` for a key that is
    ///   not a to-one relationship; ``KuraError/objectDetached(_:)``; a store
    ///   error when the object is a fault whose record can't be read.
    public func object(forKey key: String) throws -> ManagedObject? {
        try destination(try toOneLink(key))
    }

    /// Sets the to-one relationship called `key`, and its inverse: `news.author
    /// = ann` puts `news` in `ann.news` and takes it out of the previous
    /// author's.
    ///
    /// - Throws: ``KuraError/objectInAnotherContext(_:)``,
    ///   ``KuraError/objectDetached(_:)``, ``KuraError/invalidRelationship(_:)``
    ///   for a destination of another entity or one deleted in the context.
    public func setObject(_ object: ManagedObject?, forKey key: String) throws {
        try setDestination(object, try toOneLink(key))
    }

    /// The members of the to-many relationship called `key`: in their order
    /// for an ordered one, else in primary-key order (new objects last).
    /// Reading them makes faults, not records.
    public func objects(forKey key: String) throws -> [ManagedObject] {
        try members(try toManyLink(key))
    }

    /// The IDs of the objects the relationship called `key` holds: a
    /// to-many's members in their order, a to-one's destination (none for
    /// `nil`), as Core Data's `objectIDs(forRelationshipNamed:)`. Unread and
    /// unchanged, they come straight from the stored record and entries,
    /// without an object or a fault for each (what an export of a million
    /// references wants); otherwise they are the IDs of what
    /// ``objects(forKey:)`` and ``object(forKey:)`` give.
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)`` for a key that
    ///   is not a relationship; ``KuraError/objectDetached(_:)``; a store error.
    public func objectIDs(forRelationshipNamed key: String) throws -> [ObjectID] {
        let link = try anyLink(key)
        switch try destinationIDs(link) {
        case .known(let ids): return ids
        case .storedMembers(let context): return link.destinationIDs(try context.memberKeys(of: link, owner: objectID.registryKey))
        }
    }

    /// The IDs of a relationship's destinations, or where to read them.
    enum DestinationIDs {
        /// Known without reading the store: a to-one's from the committed
        /// record, or any relationship's from its objects.
        case known([ObjectID])
        /// A to-many's stored members, unread and unchanged: the entries in
        /// the store, read through the context.
        case storedMembers(ManagedObjectContext)
    }

    /// The IDs of `link`'s destinations for ``objectIDs(forRelationshipNamed:)``:
    /// from the store when the relationship is unread and unchanged in a
    /// saved object, else from its objects.
    func destinationIDs(_ link: RelationshipLink) throws -> DestinationIDs {
        func throughObjects() throws -> DestinationIDs {
            .known(link.isToMany ? try members(link).map(\.objectID) : (try destination(link)).map { [$0.objectID] } ?? [])
        }
        // Members a `noAction` delete rule left behind read as gone: only objects tell.
        guard !link.mayOutliveDestinations, state == .persisted, let context = try requireContext() else { return try throughObjects() }
        if !relationshipStates.isEmpty {
            switch relationshipStates[link.number] {
            case .toMany(let toMany) where toMany.members != nil || toMany.hasChanges: return try throughObjects()
            case .toOne: return try throughObjects()
            default: break
            }
        }
        if link.isToMany { return .storedMembers(context) }
        guard record != nil else { return try throughObjects() }
        return .known(link.destinationIDs(committedDestinationKey(link).map { [$0] } ?? []))
    }

    /// The relationship called `key`, either kind.
    func anyLink(_ key: String) throws(KuraError) -> RelationshipLink {
        guard let link = entity.link(named: key) else { throw KuraError.unknownAttribute(entity: entity.name, key: key) }
        return link
    }

    /// A changeable view of the to-many relationship called `key`; adding
    /// and removing through it keeps the inverse in step, as Core Data's
    /// `mutableSetValue(forKey:)` and `mutableOrderedSetValue(forKey:)` do.
    ///
    /// ```swift
    /// let tags = try news.mutableSetValue(forKey: "tags")
    /// try tags.insert(swift)
    /// try tags.remove(linux)
    /// ```
    public func mutableSetValue(forKey key: String) throws -> RelationshipMembers {
        RelationshipMembers(owner: self, link: try toManyLink(key))
    }

    private func toOneLink(_ key: String) throws(KuraError) -> RelationshipLink {
        guard let link = entity.link(named: key), !link.isToMany else {
            throw entity.link(named: key) == nil ? KuraError.unknownAttribute(entity: entity.name, key: key)
                : KuraError.invalidRelationship("\(entity.name).\(key) is a to-many relationship: use objects(forKey:) or mutableSetValue(forKey:)")
        }
        return link
    }

    private func toManyLink(_ key: String) throws(KuraError) -> RelationshipLink {
        guard let link = entity.link(named: key), link.isToMany else {
            throw entity.link(named: key) == nil ? KuraError.unknownAttribute(entity: entity.name, key: key)
                : KuraError.invalidRelationship("\(entity.name).\(key) is a to-one relationship: use object(forKey:) or setObject(_:forKey:)")
        }
        return link
    }

    // MARK: Typed access (used by Relationship)

    /// While a probe object reads its properties to learn their names (see
    /// ``PropertyKeyPathNames``): notes the relationship's name, and returns
    /// a probe object of `destination` that goes on noting, so a key path
    /// through a to-one (`\Article.author?.name`) is read to its end (a
    /// to-many gives it as its one member). `nil` on any other object.
    @usableFromInline
    final func probeRelationship(storage keyPath: AnyKeyPath, destination: ManagedObject.Type, isToMany: Bool) -> ManagedObject? {
        guard let propertyProbe else { return nil }
        propertyProbe.names.append(AttributeKeyPaths.attributeName(of: keyPath))
        let probe = PropertyKeyPathNames.probeObject(of: destination, noting: propertyProbe)
        propertyProbe.given = isToMany ? .toMany(probe) : .toOne(probe)
        return probe
    }

    /// The relationship whose ``Relationship`` storage is `keyPath`.
    private func link(forStorage keyPath: AnyKeyPath) -> RelationshipLink {
        entity.links[entity.relationshipKeyPaths.number(for: keyPath, in: entity)]
    }

    /// The destination of a to-one, for a typed property. An object that
    /// left its context answers `nil` (it let go of what it held; a typed property
    /// can't throw; ``value(forKey:)`` says ``KuraError/objectDetached(_:)``).
    @usableFromInline
    final func relationshipDestination(forStorage keyPath: AnyKeyPath) -> ManagedObject? {
        let link = link(forStorage: keyPath)
        do {
            return try destination(link)
        } catch where error.code == .objectDetached {
            return nil
        } catch {
            fatalError("reading \(entity.name).\(link.name) of \(objectID): \(error)")
        }
    }

    /// The members of a to-many, for a typed property; an object that left
    /// its context answers none (it let go of what it held).
    @usableFromInline
    final func relationshipMembers(forStorage keyPath: AnyKeyPath) -> [ManagedObject] {
        let link = link(forStorage: keyPath)
        do {
            return try members(link)
        } catch where error.code == .objectDetached {
            return []
        } catch {
            fatalError("reading \(entity.name).\(link.name) of \(objectID): \(error)")
        }
    }

    /// A typed property's projection (`$news`).
    @usableFromInline
    final func relationshipView(forStorage keyPath: AnyKeyPath) -> RelationshipMembers {
        RelationshipMembers(owner: self, link: link(forStorage: keyPath))
    }

    /// Sets a relationship from a typed property. A mistake (an object of
    /// another context, one that left its context) leaves the relationship
    /// as it was and makes the next save throw it.
    @usableFromInline
    final func setRelationship(_ objects: [ManagedObject], forStorage keyPath: AnyKeyPath) {
        let link = link(forStorage: keyPath)
        do {
            if link.isToMany {
                try setMembers(objects, link)
            } else {
                try setDestination(objects.first, link)
            }
        } catch {
            guard let context else {
                fatalError("setting \(entity.name).\(link.name) of \(objectID), which left its context: \(error)")
            }
            context.deferredErrors.append(error)
        }
    }

    // MARK: Reading

    /// Sizes ``relationshipStates`` on first use.
    @inline(__always)
    final func prepareRelationships() {
        if relationshipStates.isEmpty && !entity.links.isEmpty {
            relationshipStates = RelationshipStates.make(count: entity.links.count)
        }
    }

    /// The destination key the record of this object holds for a to-one.
    final func committedDestinationKey(_ link: RelationshipLink) -> UInt64? {
        guard let field = link.field, let record else { return nil }
        return record.withUnsafeBytes { RecordView(trusted: $0).reference(field) }
    }

    /// The current destination of a to-one.
    final func destination(_ link: RelationshipLink) throws(KuraError) -> ManagedObject? {
        prepareRelationships()
        if case .toOne(let object) = relationshipStates[link.number] {
            return link.mayOutliveDestinations ? try Self.existing(object) : object
        }
        guard let context = try requireContext() else { return nil }
        if record == nil && (state == .persisted || state == .deleted) {
            record = try context.loadRecord(of: self)
            withoutTrackingChanges { awakeFromFetch() }
        }
        let object = committedDestinationKey(link).map { context.object(of: link.destination, primaryKey: $0) }
        relationshipStates[link.number] = .toOne(object)
        return link.mayOutliveDestinations ? try Self.existing(object) : object
    }

    /// The objects of `members` that are neither deleted nor gone.
    private static func existing(_ members: [ManagedObject]) throws(KuraError) -> [ManagedObject] {
        var existing: [ManagedObject] = []
        existing.reserveCapacity(members.count)
        for member in members where try Self.existing(member) != nil { existing.append(member) }
        return existing
    }

    /// `object`, or `nil` when it is deleted or no longer stored: what a
    /// reference a `noAction` delete rule left behind reads as, here as in
    /// predicates (which find no such object).
    private static func existing(_ object: ManagedObject?) throws(KuraError) -> ManagedObject? {
        guard let object else { return nil }
        switch object.state {
        case .deleted, .removed, .detached: return nil
        case .persisted where object.record == nil && object.values.isEmpty:
            do {
                try object.loadValues()
            } catch {
                if error.code == .objectNotFound { return nil }
                throw error
            }
            return object
        case .persisted, .inserted, .unregistered: return object
        }
    }

    /// The state of a to-many, made on first use.
    final func toManyState(_ link: RelationshipLink) -> ToManyState {
        prepareRelationships()
        if case .toMany(let state) = relationshipStates[link.number] { return state }
        let state = ToManyState()
        relationshipStates[link.number] = .toMany(state)
        return state
    }

    /// The current members of a to-many, reading the stored ones (their keys
    /// only) the first time.
    final func members(_ link: RelationshipLink) throws(KuraError) -> [ManagedObject] {
        let toMany = toManyState(link)
        if let members = toMany.members {
            return link.mayOutliveDestinations ? try Self.existing(members) : members
        }
        var members: [ManagedObject] = []
        if let context = try requireContext(), state == .persisted || state == .deleted {
            let keys = try context.memberKeys(of: link, owner: objectID.registryKey)
            members.reserveCapacity(keys.count + toMany.added.count)
            for key in keys {
                let member = context.object(of: link.destination, primaryKey: key)
                let identity = IdentityKey(member)
                // (A stored member added again goes where it was added: last.)
                if toMany.removed[identity] == nil && (toMany.placed.isEmpty || toMany.placed[identity] == nil) { members.append(member) }
            }
        }
        if link.isOrdered {
            let (first, last) = toMany.pendingEnds()
            if !first.isEmpty { members.insert(contentsOf: first, at: 0) }
            members += last
        } else if !toMany.added.isEmpty {
            // An object added before the members were read may be a stored one.
            var identities = Set(members.lazy.map(ObjectIdentifier.init))
            for member in toMany.added.values.sorted(by: Self.creationOrder) where identities.insert(ObjectIdentifier(member)).inserted {
                members.append(member)
            }
        }
        toMany.setMembers(members)
        // Members a `noAction` delete rule left behind read as gone.
        return link.mayOutliveDestinations ? try Self.existing(members) : members
    }

    /// How many members a to-many has. Unread and unchanged, its stored
    /// entries are counted, without an object for each.
    final func memberCount(_ link: RelationshipLink) throws(KuraError) -> Int {
        if link.mayOutliveDestinations { return try members(link).count }  // (members that are gone don't count)
        if !relationshipStates.isEmpty, case .toMany(let toMany) = relationshipStates[link.number] {
            if let members = toMany.members { return members.count }
            if toMany.hasChanges { return try members(link).count }
        }
        guard let context = try requireContext(), state == .persisted || state == .deleted else { return try members(link).count }
        return try context.memberCount(of: link, owner: objectID.registryKey)
    }

    /// Stored objects by primary key, then new ones in the order they were made.
    static func creationOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        (a.objectID.isTemporaryID ? 1 : 0, a.objectID.number) < (b.objectID.isTemporaryID ? 1 : 0, b.objectID.number)
    }

    /// The context, or `nil` for an object never inserted; an object that
    /// left its context can't read its relationships.
    private func requireContext() throws(KuraError) -> ManagedObjectContext? {
        switch state {
        case .unregistered: return nil
        case .inserted, .persisted, .deleted:
            guard let context else { throw KuraError.objectDetached(objectID) }
            return context
        case .removed, .detached: throw KuraError.objectDetached(objectID)
        }
    }

    // MARK: Changing, keeping inverses in step

    /// Sets a to-one and its inverse.
    final func setDestination(_ newValue: ManagedObject?, _ link: RelationshipLink) throws(KuraError) {
        try checkCanRelate(newValue, link)
        let old = try destination(link)
        if old === newValue { return }
        if let inverse = link.inverse {
            if let old { try old.primitiveDetach(self, via: inverse) }
            if let newValue {
                if inverse.isToMany {
                    try newValue.primitiveAddMember(self, inverse)
                } else {
                    // One-to-one: the destination's previous partner lets go of it.
                    if let partner = try newValue.destination(inverse), partner !== self {
                        try partner.primitiveSetDestination(nil, link)
                    }
                    try newValue.primitiveSetDestination(self, inverse)
                }
            }
        }
        try primitiveSetDestination(newValue, link)
    }

    /// Adds a member to a to-many (at `position` for an ordered one), and
    /// sets its inverse.
    final func addMember(_ member: ManagedObject, _ link: RelationshipLink, at position: Int? = nil) throws(KuraError) {
        try checkCanRelate(member, link)
        if let inverse = link.inverse {
            if inverse.isToMany {
                try member.primitiveAddMember(self, inverse)
            } else if let previous = try member.destination(inverse), previous !== self {
                try previous.primitiveRemoveMember(member, link)
                try member.primitiveSetDestination(self, inverse)
            } else {
                try member.primitiveSetDestination(self, inverse)
            }
        }
        try primitiveAddMember(member, link, at: position)
    }

    /// Removes a member from a to-many, and clears its inverse.
    final func removeMember(_ member: ManagedObject, _ link: RelationshipLink) throws(KuraError) {
        _ = try requireContext()  // a detached object's links may point into a model that is gone
        if let inverse = link.inverse {
            try member.primitiveDetach(self, via: inverse)
        }
        try primitiveRemoveMember(member, link)
    }

    /// Makes a to-many hold exactly `objects` (in that order, if ordered).
    final func setMembers(_ objects: [ManagedObject], _ link: RelationshipLink) throws(KuraError) {
        for object in objects { try checkCanRelate(object, link) }
        let toMany = toManyState(link)
        if !link.isOrdered, state == .inserted, toMany.members == nil, toMany.added.isEmpty {
            // A new object's to-many nothing was added to: nothing to read or
            // remove (what an import or a first assignment does).
            toMany.setMembers([])
            for object in objects where !toMany.isMember(object) { try addMember(object, link) }
            return
        }
        let wanted = Set(objects.map(IdentityKey.init))
        guard !link.isOrdered || wanted.count == objects.count else {
            throw KuraError.invalidRelationship("\(entity.name).\(link.name) is ordered and can't hold an object twice")
        }
        for old in try members(link) where !wanted.contains(IdentityKey(old)) {
            try removeMember(old, link)
        }
        for object in objects where !toMany.isMember(object) {
            try addMember(object, link)
        }
        if link.isOrdered, let members = toMany.members, !members.elementsEqual(objects, by: ===) {
            toMany.placeMoved(toMatch: objects)
            toMany.setMembers(objects)
            noteRelationshipChange(link)
        }
    }

    /// Moves a member of an ordered to-many to `position`.
    final func moveMember(_ member: ManagedObject, to position: Int, _ link: RelationshipLink) throws(KuraError) {
        let members = try members(link)
        guard let from = members.firstIndex(where: { $0 === member }) else {
            throw KuraError.invalidRelationship("\(member.objectID) is not a member of \(entity.name).\(link.name)")
        }
        move(member, from: from, to: position, link, toManyState(link))
    }

    /// Puts a member of an ordered to-many's read members at `position`.
    private func move(_ member: ManagedObject, from: Int, to position: Int, _ link: RelationshipLink, _ toMany: ToManyState) {
        var reordered = toMany.members ?? []
        reordered.remove(at: from)
        let to = min(max(0, position), reordered.count)
        reordered.insert(member, at: to)
        guard to != from else { return }
        toMany.setMembers(reordered)
        toMany.placed[IdentityKey(member)] = member
        noteRelationshipChange(link)
    }

    /// Whether `object` may be a destination of `link` from this object: in
    /// the same context, of the destination entity, not deleted.
    private func checkCanRelate(_ object: ManagedObject?, _ link: RelationshipLink) throws(KuraError) {
        switch state {
        case .removed, .detached: throw KuraError.objectDetached(objectID)
        case .inserted, .persisted, .deleted:
            if context == nil { throw KuraError.objectDetached(objectID) }
        case .unregistered:
            throw KuraError.invalidRelationship("\(entity.name) \(objectID) is not in a context: insert it before relating it")
        }
        guard let object else { return }
        guard object.entity === link.destination || object.entity.isKind(of: link.destination) else {
            throw KuraError.invalidRelationship(
                "\(entity.name).\(link.name) points to \(link.destination.name), not to \(object.entity.name) (\(object.objectID))")
        }
        guard object.context === context, object.managedObjectContext != nil else {
            throw object.managedObjectContext == nil && object.state != .unregistered
                ? KuraError.objectDetached(object.objectID) : KuraError.objectInAnotherContext(object.objectID)
        }
        if object.state == .deleted {
            throw KuraError.invalidRelationship("\(object.objectID) is deleted, so \(entity.name).\(link.name) can't point to it")
        }
    }

    // MARK: Primitive changes (one side only)

    /// Removes `object` from this side of `link` (a to-one that points to it
    /// is cleared; a to-many loses it).
    final func primitiveDetach(_ object: ManagedObject, via link: RelationshipLink) throws(KuraError) {
        if link.isToMany {
            try primitiveRemoveMember(object, link)
        } else if try destination(link) === object {
            try primitiveSetDestination(nil, link)
        }
    }

    final func primitiveSetDestination(_ object: ManagedObject?, _ link: RelationshipLink) throws(KuraError) {
        if try destination(link) === object { return }
        relationshipStates[link.number] = .toOne(object)
        // Changed unless it points where the record does.
        let committed = committedDestinationKey(link)
        let current = object.flatMap { $0.state == .inserted ? nil : $0.objectID.registryKey }
        if committed == current && (object == nil || current != nil) {
            changedRelationships.remove(link.number)
            context?.noteChange(self)
        } else {
            noteRelationshipChange(link)
        }
    }

    final func primitiveAddMember(_ member: ManagedObject, _ link: RelationshipLink, at position: Int? = nil) throws(KuraError) {
        let toMany = toManyState(link)
        if link.isOrdered && toMany.members == nil {
            if position == nil || position == 0, let isStored = isStoredMember(member, link),
               !(isStored && toMany.removed[IdentityKey(member)] == nil && position == 0) {  // (a stored member moved first: read)
                // At an end, without reading the members: the save puts it there.
                let identity = IdentityKey(member)
                let isMember = knownMembership(member, link)!
                if isMember && position == nil { return }  // adding a member changes nothing
                if isStored && !isMember { toMany.placed[identity] = member }  // taken out and added again: at its new end
                toMany.unreadEnds.append((member, atFront: position == 0))
                if isMember {
                    noteRelationshipChange(link)  // an added one moved first
                } else {
                    toMany.noteAdded(member)
                    noteToManyChange(link, toMany)
                }
                return
            }
            // Else the order is needed: read it, so the object goes where
            // it was added (at `position`, or at the end).
            _ = try self.members(link)
        }
        if link.isOrdered, !toMany.removed.isEmpty, toMany.removed[IdentityKey(member)] != nil {
            // A stored member taken out and added again: at its new place.
            toMany.placed[IdentityKey(member)] = member
        }
        if let members = toMany.members {
            if toMany.isMember(member) {
                guard link.isOrdered, let position, let from = members.firstIndex(where: { $0 === member }) else { return }
                move(member, from: from, to: position, link, toMany)
                return
            }
            toMany.insertMember(member, at: position)
        }
        toMany.noteAdded(member)
        noteToManyChange(link, toMany)
    }

    /// Whether `object` is a member of the to-many `link` now, when that is
    /// known without reading the members; `nil` when only they would tell.
    final func knownMembership(_ object: ManagedObject, _ link: RelationshipLink) -> Bool? {
        let toMany = toManyState(link)
        if toMany.members != nil { return toMany.isMember(object) }
        guard let isStored = isStoredMember(object, link) else { return nil }
        let identity = IdentityKey(object)
        return isStored ? toMany.removed[identity] == nil : toMany.added[identity] != nil
    }

    /// Whether `member` is among the stored members of `link`, when that
    /// is known without reading them: a new object (or a new owner's) is
    /// not; a to-many whose inverse is a to-one holds what points to it.
    /// `nil` when only the members would tell.
    private func isStoredMember(_ member: ManagedObject, _ link: RelationshipLink) -> Bool? {
        if state == .inserted || member.state == .inserted { return false }
        guard state == .persisted, member.state == .persisted, let inverse = link.inverse, !inverse.isToMany,
              member.record != nil else { return nil }
        return member.committedDestinationKey(inverse) == objectID.registryKey
    }

    final func primitiveRemoveMember(_ member: ManagedObject, _ link: RelationshipLink) throws(KuraError) {
        let toMany = toManyState(link)
        if toMany.members != nil {
            guard toMany.isMember(member) else { return }
            toMany.removeMember(member)
        }
        toMany.noteRemoved(member)
        noteToManyChange(link, toMany)
    }

    /// Whether saving this (stored) object rewrites its record: when an
    /// attribute, a to-one or an ordered to-many changed. Only joined
    /// memberships changing leaves the record, and its row version, alone.
    final var rewritesRecordWhenSaved: Bool {
        if !changedAttributes.isEmpty { return true }
        for number in changedRelationships.elements {
            let link = entity.links[number]
            if !link.isToMany || link.isOrdered { return true }
        }
        return false
    }

    /// After a save: what the relationships hold is now what is stored.
    final func adoptSavedRelationships() {
        changedRelationships.removeAll()
        for number in 0..<relationshipStates.count {
            guard case .toMany(let toMany) = relationshipStates[number] else { continue }
            if toMany.members == nil {
                relationshipStates[number] = .unloaded  // read the stored members again when needed
            } else {
                toMany.adoptSaved()
            }
        }
    }

    private func noteToManyChange(_ link: RelationshipLink, _ toMany: ToManyState) {
        if toMany.hasChanges {
            noteRelationshipChange(link)
        } else {
            changedRelationships.remove(link.number)
            context?.noteChange(self)
        }
    }

    private func noteRelationshipChange(_ link: RelationshipLink) {
        if state == .persisted || state == .deleted { changedRelationships.insert(link.number) }
        context?.noteChange(self)
    }
}

extension ManagedObjectAccessors where Self: ManagedObject {
    /// The IDs of the objects the relationship at `keyPath` holds, as
    /// ``ManagedObject/objectIDs(forRelationshipNamed:)`` gives them (without
    /// an object for each member): `try news.objectIDs(for: \.tags)`.
    ///
    /// - Throws: as ``ManagedObject/objectIDs(forRelationshipNamed:)``; a
    ///   key path that isn't one of the class's relationships is
    ///   ``KuraError/unknownAttribute(entity:key:)``.
    public func objectIDs<Value: RelationshipValue>(for keyPath: KeyPath<Self, Value>) throws -> [ObjectID] {
        try objectIDs(forRelationshipNamed: PropertyKeyPathNames.path(of: keyPath))
    }
}
