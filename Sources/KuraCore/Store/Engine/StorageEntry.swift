// The seam's key vocabulary: ranges, directions and the key order come
// from KuraKeys (below both Kura and KuraLMDB, re-exported here, so that
// `import Kura` is enough for an engine); how a put stores and the entries
// a transaction lends are the seam's own.
@_exported import KuraKeys

/// How ``StorageTransaction/put(_:forKey:in:flags:)`` stores a value.
public struct PutFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Fails with ``StorageEngineError/keyExists`` (or, from an engine that
    /// sends writes in batches, ``StorageEngineError/keyExistsInSpace(_:key:)``
    /// when it sends them) when the key is there.
    public static let noOverwrite = PutFlags(rawValue: 1 << 0)
    /// Promises that the key sorts after every key of the space (a new key:
    /// what an engine does with one that doesn't is its own).
    public static let append = PutFlags(rawValue: 1 << 1)
}

/// A key and its value, lent by a transaction (see ``StorageTransaction``
/// for how long they stay valid).
public struct StorageEntry {
    /// The key's bytes.
    public let key: UnsafeRawBufferPointer
    /// The value's bytes.
    public let value: UnsafeRawBufferPointer

    @inlinable
    public init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        self.key = key
        self.value = value
    }
}
