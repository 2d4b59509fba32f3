// The context keeps some state twice, for speed: an object's
// `isInPendingList` flag and the pending list, its `isInUnprocessedList`
// flag and the list of changes not yet announced, the registries and each
// object's own ID, state and context. These checks say whether the copies
// agree. An internal-checks build (`--traits InternalChecks`) runs them
// after every operation that rewrites the bookkeeping and stops on the first
// disagreement; other builds never call them.

extension ManagedObjectContext {
    /// What disagrees in the context's bookkeeping, one line each (empty
    /// when it is sound).
    func invariantViolations() -> [String] {
        var problems: [String] = []
        let pendingSet = Self.checkList(pending, named: "pending", flag: \.isInPendingList, problems: &problems)
        _ = Self.checkList(unprocessed, named: "unprocessed", flag: \.isInUnprocessedList, problems: &problems)

        var registered = Set<ObjectIdentifier>()
        func checkRegistered(_ object: ManagedObject, under key: UInt64, entity: IdentityKey?) {
            registered.insert(ObjectIdentifier(object))
            let id = object.objectID
            if object.context !== self { problems.append("\(id) is registered here but its context is another") }
            if key != id.registryKey { problems.append("\(id) is registered under key \(key)") }
            if let entity, IdentityKey(id.entity) != entity { problems.append("\(id) is in another entity's registry") }
            if object.isInPendingList != pendingSet.contains(ObjectIdentifier(object)) {
                problems.append("\(id)'s pending flag is \(object.isInPendingList) but the list says otherwise")
            }
            if (object.state == .inserted || object.state == .deleted) && !pendingSet.contains(ObjectIdentifier(object)) {
                problems.append("\(id) is \(object.state) but not in the pending list")
            }
        }
        temporaries.forEachEntry { number, object in
            checkRegistered(object, under: number | ObjectID.temporaryKeyFlag, entity: nil)
            if object.state != .inserted { problems.append("\(object.objectID) has a temporary number but is \(object.state)") }
        }
        for (key, registry) in registries {
            registry.objects.forEachEntry { primaryKey, object in
                // (A parent registers its child's new objects here, under
                // their temporary keys: registryKey tells the two apart.)
                checkRegistered(object, under: primaryKey, entity: key)
            }
        }
        // (An object inserted and then deleted leaves the context but stays
        // in the list, without changes, until the list is compacted.)
        for object in pending where !registered.contains(ObjectIdentifier(object)) && object.context === self {
            problems.append("\(object.objectID) is in the pending list and this context's but not registered")
        }
        return problems
    }

    /// In an internal-checks build, stops with the broken invariants after
    /// `operation`; in others, does nothing.
    @inline(__always)
    func checkInvariants(after operation: StaticString) {
        #if InternalChecks
        let problems = invariantViolations()
        precondition(problems.isEmpty, "\(operation) broke the context's bookkeeping: \(problems.prefix(5).joined(separator: "; "))")
        #endif
    }

    /// Each object of `list` has its flag set and is there once; returns them.
    private static func checkList(
        _ list: [ManagedObject], named name: String, flag: KeyPath<ManagedObject, Bool>, problems: inout [String]
    ) -> Set<ObjectIdentifier> {
        var seen = Set<ObjectIdentifier>()
        for object in list {
            if !object[keyPath: flag] { problems.append("\(object.objectID) is in the \(name) list without its flag") }
            if !seen.insert(ObjectIdentifier(object)).inserted { problems.append("\(object.objectID) is in the \(name) list twice") }
        }
        return seen
    }
}
