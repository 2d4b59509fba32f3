import Synchronization

/// One stored field of a composite value (see ``Composite``): a scalar (or
/// a value stored whole, such as an enumeration or a list) at a path inside
/// the value, `city` or `location.latitude`.
struct CompositeField: Sendable, Hashable {
    /// The path inside the value: coding keys joined with dots.
    var path: String
    var type: AttributeType
    var encoding: AttributeEncoding
    var elementType: AttributeType?
    var isOptional: Bool
    /// The value this field holds in the value it was read from.
    var value: AttributeValue?
    /// False for an enumeration or a `Codable` value stored whole: some
    /// stored values are no value of it.
    var holdsEveryStoredValue: Bool

    /// The attribute that stores this field of the composite called `composite`.
    func attribute(of composite: String, renamingIdentifier: String? = nil) -> AttributeDescription {
        AttributeDescription(
            name: "\(composite).\(path)", type: type, isOptional: isOptional, defaultValue: value,
            renamingIdentifier: renamingIdentifier, encoding: encoding, elementType: elementType)
    }
}

/// Takes a composite value apart into its fields by encoding it: each
/// value the type encodes that is an ``AttributeValueConvertible`` is a
/// field; a nested value that isn't (a struct) is taken apart in turn, its
/// fields under its key (`location.latitude`). A nested list of such
/// values, or a value whose type can't be stored, is refused: make its
/// type `AttributeValueConvertible` (a `Codable` value is then one JSON
/// field).
enum CompositeFields {
    /// The fields of `value`, in the order it encodes them.
    ///
    /// - Throws: ``KuraError/invalidModel(_:)`` naming the field that
    ///   can't be stored.
    /// When `discovering` (the initial value, which gives the fields), an
    /// optional nested value must not be `nil`; otherwise its fields are
    /// left out (and stored as `nil`).
    static func fields<Value: Encodable>(of value: Value, discovering: Bool = true) throws(KuraError) -> [CompositeField] {
        let writer = CompositeFieldWriter(discovering: discovering)
        do {
            try value.encode(to: CompositeFieldEncoder(writer: writer, path: ""))
        } catch {
            throw KuraError.invalidModel(writer.failure ?? "\(Value.self) can't be a composite value: \(error)")
        }
        if let failure = writer.failure { throw KuraError.invalidModel(failure) }
        return writer.fields
    }

    /// The fields of types seen as composite values, by type: what a key
    /// path into a value (`\Address.city`) is told from (see
    /// ``CompositeProbe``).
    private static let known = Mutex<[ObjectIdentifier: [CompositeField]]>([:])

    /// Notes `fields` as the fields of `type`.
    static func register(_ fields: [CompositeField], of type: Any.Type) {
        known.withLock { $0[ObjectIdentifier(type)] = fields }
    }

    /// The fields of `type`, when it was seen as a composite value.
    static func registered(_ type: Any.Type) -> [CompositeField]? {
        known.withLock { $0[ObjectIdentifier(type)] }
    }
}

/// What ``CompositeFieldEncoder`` collects.
final class CompositeFieldWriter {
    var fields: [CompositeField] = []
    /// True while the fields are found from an initial value.
    let discovering: Bool

    init(discovering: Bool = true) {
        self.discovering = discovering
    }
    /// Why the value can't be a composite value, when it can't.
    var failure: String?

    /// How deep nested values may go: a type whose encoding refers to
    /// itself would otherwise never end.
    static let maximumDepth = 16

    /// Writes `value` at `path`: a field when its type is an attribute
    /// value, otherwise its own fields under `path`.
    func write<Value: Encodable>(_ value: Value, at path: String, depth: Int) throws {
        if let convertible = value as? any AttributeValueConvertible {
            append(convertible, at: path, isOptional: false)
            return
        }
        guard depth < Self.maximumDepth else { throw refuse("\(path) nests values too deeply") }
        let first = fields.count
        try value.encode(to: CompositeFieldEncoder(writer: self, path: path, depth: depth + 1))
        if discovering {
            // A nested value's type is a composite value too, for key paths into it (`\Location.latitude`).
            CompositeFields.register(fields[first...].map { field in
                var field = field
                field.path = String(field.path.dropFirst(path.count + 1))
                return field
            }, of: Value.self)
        }
    }

    /// Writes an optional at `path`: its type must be an attribute value
    /// when it is `nil` (there is nothing to take apart); a nested value's
    /// fields become optional.
    func writeOptional<Value: Encodable>(_ value: Value?, at path: String, depth: Int) throws {
        guard let value else {
            guard let type = Value.self as? any AttributeValueConvertible.Type else {
                guard discovering else { return }
                throw refuse(
                    "\(path) is an optional \(Value.self) that is nil in the initial value: give it a value there, "
                        + "or make \(Value.self) AttributeValueConvertible to store it whole")
            }
            fields.append(Self.field(type, value: nil, at: path, isOptional: true))
            return
        }
        let first = fields.count
        try write(value, at: path, depth: depth)
        for index in first..<fields.count { fields[index].isOptional = true }
    }

    func append(_ convertible: any AttributeValueConvertible, at path: String, isOptional: Bool) {
        fields.append(Self.field(type(of: convertible), value: convertible.attributeValue, at: path, isOptional: isOptional))
    }

    private static func field(
        _ type: any AttributeValueConvertible.Type, value: AttributeValue?, at path: String, isOptional: Bool
    ) -> CompositeField {
        CompositeField(
            path: path, type: type.attributeType, encoding: type.attributeEncoding, elementType: type.attributeElementType,
            isOptional: isOptional || type.isOptionalAttribute, value: value,
            holdsEveryStoredValue: !(AnyOptional.unwrappedType(type) is any RawRepresentable.Type) && type.attributeEncoding == .plain)
    }

    /// Notes why the value can't be taken apart, and the error to throw.
    func refuse(_ reason: String) -> EncodingError {
        if failure == nil { failure = "composite value: \(reason)" }
        return EncodingError.invalidValue(reason, .init(codingPath: [], debugDescription: reason))
    }
}

/// The encoder that takes a composite value apart (see ``CompositeFields``).
struct CompositeFieldEncoder: Encoder {
    let writer: CompositeFieldWriter
    let path: String
    var depth = 0
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Keyed<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        Unkeyed(error: writer.refuse(
            "\(path.isEmpty ? "the value" : path) encodes a list: make its type AttributeValueConvertible to store it whole as JSON"))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }

    func path(_ key: some CodingKey) -> String { path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)" }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: CompositeFieldEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil(forKey key: Key) throws {
            throw encoder.writer.refuse("\(encoder.path(key)) is encoded as nil without its type: encode it with encodeIfPresent")
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try encoder.writer.write(value, at: encoder.path(key), depth: encoder.depth)
        }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            try encoder.writer.writeOptional(value, at: encoder.path(key), depth: encoder.depth)
        }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try write(value, key) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try write(value, key) }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try write(value, key) }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try write(value, key) }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try write(value, key) }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try write(value, key) }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try write(value, key) }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try write(value, key) }
        private func write<T: Encodable>(_ value: T?, _ key: Key) throws {
            try encoder.writer.writeOptional(value, at: encoder.path(key), depth: encoder.depth)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(CompositeFieldEncoder.Keyed<NestedKey>(
                encoder: CompositeFieldEncoder(writer: encoder.writer, path: encoder.path(key), depth: encoder.depth + 1)))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            CompositeFieldEncoder(writer: encoder.writer, path: encoder.path(key), depth: encoder.depth + 1).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            CompositeFieldEncoder(writer: encoder.writer, path: encoder.path(key), depth: encoder.depth + 1)
        }
    }

    struct Single: SingleValueEncodingContainer {
        let encoder: CompositeFieldEncoder
        var codingPath: [any CodingKey] { [] }

        mutating func encodeNil() throws {
            throw encoder.writer.refuse("\(encoder.path) is encoded as nil without its type")
        }
        mutating func encode<T: Encodable>(_ value: T) throws {
            // One value at the path: an attribute value (the raw value of
            // an enumeration, a wrapped scalar), or nothing any attribute holds.
            guard !encoder.path.isEmpty, let convertible = value as? any AttributeValueConvertible else {
                throw encoder.writer.refuse(
                    encoder.path.isEmpty ? "\(T.self) encodes one value, not fields: store it with @Attribute"
                        : "\(encoder.path) is a \(T.self), which no attribute holds")
            }
            encoder.writer.append(convertible, at: encoder.path, isOptional: false)
        }
    }

    /// Refuses every element: a list inside a composite value is stored
    /// whole, as an attribute value, or not at all.
    struct Unkeyed: UnkeyedEncodingContainer {
        let error: EncodingError
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }
        mutating func encodeNil() throws { throw error }
        mutating func encode<T: Encodable>(_ value: T) throws { throw error }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(CompositeFieldEncoder.Keyed<NestedKey>(
                encoder: CompositeFieldEncoder(writer: CompositeFieldWriter(), path: "", depth: CompositeFieldWriter.maximumDepth)))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Encoder {
            CompositeFieldEncoder(writer: CompositeFieldWriter(), path: "", depth: CompositeFieldWriter.maximumDepth)
        }
    }
}
