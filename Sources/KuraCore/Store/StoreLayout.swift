/// Where a store keeps things: the names of its spaces (LMDB's named
/// spaces, PostgreSQL's rows by space number) and the keys of its `meta` space.
///
/// ```
/// kura.meta                      format, model, fingerprint, ID counters
/// kura.records.<Entity>          primary key (8 bytes, big-endian) → record
/// kura.index.<Entity>.<index>    indexed values [+ primary key] → primary key
/// kura.ref.<Entity>.<to-one>     destination key + source key → (empty)
/// kura.join.<Entity>.<to-many>   owner key + member key → (empty)
/// kura.rjoin.<Entity>.<to-many>  member key + owner key → (empty), for a to-many without inverse
/// kura.order.<Entity>.<to-many>  owner key → member keys in order, for an ordered to-many
/// kura.history                   sequence number → one recorded save (StoreOptions.tracksHistory)
/// ```
///
/// An index key is the encoded indexed values followed by the primary key,
/// so equal values sort by primary key. In a unique index the values alone
/// are the key (one lookup finds the object, and a second object with the
/// same values can't be stored), except when a value is nil: nils never
/// conflict, so those keys keep the primary key. Every entry's value is the
/// primary key, however the key is made.
package enum StoreLayout {
    static let metaSpaceName = "kura.meta"

    /// How many spaces a store of `model` may open at most: meta, history,
    /// and each entity's records, indexes and relationship spaces (three at
    /// most per relationship). An engine with a fixed table of spaces sizes
    /// it from this.
    package static func spaceCount(for model: ManagedObjectModel) -> Int {
        2 + model.entities.reduce(0) { $0 + 1 + $1.indexes.count + 3 * $1.links.count }
    }
    static func recordsSpaceName(_ entity: EntityDescription) -> String { "kura.records.\(entity.layout.storageName)" }
    /// The space of the index at `position` in `entity`'s indexes.
    /// An index a sub-entity inherits is its superentity's space, which
    /// holds the entries of the whole family below it.
    static func indexSpaceName(_ entity: EntityDescription, _ position: Int) -> String {
        let (owner, position) = entity.indexOwner(position)
        return "kura.index.\(owner.layout.storageName).\(owner.layout.indexStorageNames[position])"
    }

    static func referenceSpaceName(_ entity: String, _ relationship: String) -> String { "kura.ref.\(entity).\(relationship)" }
    static func joinSpaceName(_ entity: String, _ relationship: String) -> String { "kura.join.\(entity).\(relationship)" }
    static func reverseJoinSpaceName(_ entity: String, _ relationship: String) -> String { "kura.rjoin.\(entity).\(relationship)" }
    static func orderSpaceName(_ entity: String, _ relationship: String) -> String { "kura.order.\(entity).\(relationship)" }

    static let formatKey = Array("format".utf8)
    static let modelKey = Array("model".utf8)
    static let fingerprintKey = Array("fingerprint".utf8)
    /// The schema generation: one more each migration (UInt64, little-endian).
    static let generationKey = Array("generation".utf8)
    /// The model versions the store has had: JSON, see ``ModelHistoryEntry``.
    static let historyKey = Array("history".utf8)
    /// The sequence number the next recorded save gets (UInt64, little-endian).
    static let historySequenceKey = Array("history.next".utf8)
    /// The sequence number history was purged through (UInt64, little-endian).
    static let historyPurgedKey = Array("history.purged".utf8)
    /// Recorded saves: sequence number (8 bytes, big-endian) → ``HistoryRecord``.
    static let historySpaceName = "kura.history"
    static func counterKey(_ entity: EntityDescription) -> [UInt8] { Array("counter.\(entity.layout.storageName)".utf8) }

    /// The format this version of Kura writes.
    ///
    /// - 1: the first format.
    /// - 2: index keys tell a decimal NaN from zero (format 1 wrote both as
    ///   zero). A format-1 store opened read-write is upgraded in one
    ///   transaction: the indexes over decimal attributes are rebuilt and the
    ///   format becomes 2. Opened read-only, it is read as it is, and those
    ///   indexes are not used to answer queries.
    /// - 3: the model document numbers each attribute's and to-one's
    ///   record field (see ``RecordLayout``), so properties can be added,
    ///   removed, renamed and reordered without touching records. Records
    ///   are unchanged: a format-2 store's fields were numbered in
    ///   declaration order, which the upgrade writes down.
    /// - 4: a store whose model has sub-entities (``EntityFamily``): its
    ///   model document names superentities and tags, its primary keys
    ///   carry tags, its families share index and relationship spaces. Only
    ///   such a store is written in format 4 (a store without inheritance
    ///   stays format 3, which older versions of Kura read), so a version
    ///   that doesn't know inheritance refuses the store instead of writing
    ///   a sub-entity's objects without their superentity's indexes.
    /// - 5: a store whose model has an ordered to-many: its order keeps two
    ///   entries per member with an order key each (``MemberOrder``), where
    ///   older formats kept one list per owner. A store of an older format
    ///   with ordered to-manys opened read-write is upgraded in one
    ///   transaction (each list becomes its entries); opened read-only, its
    ///   lists are read as they are. Only such a store is written in format
    ///   5, so versions that know only the lists refuse it.
    static let formatVersion: UInt32 = 5
    /// The format of a store whose model has no sub-entities and no ordered
    /// to-many, which an older format is upgraded to when opened read-write.
    static let baseFormatVersion: UInt32 = 3
    /// The first format whose ordered to-manys keep order keys.
    static let orderKeysFormatVersion: UInt32 = 5

    /// The format a store of `model` is written in: see ``formatVersion``.
    static func formatVersion(for model: ManagedObjectModel) -> UInt32 {
        if model.entities.contains(where: { $0.links.contains { $0.isOrdered } }) { return orderKeysFormatVersion }
        return model.entities.contains { $0.family != nil } ? 4 : baseFormatVersion
    }
    /// The oldest format this version of Kura reads (and upgrades).
    static let oldestReadableFormat: UInt32 = 1

    /// A primary key as a key of the records space: big-endian, so keys sort numerically.
    @inline(__always)
    static func key(_ primaryKey: UInt64) -> [UInt8] {
        withUnsafeBytes(of: primaryKey.bigEndian, Array.init)
    }

    /// Calls `body` with a primary key as a key, without allocating.
    @inline(__always)
    static func withKey<Result>(_ primaryKey: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: primaryKey.bigEndian, body)
    }

    /// The primary key of a record key, or of the last 8 bytes of an index key.
    @inline(__always)
    static func primaryKey(fromSuffixOf bytes: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
    }

    /// Two primary keys, big-endian, one after the other: the key of a
    /// relationship entry, sorted by the first and then the second.
    @inline(__always)
    static func pairKey(_ first: UInt64, _ second: UInt64) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 16)
        key.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: first.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: second.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return key
    }

    /// Calls `body` with ``pairKey(_:_:)`` of `first` and `second`, without allocating.
    @inline(__always)
    static func withPairKey<Result>(
        _ first: UInt64, _ second: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withUnsafeBytes(of: (first.bigEndian, second.bigEndian), body)
    }

    /// The second key of a relationship entry's 16-byte key.
    @inline(__always)
    static func secondKey(of pair: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bigEndian: pair.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// Member keys in order, as an ordered to-many keeps them: 8 bytes each, big-endian.
    static func keyList(_ keys: [UInt64]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: keys.count * 8)
        bytes.withUnsafeMutableBytes { raw in
            for (position, key) in keys.enumerated() { raw.storeBytes(of: key.bigEndian, toByteOffset: position * 8, as: UInt64.self) }
        }
        return bytes
    }

    static func keys(fromList bytes: UnsafeRawBufferPointer) -> [UInt64] {
        (0..<(bytes.count / 8)).map { UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }

    static func littleEndianBytes<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian, Array.init)
    }

    static func littleEndian<Integer: FixedWidthInteger>(_ bytes: [UInt8], as type: Integer.Type) -> Integer? {
        guard bytes.count == MemoryLayout<Integer>.size else { return nil }
        return bytes.withUnsafeBytes { Integer(littleEndian: $0.loadUnaligned(as: Integer.self)) }
    }
}

/// The spaces of one entity. A class, so passing it around costs one
/// reference count, not one per space.
final class EntitySpaces: Sendable {
    let entity: EntityDescription
    let records: StorageSpace
    let indexes: [IndexSpace]
    /// One per relationship, in the entity's order.
    let relationships: [any RelationshipStorage]

    init(entity: EntityDescription, records: StorageSpace, indexes: [IndexSpace], relationships: [any RelationshipStorage] = []) {
        self.entity = entity
        self.records = records
        self.indexes = indexes
        self.relationships = relationships
    }
}

/// The space of one index, with its attributes' positions.
final class IndexSpace: Sendable {
    let description: IndexDescription
    let attributeNumbers: [Int]
    let space: StorageSpace
    /// True for an index over decimals in a format-1 store opened read-only:
    /// its keys write NaN as zero, so queries don't use it (see
    /// ``StoreLayout/formatVersion``).
    let hasLegacyDecimalKeys: Bool

    init(description: IndexDescription, attributeNumbers: [Int], space: StorageSpace, hasLegacyDecimalKeys: Bool = false) {
        self.description = description
        self.attributeNumbers = attributeNumbers
        self.space = space
        self.hasLegacyDecimalKeys = hasLegacyDecimalKeys
    }

    /// Whether queries may read the index.
    var isUsableForQueries: Bool { !hasLegacyDecimalKeys }

    /// The index key of an object: its indexed values, then its primary key
    /// (not for a unique index without nil values; see ``StoreLayout``).
    func key(primaryKey: UInt64, value: (Int) -> AttributeValue?) -> (key: [UInt8], isUniqueKey: Bool) {
        var key: [UInt8] = []
        key.reserveCapacity(64)
        let isUniqueKey = self.key(primaryKey: primaryKey, into: &key, value: value)
        return (key, isUniqueKey)
    }

    /// Writes the index key of an object into `key` (emptied first, its
    /// storage kept: a save reuses one buffer for every new object) and
    /// returns whether it is a unique key.
    func key(primaryKey: UInt64, into key: inout [UInt8], value: (Int) -> AttributeValue?) -> Bool {
        key.removeAll(keepingCapacity: true)
        var hasNil = false
        for number in attributeNumbers {
            let attributeValue = value(number)
            if attributeValue == nil { hasNil = true }
            IndexKeyEncoding.append(attributeValue, to: &key, legacyDecimals: hasLegacyDecimalKeys)
        }
        let isUniqueKey = description.isUnique && !hasNil
        if !isUniqueKey { IndexKeyEncoding.appendBigEndian(primaryKey, to: &key) }
        return isUniqueKey
    }

    /// The longest index key, in bytes, on every engine: LMDB's limit, kept
    /// by the store itself so that a model that works on one engine works
    /// on all.
    static let maximumKeyLength = 511

    /// Adds the entry `key` → `primaryKey`. A unique key must not be there yet.
    /// - Throws: ``StorageEngineError/keyExists``, ``StorageEngineError/keyTooLong``.
    func putEntry(_ key: [UInt8], isUniqueKey: Bool, primaryKey: UInt64, in txn: StoreTransaction) throws {
        guard key.count <= Self.maximumKeyLength else { throw StorageEngineError.keyTooLong }
        try StoreLayout.withKey(primaryKey) { value in
            try key.withUnsafeBytes { bytes in
                try space.put(value, forKey: bytes, in: txn, flags: isUniqueKey ? .noOverwrite : [])
            }
        }
    }

    /// The primary key an index entry points to, from the entry's value.
    static func primaryKey(of entry: StorageEntry, index: IndexSpace, path: String) throws -> UInt64 {
        guard entry.value.count == 8 else {
            throw KuraError.corruptStore(path: path, reason: "an entry of index \(index.description.name) has a \(entry.value.count)-byte value")
        }
        return StoreLayout.primaryKey(fromSuffixOf: entry.value)
    }
}
