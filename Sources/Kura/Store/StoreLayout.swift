import KuraLMDB

/// Where a store keeps things: the names of its LMDB databases and the keys
/// of its `meta` database.
///
/// ```
/// kura.meta                      format, model, fingerprint, ID counters
/// kura.records.<Entity>          primary key (8 bytes, big-endian) → record
/// kura.index.<Entity>.<index>    indexed values + primary key → (empty)
/// ```
enum StoreLayout {
    static let metaDatabase = "kura.meta"
    static func recordsDatabase(_ entity: String) -> String { "kura.records.\(entity)" }
    static func indexDatabase(_ entity: String, _ index: String) -> String { "kura.index.\(entity).\(index)" }

    static let formatKey = Array("format".utf8)
    static let modelKey = Array("model".utf8)
    static let fingerprintKey = Array("fingerprint".utf8)
    static func counterKey(_ entity: String) -> [UInt8] { Array("counter.\(entity)".utf8) }

    /// The format this version of Kura writes and reads.
    static let formatVersion: UInt32 = 1

    /// A primary key as an LMDB key: big-endian, so keys sort numerically.
    @inline(__always)
    static func key(_ primaryKey: UInt64) -> [UInt8] {
        withUnsafeBytes(of: primaryKey.bigEndian, Array.init)
    }

    /// The primary key of a record key, or of the last 8 bytes of an index key.
    @inline(__always)
    static func primaryKey(fromSuffixOf bytes: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
    }

    static func littleEndianBytes<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian, Array.init)
    }

    static func littleEndian<Integer: FixedWidthInteger>(_ bytes: [UInt8], as type: Integer.Type) -> Integer? {
        guard bytes.count == MemoryLayout<Integer>.size else { return nil }
        return bytes.withUnsafeBytes { Integer(littleEndian: $0.loadUnaligned(as: Integer.self)) }
    }
}

/// The LMDB databases of one entity.
struct EntityTables: Sendable {
    let entity: EntityDescription
    let records: Database
    let indexes: [IndexTable]
}

/// The LMDB database of one index, with its attributes' positions.
struct IndexTable: Sendable {
    let description: IndexDescription
    let attributeNumbers: [Int]
    let database: Database

    /// The index key of an object: its indexed values, then its primary key.
    func key(primaryKey: UInt64, value: (Int) -> AttributeValue?) -> [UInt8] {
        var key = valuePrefix(value: value)
        IndexKeyEncoding.appendBigEndian(primaryKey, to: &key)
        return key
    }

    /// The encoded indexed values: the part of the key shared by equal values.
    func valuePrefix(value: (Int) -> AttributeValue?) -> [UInt8] {
        var key: [UInt8] = []
        for number in attributeNumbers { IndexKeyEncoding.append(value(number), to: &key) }
        return key
    }
}
