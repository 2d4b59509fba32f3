import Foundation

/// Decodes a `Decodable` value from JSON bytes in place (see
/// ``JSONScanner``), as Foundation's `JSONDecoder` does with the options of
/// ``JSONAttributeCoding``: default strategies (dates as seconds since 2001,
/// `Data` as base64, `URL` as its string, `Decimal` as a number) and
/// non-finite numbers as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.
/// What it doesn't read, it throws for, and
/// ``JSONAttributeCoding/decode(_:from:)`` asks `JSONDecoder`.
///
/// The decoder is a value over the caller's bytes (no tree, no copies): a
/// value is made only when its type asks for it.
struct JSONSpanDecoder: Decoder {
    let scanner: JSONScanner
    /// The value's bytes (without whitespace around).
    let span: Range<Int>
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value of type `Value` that `bytes` hold.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        let scanner = JSONScanner(bytes: bytes)
        // JSONDecoder refuses a document with invalid UTF-8 anywhere, even
        // in a part no property reads (an unknown key, say): so does this.
        guard let span = scanner.document(), Self.isUTF8(bytes) else { throw mismatch(Value.self, "not JSON") }
        return try JSONSpanDecoder(scanner: scanner, span: span).value(Value.self)
    }

    /// True when `bytes` are valid UTF-8 (ASCII, the usual case, checked a word at a time).
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var position = 0
        let words = bytes.count / 8
        while position < words * 8 {
            if bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            position += 8
        }
        while position < bytes.count, bytes[position] < 0x80 { position += 1 }
        guard position < bytes.count else { return true }
        return String(validating: UnsafeRawBufferPointer(rebasing: bytes[position...]), as: UTF8.self) != nil
    }

    static func mismatch(_ type: Any.Type, _ reason: String) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: [], debugDescription: reason))
    }

    private var first: UInt8 { scanner.bytes[span.lowerBound] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard first == UInt8(ascii: "{") else { throw Self.mismatch([String: Any].self, "not an object") }
        return KeyedDecodingContainer(Keyed<Key>(scanner: scanner, members: scanner.members(of: span)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard first == UInt8(ascii: "[") else { throw Self.mismatch([Any].self, "not an array") }
        return Unkeyed(scanner: scanner, elements: scanner.elements(of: span))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// The value as a `Value`: the standard scalars and Foundation's types
    /// `JSONEncoder` writes its own way are read here, others by their
    /// `init(from:)`.
    func value<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if let value = try scalar(type) { return value }
        return try Value(from: self)
    }

    /// Compares metatypes (a pointer each), not casts: this runs for every
    /// value read through the generic path.
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

    var isNull: Bool { first == UInt8(ascii: "n") }

    func string() throws -> String {
        guard first == UInt8(ascii: "\""), let text = stringValue() else { throw Self.mismatch(String.self, "not a string") }
        return text
    }

    /// The string the span holds (it starts with a quote), or `nil` when it isn't valid UTF-8.
    private func stringValue() -> String? {
        let hasEscapes = scanner.bytes[span.lowerBound..<span.upperBound].contains(UInt8(ascii: "\\"))
        return scanner.string(from: span.lowerBound + 1, to: span.upperBound - 1, hasEscapes: hasEscapes)
    }

    func bool() throws -> Bool {
        switch first {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw Self.mismatch(Bool.self, "not a Bool")
        }
    }

    /// A number's text (its span starts with `-` or a digit).
    private func numberText() -> String? {
        guard first == UInt8(ascii: "-") || JSONScanner.isDigit(first) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: scanner.bytes[span]), as: UTF8.self)
    }

    func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        // Digits only (what JSONEncoder writes for integers): read in place.
        let isNegative = first == UInt8(ascii: "-")
        let digits = (isNegative ? span.lowerBound + 1 : span.lowerBound)..<span.upperBound
        if !digits.isEmpty, scanner.bytes[digits].allSatisfy(JSONScanner.isDigit) {
            var value: Integer = 0
            for byte in scanner.bytes[digits] {
                let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
                let digit = Integer(byte - UInt8(ascii: "0"))
                let (next, overflowAdd) = isNegative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                guard !overflowShift && !overflowAdd else { throw Self.mismatch(Integer.self, "out of \(Integer.self)'s range") }
                value = next
            }
            return value
        }
        // `1e3` or `2.0`, written by something other than JSONEncoder:
        // JSONDecoder reads it (its rules for such text are its own, and
        // this reader must not answer otherwise).
        throw Self.mismatch(Integer.self, "no \(Integer.self) in digits alone")
    }

    func floatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ type: Number.Type) throws -> Number {
        if let text = numberText() {
            guard let value = Number(text), value.isFinite else { throw Self.mismatch(Number.self, "\(text) is no \(Number.self)") }
            return value
        }
        switch try? string() {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: throw Self.mismatch(Number.self, "not a number")
        }
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
        guard let text = numberText(), let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw Self.mismatch(Decimal.self, "not a number")
        }
        return decimal
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let scanner: JSONScanner
        let members: [JSONScanner.Member]
        var codingPath: [any CodingKey] { [] }

        var allKeys: [Key] {
            members.compactMap { member in
                scanner.string(from: member.keyStart, to: member.keyEnd, hasEscapes: member.keyHasEscapes).flatMap(Key.init(stringValue:))
            }
        }

        /// The member called `key`: its bytes compared with the key's
        /// (a key with escapes is made into a string first).
        private func member(_ key: Key) -> JSONSpanDecoder? {
            var name = key.stringValue
            return name.withUTF8 { name in
                for member in members {
                    let matches = member.keyHasEscapes
                        ? scanner.string(from: member.keyStart, to: member.keyEnd, hasEscapes: true).map { $0.utf8.elementsEqual(name) } ?? false
                        : member.keyEnd - member.keyStart == name.count
                            && memcmp(scanner.bytes.baseAddress! + member.keyStart, name.baseAddress!, name.count) == 0
                    if matches { return JSONSpanDecoder(scanner: scanner, span: member.value) }
                }
                return nil
            }
        }

        private func require(_ key: Key) throws -> JSONSpanDecoder {
            guard let decoder = member(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "no member \(key.stringValue)"))
            }
            return decoder
        }

        func contains(_ key: Key) -> Bool { member(key) != nil }
        func decodeNil(forKey key: Key) throws -> Bool { try require(key).isNull }
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
            guard let key = Key(stringValue: "super") else { throw Self.noSuper }
            return try superDecoder(forKey: key)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            guard let decoder = member(key) else { throw Self.noSuper }
            return decoder
        }

        private static var noSuper: DecodingError {
            DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "no member super"))
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let scanner: JSONScanner
        let elements: [Range<Int>]
        var currentIndex = 0
        var codingPath: [any CodingKey] { [] }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next() throws -> JSONSpanDecoder {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "past the array's end"))
            }
            defer { currentIndex += 1 }
            return JSONSpanDecoder(scanner: scanner, span: elements[currentIndex])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, JSONSpanDecoder(scanner: scanner, span: elements[currentIndex]).isNull else { return false }
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

extension JSONSpanDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { isNull }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }
    func decode(_ type: String.Type) throws -> String { try string() }
    func decode(_ type: Bool.Type) throws -> Bool { try bool() }
    func decode(_ type: Int.Type) throws -> Int { try integer(Int.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(Double.self) }
}
