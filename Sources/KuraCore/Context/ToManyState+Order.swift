/// What a save tells the store about an ordered to-many's order: where the
/// members that moved or joined go, each after the member before it, so
/// the store writes entries for them alone (``MemberOrder``).
extension ToManyState {
    /// The members put at an end while the members weren't read, as
    /// ``ManagedObject/members(_:)`` shows them: those put first (the
    /// latest first) and those put last (in turn). Each member is where
    /// its latest end put it. (Added objects no end names, left by a
    /// refresh that read the members again, follow last in creation order.)
    func pendingEnds() -> (first: [ManagedObject], last: [ManagedObject]) {
        var seen = Set<IdentityKey>()
        var first: [ManagedObject] = []
        var last: [ManagedObject] = []
        func isPending(_ object: ManagedObject) -> Bool {
            let identity = IdentityKey(object)
            return (added[identity] != nil || placed[identity] != nil) && seen.insert(identity).inserted
        }
        for end in unreadEnds.reversed() where isPending(end.object) {
            if end.atFront { first.append(end.object) } else { last.append(end.object) }
        }
        last.reverse()
        if added.keys.contains(where: { !seen.contains($0) }) || placed.keys.contains(where: { !seen.contains($0) }) {
            last += (Array(added.values) + Array(placed.values)).sorted(by: ManagedObject.creationOrder).filter(isPending)
        }
        return (first, last)
    }

    /// Where the save puts members: with the members read, each added or
    /// placed member right after the one before it (in list order, so
    /// each anchor is in place when its turn comes); without, the members
    /// put at either end. Removed members leave the order besides.
    func placements(_ reference: (ManagedObject?) -> ChangeSet.Reference?) -> [ChangeSet.Placement] {
        guard let members else {
            // Each put first in turn (so the latest ends first), then each appended.
            let (first, last) = pendingEnds()
            return first.reversed().compactMap { reference($0).map { .after($0, anchor: nil) } }
                + last.compactMap { reference($0).map { .atEnd($0) } }
        }
        guard !added.isEmpty || !placed.isEmpty else { return [] }
        let moving = Set(added.keys).union(placed.keys)
        var placements: [ChangeSet.Placement] = []
        for (position, member) in members.enumerated() where moving.contains(IdentityKey(member)) {
            guard let current = reference(member) else { continue }
            // After the nearest member before it that the store knows (or first).
            var anchor: ChangeSet.Reference?
            var before = position - 1
            while before >= 0 && anchor == nil {
                anchor = reference(members[before])
                before -= 1
            }
            placements.append(.after(current, anchor: anchor))
        }
        return placements
    }

    /// Marks as placed the fewest of `objects` (the new order of the
    /// current members) that must move for the rest to keep their order:
    /// all but a longest run of members already in order.
    func placeMoved(toMatch objects: [ManagedObject]) {
        guard let members else { return }
        var positions: [IdentityKey: Int] = [:]
        for (position, member) in members.enumerated() { positions[IdentityKey(member)] = position }
        let kept = objects.map { positions[IdentityKey($0)] ?? -1 }.longestIncreasingRun()
        for (index, object) in objects.enumerated() where !kept.contains(index) {
            placed[IdentityKey(object)] = object
        }
    }
}
