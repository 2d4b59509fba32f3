/// What a save tells the store about an ordered to-many's order: where the
/// members that moved or joined go, each after the member before it, so
/// the store writes entries for them alone (``MemberOrder``).
extension ToManyState {
    /// The members joined at the end while the members weren't read, in
    /// turn: what ``ManagedObject/members(_:)`` puts last, and a save
    /// appends. (Added objects not in ``appended``, left by a refresh that
    /// read the members again, follow in creation order.)
    func pendingAppends() -> [ManagedObject] {
        var seen = Set<IdentityKey>()
        var pending: [ManagedObject] = []
        func take(_ object: ManagedObject) {
            let identity = IdentityKey(object)
            guard added[identity] != nil || placed[identity] != nil, seen.insert(identity).inserted else { return }
            pending.append(object)
        }
        for object in appended { take(object) }
        if pending.count != added.count + placed.count {
            for object in (Array(added.values) + Array(placed.values)).sorted(by: ManagedObject.creationOrder) { take(object) }
        }
        return pending
    }

    /// Where the save puts members: with the members read, each added or
    /// placed member right after the one before it (in list order, so
    /// each anchor is in place when its turn comes); without, the appends
    /// at the end. Removed members leave the order besides.
    func placements(_ reference: (ManagedObject?) -> ChangeSet.Reference?) -> [ChangeSet.Placement] {
        guard let members else { return pendingAppends().compactMap { reference($0).map { .atEnd($0) } } }
        guard !added.isEmpty || !placed.isEmpty else { return [] }
        var placements: [ChangeSet.Placement] = []
        var anchor: ChangeSet.Reference?
        for member in members {
            let identity = IdentityKey(member)
            let moves = added[identity] != nil || placed[identity] != nil
            guard let current = reference(member) else { continue }
            if moves { placements.append(.after(current, anchor: anchor)) }
            anchor = current
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
        let kept = Self.longestIncreasingRun(objects.map { positions[IdentityKey($0)] ?? -1 })
        for (index, object) in objects.enumerated() where !kept.contains(index) {
            placed[IdentityKey(object)] = object
        }
    }

    /// The indices of a longest strictly increasing subsequence of
    /// `values` (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // index in `values` of the smallest tail of a run of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() where value >= 0 {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            run.insert(index)
            index = previous[index]
        }
        return run
    }
}
