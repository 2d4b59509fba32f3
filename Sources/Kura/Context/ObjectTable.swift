/// A context's objects of one entity by primary key (or its inserted
/// objects by temporary number): a dictionary whose keys hash with one
/// multiplication instead of SipHash. Every fetched, faulted or prefetched
/// object is looked up here, and the numbers are ones the store or the
/// context hands out, not input an attacker picks.
struct ObjectTable {
    /// A primary key as a dictionary key.
    struct Key: Hashable {
        let value: UInt64

        static func == (a: Key, b: Key) -> Bool { a.value == b.value }

        func hash(into hasher: inout Hasher) { hasher.combine(value) }

        /// What `Dictionary` asks for (see ``multiplicativeHash(_:seed:)``).
        func _rawHashValue(seed: Int) -> Int { multiplicativeHash(value, seed: seed) }
    }

    private var storage: [Key: ManagedObject] = [:]

    subscript(primaryKey: UInt64) -> ManagedObject? {
        get { storage[Key(value: primaryKey)] }
        set { storage[Key(value: primaryKey)] = newValue }
    }

    var values: Dictionary<Key, ManagedObject>.Values { storage.values }
    var count: Int { storage.count }

    mutating func reserveCapacity(_ capacity: Int) { storage.reserveCapacity(capacity) }

    mutating func removeAll() { storage.removeAll() }

    /// Removes the object under `primaryKey` if it has no unsaved changes
    /// and the table holds the only reference to it (so no one can reach it
    /// again): what a batched fetch lets go of.
    mutating func removeIfUnused(primaryKey: UInt64) {
        guard let index = storage.index(forKey: Key(value: primaryKey)) else { return }
        guard !storage.values[index].hasChanges, !storage.values[index].isInPendingList,
              isKnownUniquelyReferenced(&storage.values[index])
        else { return }
        storage.values[index].context = nil
        storage.remove(at: index)
    }
}
