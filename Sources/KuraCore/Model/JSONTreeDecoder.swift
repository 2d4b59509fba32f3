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

    private func scalar<Value>(_ type: Value.Type) throws -> Value? {
        switch type {
        case is String.Type: return try text() as? Value
        case is Bool.Type:
            guard case .bool(let value) = tree else { throw Self.mismatch(Bool.self, "not a Bool") }
            return value as? Value
        case is Int.Type: return try integer(Int.self) as? Value
        case is Int64.Type: return try integer(Int64.self) as? Value
        case is Int32.Type: return try integer(Int32.self) as? Value
        case is Int16.Type: return try integer(Int16.self) as? Value
        case is Int8.Type: return try integer(Int8.self) as? Value
        case is UInt.Type: return try integer(UInt.self) as? Value
        case is UInt64.Type: return try integer(UInt64.self) as? Value
        case is UInt32.Type: return try integer(UInt32.self) as? Value
        case is UInt16.Type: return try integer(UInt16.self) as? Value
        case is UInt8.Type: return try integer(UInt8.self) as? Value
        case is Double.Type: return try floatingPoint(Double.self) as? Value
        case is Float.Type: return try floatingPoint(Float.self) as? Value
        case is Data.Type:
            guard let data = Data(base64Encoded: try text()) else { throw Self.mismatch(Data.self, "not base64") }
            return data as? Value
        case is URL.Type:
            guard let url = URL(string: try text()) else { throw Self.mismatch(URL.self, "not a URL") }
            return url as? Value
        case is Decimal.Type:
            guard case .number(let text) = tree, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw Self.mismatch(Decimal.self, "not a number")
            }
            return decimal as? Value
        default: return nil
        }
    }

    private func text() throws -> String {
        guard case .string(let text) = tree else { throw Self.mismatch(String.self, "not a string") }
        return text
    }

    private func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        guard case .number(let text) = tree else { throw Self.mismatch(Integer.self, "not a number") }
        if let value = Integer(text) { return value }
        // `1e3` or `2.0`: an integer written another way.
        guard let double = Double(text), let value = Integer(exactly: double) else {
            throw Self.mismatch(Integer.self, "\(text) is no \(Integer.self)")
        }
        return value
    }

    private func floatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
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
}
