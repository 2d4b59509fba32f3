/// How one list of fetched results became the next: what a table view needs
/// to animate the change (`NSFetchedResultsController`'s delegate calls, as
/// one value).
///
/// Apply it as a batch update: delete the ``removed`` rows (positions in the
/// old list), insert the ``inserted`` ones (positions in the new list), move
/// each of ``moved`` from its old to its new position, and reload the
/// ``updated`` ones (positions in the new list). Positions count through
/// every section; ``FetchedResults/indexPath(ofPosition:)`` turns one into a
/// section and row.
public struct ResultsDifference: Sendable, Hashable {
    /// An object that is in both lists at another place among the objects
    /// the lists share.
    public struct Move: Sendable, Hashable {
        /// Its position in the old list.
        public let from: Int
        /// Its position in the new list.
        public let to: Int
    }

    /// Positions, in the old list, of objects no longer in the results.
    public internal(set) var removed: [Int] = []
    /// Positions, in the new list, of objects new to the results.
    public internal(set) var inserted: [Int] = []
    /// Objects in both lists whose order among the shared objects changed:
    /// the fewest such moves (the others keep their relative order).
    public internal(set) var moved: [Move] = []
    /// Positions, in the new list, of objects in both lists, not moved,
    /// that a save changed (their values, or their relationships).
    public internal(set) var updated: [Int] = []
    /// Sections, by position in the old list of sections, that are gone.
    public internal(set) var removedSections: [Int] = []
    /// Sections, by position in the new list of sections, that are new.
    public internal(set) var insertedSections: [Int] = []

    /// True when nothing changed.
    public var isEmpty: Bool {
        removed.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty
            && removedSections.isEmpty && insertedSections.isEmpty
    }

    init() {}

    /// The difference from `old` to `new` (each object's identity, in
    /// order); `isChanged` says whether the object at a position of `new`
    /// was changed by a save in between.
    ///
    /// Linear in the lists' lengths but for the moves, found as the objects
    /// outside a longest increasing run of old positions (n log n), so a
    /// list of 100,000 results costs milliseconds however it changed.
    init<Identity: Hashable>(
        from old: [Identity], to new: [Identity], isChanged: (Int) -> Bool,
        oldSections: [String] = [], newSections: [String] = []
    ) {
        var oldPositions: [Identity: Int] = [:]
        oldPositions.reserveCapacity(old.count)
        for (position, id) in old.enumerated() { oldPositions[id] = position }
        var newIDs = Set<Identity>()
        newIDs.reserveCapacity(new.count)
        for id in new { newIDs.insert(id) }
        removed = old.indices.filter { !newIDs.contains(old[$0]) }

        // Objects in both lists, in new order, with their old positions.
        var shared: [(old: Int, new: Int)] = []
        for (position, id) in new.enumerated() {
            if let was = oldPositions[id] { shared.append((was, position)) } else { inserted.append(position) }
        }
        let staying = shared.map(\.old).longestIncreasingRun()
        for (index, pair) in shared.enumerated() {
            if staying.contains(index) {
                if isChanged(pair.new) { updated.append(pair.new) }
            } else {
                moved.append(Move(from: pair.old, to: pair.new))
            }
        }
        let newNames = Set(newSections)
        let oldNames = Set(oldSections)
        removedSections = oldSections.indices.filter { !newNames.contains(oldSections[$0]) }
        insertedSections = newSections.indices.filter { !oldNames.contains(newSections[$0]) }
    }
}
