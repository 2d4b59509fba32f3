/// Walks an `Encodable` value as an encoder would, writing nothing: it
/// stops at the first container nested deeper than a limit (how a value too
/// deep to store is refused before `JSONEncoder` recurses through it: at
/// ten thousand levels its recursion overflows the stack; past about 510
/// it throws), and notes whether a `Double` or `Float` in it is NaN.
///
/// Depth counts containers, as JSON nests them: each keyed or unkeyed
/// container is one level deeper than the one it is encoded in; a single
/// value adds none.
struct JSONDepthProbe {
    /// Thrown when a container lies deeper than the limit.
    struct TooDeep: Error {}

    /// What a walk found.
    struct Findings {
        /// No container is deeper than the limit.
        var fits = true
        /// Some `Double` or `Float` is NaN.
        var holdsNaN = false
    }

    /// Walks `value`, going no deeper than `limit`.
    static func walk<Value: Encodable>(_ value: Value, limit: Int) -> Findings {
        let probe = ProbeEncoder(depth: 0, limit: limit, state: ProbeState())
        do {
            try value.encode(to: probe)
        } catch is TooDeep {
            probe.state.findings.fits = false
        } catch {
            // The type's own failure: JSONEncoder reports it.
        }
        return probe.state.findings
    }

    /// True when `value` nests no container deeper than `limit`.
    static func fits<Value: Encodable>(_ value: Value, limit: Int) -> Bool {
        walk(value, limit: limit).fits
    }
}

/// What a probe found: set by a container opened too deep, which can't throw.
private final class ProbeState {
    var findings = JSONDepthProbe.Findings()
}

private final class ProbeEncoder: Encoder {
    /// The containers around what this encoder encodes.
    let depth: Int
    let limit: Int
    let state: ProbeState
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(depth: Int, limit: Int, state: ProbeState) {
        self.depth = depth
        self.limit = limit
        self.state = state
    }

    /// The encoder of what goes inside a container this encoder opened:
    /// throws (ending the walk) once that container is too deep.
    func nested() throws -> ProbeEncoder {
        guard depth < limit else { throw JSONDepthProbe.TooDeep() }
        return ProbeEncoder(depth: depth + 1, limit: limit, state: state)
    }

    /// A container opened here is at level `depth + 1`.
    private func open() {
        if depth >= limit { state.findings.fits = false }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        open()
        return KeyedEncodingContainer(ProbeKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        open()
        return ProbeUnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ProbeSingleValueContainer(encoder: self) }

    /// The encoder one level down, for a nested container (which can't throw).
    var inner: ProbeEncoder { ProbeEncoder(depth: depth + 1, limit: limit, state: state) }
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ProbeEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try value.encode(to: encoder.nested()) }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.inner.container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.inner.unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

private struct ProbeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: ProbeEncoder
    var codingPath: [any CodingKey] { [] }
    var count = 0

    init(encoder: ProbeEncoder) {
        self.encoder = encoder
    }

    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws {
        count += 1
        try value.encode(to: encoder.nested())
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        count += 1
        return encoder.inner.container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return encoder.inner.unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { encoder }
}

private struct ProbeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: ProbeEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {}
    // A single value is written where the container is: no deeper.
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: encoder)
    }
    // The scalars (their own encode(to:) comes back here: these end it).
    mutating func encode(_ value: Bool) throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode(_ value: Double) throws { if value.isNaN { encoder.state.findings.holdsNaN = true } }
    mutating func encode(_ value: Float) throws { if value.isNaN { encoder.state.findings.holdsNaN = true } }
    mutating func encode(_ value: Int) throws {}
    mutating func encode(_ value: Int8) throws {}
    mutating func encode(_ value: Int16) throws {}
    mutating func encode(_ value: Int32) throws {}
    mutating func encode(_ value: Int64) throws {}
    mutating func encode(_ value: UInt) throws {}
    mutating func encode(_ value: UInt8) throws {}
    mutating func encode(_ value: UInt16) throws {}
    mutating func encode(_ value: UInt32) throws {}
    mutating func encode(_ value: UInt64) throws {}
    @available(macOS 15, *)
    mutating func encode(_ value: Int128) throws {}
    @available(macOS 15, *)
    mutating func encode(_ value: UInt128) throws {}
}
