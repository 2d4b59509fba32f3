import Foundation

/// Decodes a `Decodable` value from a ``JSONTree`` as Foundation's
/// `JSONDecoder` does with the options of ``JSONAttributeCoding``: default
/// strategies (dates as seconds since 2001, `Data` as base64, `URL` as its
/// string, `Decimal` as a number) and non-finite numbers as the strings
/// `"NaN"`, `"Infinity"`, `"-Infinity"`. What it doesn't read, it throws
/// for, and ``JSONAttributeCoding/decode(_:from:)`` asks `JSONDecoder`.
struct JSONTreeDecoder: Decoder {
    let tree: JSONTree
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value of type `Value` that `bytes` hold.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        guard let tree = JSONTree.parse(bytes) else { throw mismatch(Value.self, "not JSON") }
        return try JSONTreeDecoder(tree: tree).value(Value.self)
    }

    static func mismatch(_ type: Any.Type, _ reason: String) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: [], debugDescription: reason))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = tree else { throw Self.mismatch([String: Any].self, "not an object") }
        return KeyedDecodingContainer(Keyed<Key>(members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = tree else { throw Self.mismatch([Any].self, "not an array") }
        return Unkeyed(elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// The tree as a `Value`: the standard scalars and Foundation's types
    /// `JSONEncoder` writes its own way are read here, others by their
    /// `init(from:)`.
    func value<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if let value = try scalar(type) { return value }
        return try Value(from: self)
    }

    /// Compares metatypes (a pointer each), not casts: this runs for every
    /// value read.
    private func scalar<Value>(_ type: Value.Type) throws -> Value? {
        if Value.self == String.self { return try string() as? Value }
        if Value.self == Int.self { return try integer(Int.self) as? Value }
        if Value.self == Double.self { return try floatingPoint(Double.self) as? Value }
        if Value.self == Bool.self { return try bool() as? Value }
        if Value.self == Data.self { return try data() as? Value }
        if Value.self == URL.self { return try url() as? Value }
        if Value.self == Decimal.self { return try decimal() as? Value }
        if Value.self == Float.self { return try floatingPoint(Float.self) as? Value }
        if Value.self == Int64.self { return try integer(Int64.self) as? Value }
        if Value.self == Int32.self { return try integer(Int32.self) as? Value }
        if Value.self == Int16.self { return try integer(Int16.self) as? Value }
        if Value.self == Int8.self { return try integer(Int8.self) as? Value }
        if Value.self == UInt.self { return try integer(UInt.self) as? Value }
        if Value.self == UInt64.self { return try integer(UInt64.self) as? Value }
        if Value.self == UInt32.self { return try integer(UInt32.self) as? Value }
        if Value.self == UInt16.self { return try integer(UInt16.self) as? Value }
        if Value.self == UInt8.self { return try integer(UInt8.self) as? Value }
        return nil
    }

    func bool() throws -> Bool {
        guard case .bool(let value) = tree else { throw Self.mismatch(Bool.self, "not a Bool") }
        return value
    }

    func data() throws -> Data {
        guard let data = Data(base64Encoded: try string()) else { throw Self.mismatch(Data.self, "not base64") }
        return data
    }

    func url() throws -> URL {
        guard let url = URL(string: try string()) else { throw Self.mismatch(URL.self, "not a URL") }
        return url
    }

    func decimal() throws -> Decimal {
        guard case .number(let text) = tree, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw Self.mismatch(Decimal.self, "not a number")
        }
        return decimal
    }

    func string() throws -> String {
        guard case .string(let text) = tree else { throw Self.mismatch(String.self, "not a string") }
        return text
    }

    func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        guard case .number(let text) = tree else { throw Self.mismatch(Integer.self, "not a number") }
        if let value = Integer(text) { return value }
        // `1e3` or `2.0`: an integer written another way.
        guard let double = Double(text), let value = Integer(exactly: double) else {
            throw Self.mismatch(Integer.self, "\(text) is no \(Integer.self)")
        }
        return value
    }

    func floatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
        switch tree {
        case .number(let text):
            guard let value = Number(text), value.isFinite else { throw Self.mismatch(Number.self, "\(text) is no \(Number.self)") }
            return value
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        default: throw Self.mismatch(Number.self, "not a number")
        }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [(key: String, value: JSONTree)]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

        private func member(_ key: Key) -> JSONTree? {
            let name = key.stringValue
            for member in members where member.key == name { return member.value }
            return nil
        }

        private func require(_ key: Key) throws -> JSONTreeDecoder {
            guard let tree = member(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "no member \(key.stringValue)"))
            }
            return JSONTreeDecoder(tree: tree)
        }

        func contains(_ key: Key) -> Bool { member(key) != nil }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard case .null = try require(key).tree else { return false }
            return true
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try require(key).value(type) }
        // The standard scalars straight, as a synthesized init(from:) asks for them.
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try require(key).string() }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try require(key).bool() }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try require(key).integer(Int.self) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try require(key).integer(Int64.self) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try require(key).integer(Int32.self) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try require(key).integer(Int16.self) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try require(key).floatingPoint(Double.self) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try require(key).floatingPoint(Float.self) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try require(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try require(key).unkeyedContainer() }

        func superDecoder() throws -> any Decoder {
            JSONTreeDecoder(tree: members.first { $0.key == "super" }?.value ?? .null)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder { JSONTreeDecoder(tree: member(key) ?? .null) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [JSONTree]
        var currentIndex = 0
        var codingPath: [any CodingKey] { [] }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next() throws -> JSONTreeDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "past the array's end"))
            }
            defer { currentIndex += 1 }
            return JSONTreeDecoder(tree: elements[currentIndex])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, case .null = elements[currentIndex] else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().value(type) }
        mutating func decode(_ type: String.Type) throws -> String { try next().string() }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
        mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(Int.self) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().integer(Int64.self) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next().floatingPoint(Double.self) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
        mutating func superDecoder() throws -> any Decoder { try next() }
    }
}

extension JSONTreeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        guard case .null = tree else { return false }
        return true
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }
    func decode(_ type: String.Type) throws -> String { try string() }
    func decode(_ type: Bool.Type) throws -> Bool { try bool() }
    func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(Double.self) }
}
