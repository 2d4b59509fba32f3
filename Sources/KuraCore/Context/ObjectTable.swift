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

        #if !InternalChecks
        /// What `Dictionary` asks for: eight consecutive keys in eight
        /// neighbouring buckets (one cache line of keys, one of objects),
        /// each run of eight placed by ``multiplicativeHash(_:seed:)``.
        ///
        /// A fetch registers its objects in primary-key order, often
        /// hundreds of thousands of them: hashed one by one, each would
        /// land on a line of its own, a cache miss per object in a table
        /// of that size (measured at a million objects: about a tenth of
        /// reading every title). Keys with a regular stride still spread:
        /// the runs are mixed, and a stride of eight or more leaves the
        /// neighbouring buckets free for the probe.
        func _rawHashValue(seed: Int) -> Int {
            multiplicativeHash(value >> 3, seed: seed) << 3 | Int(truncatingIfNeeded: value & 7)
        }
        // (Not in the internal-checks build: see `IdentityKey`.)
        #endif
    }

    private var storage: [Key: ManagedObject] = [:]

    subscript(primaryKey: UInt64) -> ManagedObject? {
        get { storage[Key(value: primaryKey)] }
        set { storage[Key(value: primaryKey)] = newValue }
    }

    var values: Dictionary<Key, ManagedObject>.Values { storage.values }

    /// Calls `body` with each key and its object.
    func forEachEntry(_ body: (UInt64, ManagedObject) -> Void) {
        for (key, object) in storage { body(key.value, object) }
    }
    var count: Int { storage.count }

    mutating func reserveCapacity(_ capacity: Int) { storage.reserveCapacity(capacity) }

    mutating func removeAll() { storage.removeAll() }

    /// Clears every object's context, for a context going away, and lets go
    /// of the objects.
    ///
    /// The table's order is its keys' hashes, which is no order in memory.
    /// When the table holds the last reference to most of its objects (a
    /// context dropped after saving 100,000 new ones), each is freed with
    /// its values, record and strings, and freeing them in that order
    /// misses the cache on every one: they are freed in the order they sit
    /// in memory instead (about the order they were made in), which halves
    /// the time. A few objects tell which case it is; objects that live on
    /// (the results of a fetch) are only detached, in place.
    mutating func detachAll() {
        if storage.count >= Self.sortedRelease, holdsLastReferences() {
            var objects = ContiguousArray(storage.values)
            storage.removeAll()
            objects.sort { ObjectIdentifier($0) < ObjectIdentifier($1) }
            for object in objects { object.leaveContext() }
            return  // the objects go with `objects`, in order
        }
        for object in storage.values { object.leaveContext() }
    }

    /// The size from which ``detachAll()`` frees objects in memory order.
    static let sortedRelease = 4096

    /// Whether the table holds the only reference to most of its first 32 objects.
    private mutating func holdsLastReferences() -> Bool {
        var index = storage.values.startIndex
        var (looked, unique) = (0, 0)
        while looked < 32 && index != storage.values.endIndex {
            if isKnownUniquelyReferenced(&storage.values[index]) { unique += 1 }
            looked += 1
            storage.values.formIndex(after: &index)
        }
        return unique * 2 > looked
    }

    /// Removes the object under `primaryKey` if it has no unsaved changes
    /// and the table holds the only reference to it (so no one can reach it
    /// again): what a batched fetch lets go of.
    mutating func removeIfUnused(primaryKey: UInt64) {
        guard let index = storage.index(forKey: Key(value: primaryKey)) else { return }
        guard !storage.values[index].hasChanges, !storage.values[index].isInPendingList,
              isKnownUniquelyReferenced(&storage.values[index])
        else { return }
        storage.values[index].leaveContext()
        storage.remove(at: index)
    }
}
