/// The fields of one composite attribute, by path: how its value is put
/// together again from the attributes that store it.
struct CompositeFieldTable: Sendable {
    /// Each field's path inside the value (`city`, `location.latitude`).
    let paths: [String]
    /// Each field's initial value: what a stored value the field's type has
    /// no value for (an enumeration's unknown case) reads as.
    let initialValues: [AttributeValue?]
    /// Positions in ``paths`` by path.
    let positions: [String: Int]
    /// The paths of nested values (`location`), which hold fields.
    let nestedPaths: Set<String>

    init(paths: [String], initialValues: [AttributeValue?]) {
        self.paths = paths
        self.initialValues = initialValues
        positions = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($1, $0) })
        var nested = Set<String>()
        for path in paths {
            var components = path.split(separator: ".").dropLast()
            while !components.isEmpty {
                nested.insert(components.joined(separator: "."))
                components = components.dropLast()
            }
        }
        nestedPaths = nested
    }

    init(_ fields: [CompositeField]) {
        self.init(paths: fields.map(\.path), initialValues: fields.map(\.value))
    }

    /// The positions of the fields at or under `path`.
    func positions(under path: String) -> [Int] {
        paths.indices.filter { paths[$0] == path || paths[$0].hasPrefix(path + ".") }
    }
}

/// Puts a composite value together from its fields' values (see
/// ``Composite``): a `Decoder` whose keys are paths into
/// ``CompositeFieldTable``.
struct CompositeDecoder: Decoder {
    let table: CompositeFieldTable
    /// The fields' values, in the table's order.
    let values: [AttributeValue?]
    let path: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value of type `Value` the fields hold.
    static func decode<Value: Decodable>(_ type: Value.Type, from values: [AttributeValue?], table: CompositeFieldTable) throws -> Value {
        try Value(from: CompositeDecoder(table: table, values: values, path: ""))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "\(path) is not a list in a composite value"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    func path(_ key: some CodingKey) -> String { path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)" }

    /// The field at `path` as a `Value`: its stored value, or its initial
    /// value when the stored one is no `Value` (a newer build's case).
    func field<Value: Decodable>(_ type: Value.Type, at path: String) throws -> Value {
        if let convertible = Value.self as? any AttributeValueConvertible.Type {
            guard let position = table.positions[path] else {
                throw DecodingError.keyNotFound(
                    CompositeKey(path), .init(codingPath: [], debugDescription: "the composite value has no field \(path)"))
            }
            func make<Convertible: AttributeValueConvertible>(_: Convertible.Type) -> Value? {
                (Convertible(attributeValue: values[position]) ?? Convertible(attributeValue: table.initialValues[position])) as? Value
            }
            guard let value = make(convertible) else {
                throw DecodingError.valueNotFound(
                    Value.self, .init(codingPath: [], debugDescription: "\(path) holds no \(Value.self)"))
            }
            return value
        }
        return try Value(from: CompositeDecoder(table: table, values: values, path: path))
    }

    /// True when the field at `path` has no value, or every field of the
    /// nested value there has none.
    func isNil(at path: String) -> Bool {
        if let position = table.positions[path] { return values[position] == nil }
        return table.positions(under: path).allSatisfy { values[$0] == nil }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: CompositeDecoder
        var codingPath: [any CodingKey] { [] }

        var allKeys: [Key] {
            let prefix = decoder.path.isEmpty ? "" : decoder.path + "."
            var names: [String] = []
            for path in decoder.table.paths where path.hasPrefix(prefix) {
                let name = String(path.dropFirst(prefix.count).prefix { $0 != "." })
                if !names.contains(name) { names.append(name) }
            }
            return names.compactMap { Key(stringValue: $0) }
        }

        func contains(_ key: Key) -> Bool {
            let path = decoder.path(key)
            return decoder.table.positions[path] != nil || decoder.table.nestedPaths.contains(path)
        }

        func decodeNil(forKey key: Key) throws -> Bool { decoder.isNil(at: decoder.path(key)) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder.field(type, at: decoder.path(key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(CompositeDecoder.Keyed<NestedKey>(decoder: nested(key)))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try nested(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { nested(key) }

        private func nested(_ key: Key) -> CompositeDecoder {
            CompositeDecoder(table: decoder.table, values: decoder.values, path: decoder.path(key))
        }
    }

    struct Single: SingleValueDecodingContainer {
        let decoder: CompositeDecoder
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool { decoder.isNil(at: decoder.path) }
        /// Only an attribute value: what the encoding of one value wrote.
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard T.self is any AttributeValueConvertible.Type else {
                throw DecodingError.typeMismatch(T.self, .init(codingPath: [], debugDescription: "no attribute holds a \(T.self)"))
            }
            return try decoder.field(type, at: decoder.path)
        }
    }
}

/// A coding key made from a path, for errors.
struct CompositeKey: CodingKey {
    let stringValue: String
    init(_ path: String) { stringValue = path }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}
