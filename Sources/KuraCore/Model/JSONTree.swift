import Foundation

/// A JSON document parsed for ``JSONTreeDecoder``: what a ``AttributeEncoding/json``
/// attribute's bytes hold, read without Foundation's `JSONDecoder` (whose
/// setup costs more than the small values attributes hold).
enum JSONTree {
    case null
    case bool(Bool)
    /// A number's text, as written.
    case number(String)
    case string(String)
    case array([JSONTree])
    /// Members in the document's order.
    case object([(key: String, value: JSONTree)])

    /// The document `bytes` holds, or `nil` when it isn't one JSON value.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONTree? {
        var parser = JSONTreeParser(bytes: bytes)
        guard let tree = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.position == bytes.count ? tree : nil
    }
}

/// Reads one JSON value (RFC 8259) from bytes.
private struct JSONTreeParser {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    /// How deep arrays and objects may nest.
    static let maximumDepth = 512

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) -> JSONTree? {
        skipWhitespace()
        guard position < bytes.count, depth < Self.maximumDepth else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "\""): return string().map(JSONTree.string)
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ text: StaticString, _ tree: JSONTree) -> JSONTree? {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { return nil }
        position += count
        return tree
    }

    private mutating func number() -> JSONTree? {
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        guard position > digitsStart, bytes[digitsStart] != UInt8(ascii: "0") || position == digitsStart + 1 else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            let fraction = position
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
            guard position > fraction else { return nil }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            let exponent = position
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
            guard position > exponent else { return nil }
        }
        return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// A string's value, the opening quote at `position`.
    private mutating func string() -> String? {
        position += 1
        let start = position
        var isASCII = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                defer { position += 1 }
                let text = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
                // ASCII needs no validating (the standard library's check
                // costs more than the rest of a small value's reading).
                return isASCII ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            guard byte >= 0x20 else { return nil }
            if byte >= 0x80 { isASCII = false }
            position += 1
        }
        return nil
    }

    /// A string with escapes, from `start` (after its opening quote).
    private mutating func escapedString(from start: Int) -> String? {
        var text: [UInt8] = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    text.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                guard byte >= 0x20 else { return nil }
                text.append(byte)
            }
        }
        return nil
    }

    /// The scalar of a `\uXXXX` escape (a surrogate pair's two), after the `u`.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hexQuad() else { return nil }
        guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) }
        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
            return nil
        }
        position += 2
        guard let low = hexQuad(), (0xDC00..<0xE000).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func hexQuad() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[position])).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func array(depth: Int) -> JSONTree? {
        position += 1
        var elements: [JSONTree] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            guard let element = value(depth: depth + 1) else { return nil }
            elements.append(element)
            skipWhitespace()
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            if bytes[position] == UInt8(ascii: "]") { return .array(elements) }
            guard bytes[position] == UInt8(ascii: ",") else { return nil }
        }
    }

    private mutating func object(depth: Int) -> JSONTree? {
        position += 1
        var members: [(key: String, value: JSONTree)] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
            position += 1
            guard let value = value(depth: depth + 1) else { return nil }
            members.append((key, value))
            skipWhitespace()
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            if bytes[position] == UInt8(ascii: "}") { return .object(members) }
            guard bytes[position] == UInt8(ascii: ",") else { return nil }
        }
    }
}
