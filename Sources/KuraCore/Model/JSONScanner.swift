/// Reads JSON (RFC 8259) in place, for ``JSONSpanDecoder``: what a
/// ``AttributeEncoding/json`` attribute's bytes hold, checked against the
/// grammar and cut into spans (a value's range of bytes) without making a
/// tree; strings and numbers are made only when a value is asked for.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer

    /// How deep arrays and objects may nest.
    static let maximumDepth = 512

    /// A member of an object: its key's bytes (between the quotes) and its
    /// value's span.
    struct Member {
        let keyStart: Int
        let keyEnd: Int
        let keyHasEscapes: Bool
        let value: Range<Int>
    }

    /// The span of the one value `bytes` hold, or `nil` when they aren't one JSON value.
    func document() -> Range<Int>? {
        let start = skipWhitespace(from: 0)
        guard let end = skipValue(from: start, depth: 0) else { return nil }
        return skipWhitespace(from: end) == bytes.count ? start..<end : nil
    }

    func skipWhitespace(from start: Int) -> Int {
        var position = start
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return position
            }
        }
        return position
    }

    /// Where the value at `start` (no whitespace before it) ends, or `nil`
    /// when no valid value starts there.
    func skipValue(from start: Int, depth: Int) -> Int? {
        guard start < bytes.count, depth < Self.maximumDepth else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""): return skipString(from: start)?.end
        case UInt8(ascii: "{"): return skipContainer(from: start, depth: depth, isObject: true)
        case UInt8(ascii: "["): return skipContainer(from: start, depth: depth, isObject: false)
        case UInt8(ascii: "t"): return skipLiteral("true", from: start)
        case UInt8(ascii: "f"): return skipLiteral("false", from: start)
        case UInt8(ascii: "n"): return skipLiteral("null", from: start)
        default: return skipNumber(from: start)
        }
    }

    private func skipLiteral(_ text: StaticString, from start: Int) -> Int? {
        let count = text.utf8CodeUnitCount
        guard start + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[start + offset] != text.utf8Start[offset] { return nil }
        return start + count
    }

    private func skipNumber(from start: Int) -> Int? {
        var position = start
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digits = position
        while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        guard position > digits, bytes[digits] != UInt8(ascii: "0") || position == digits + 1 else { return nil }
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
        return position
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// The string starting at `start` (its opening quote): where it ends
    /// (after the closing quote), and whether it has escapes. Escapes are
    /// checked here; UTF-8 when the string is made.
    func skipString(from start: Int) -> (end: Int, hasEscapes: Bool)? {
        var position = start + 1
        var hasEscapes = false
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return (position, hasEscapes) }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                guard position < bytes.count else { return nil }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    // A surrogate only as a pair, high then low, as JSONDecoder takes them.
                    guard let unit = hexQuad(at: position + 1) else { return nil }
                    position += 5
                    if (0xDC00..<0xE000).contains(unit) { return nil }
                    if (0xD800..<0xDC00).contains(unit) {
                        guard position + 6 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
                              let low = hexQuad(at: position + 2), (0xDC00..<0xE000).contains(low) else { return nil }
                        position += 6
                    }
                default: return nil
                }
            } else if byte < 0x20 {
                return nil
            }
        }
        return nil
    }

    private func skipContainer(from start: Int, depth: Int, isObject: Bool) -> Int? {
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        var position = skipWhitespace(from: start + 1)
        if position < bytes.count, bytes[position] == close { return position + 1 }
        while true {
            if isObject {
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = skipString(from: position) else { return nil }
                position = skipWhitespace(from: key.end)
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position = skipWhitespace(from: position + 1)
            }
            guard let end = skipValue(from: position, depth: depth + 1) else { return nil }
            position = skipWhitespace(from: end)
            guard position < bytes.count else { return nil }
            if bytes[position] == close { return position + 1 }
            guard bytes[position] == UInt8(ascii: ",") else { return nil }
            position = skipWhitespace(from: position + 1)
        }
    }

    /// The members of the object spanning `span` (checked when its
    /// document was), in order.
    func members(of span: Range<Int>) -> [Member] {
        var members: [Member] = []
        members.reserveCapacity(8)
        var position = skipWhitespace(from: span.lowerBound + 1)
        while position < span.upperBound, bytes[position] == UInt8(ascii: "\""), let key = skipString(from: position) {
            let valueStart = skipWhitespace(from: skipWhitespace(from: key.end) + 1)
            guard let valueEnd = skipValue(from: valueStart, depth: 0) else { break }
            members.append(Member(keyStart: position + 1, keyEnd: key.end - 1, keyHasEscapes: key.hasEscapes, value: valueStart..<valueEnd))
            position = skipWhitespace(from: valueEnd)
            guard position < span.upperBound, bytes[position] == UInt8(ascii: ",") else { break }
            position = skipWhitespace(from: position + 1)
        }
        return members
    }

    /// The elements of the array spanning `span`, in order.
    func elements(of span: Range<Int>) -> [Range<Int>] {
        var elements: [Range<Int>] = []
        var position = skipWhitespace(from: span.lowerBound + 1)
        while position < span.upperBound - 1, let end = skipValue(from: position, depth: 0) {
            elements.append(position..<end)
            position = skipWhitespace(from: end)
            guard position < span.upperBound, bytes[position] == UInt8(ascii: ",") else { break }
            position = skipWhitespace(from: position + 1)
        }
        return elements
    }

    /// The text of the string between `start` and `end` (its contents,
    /// without quotes), or `nil` when it isn't valid UTF-8.
    func string(from start: Int, to end: Int, hasEscapes: Bool) -> String? {
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        guard hasEscapes else {
            // ASCII needs no validating (the standard library's check costs
            // more than the rest of a small value's reading).
            return text.allSatisfy({ $0 < 0x80 }) ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
        }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(end - start)
        var position = start
        while position < end {
            let byte = bytes[position]
            position += 1
            guard byte == UInt8(ascii: "\\") else {
                unescaped.append(byte)
                continue
            }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = unicodeEscape(at: &position) else { return nil }
                unescaped.append(contentsOf: String(Character(scalar)).utf8)
            default: unescaped.append(escape)  // " \ /
            }
        }
        return String(validating: unescaped, as: UTF8.self)
    }

    /// The scalar of the `\uXXXX` escape whose digits start at `position`
    /// (a surrogate pair's two escapes), moving past it.
    private func unicodeEscape(at position: inout Int) -> Unicode.Scalar? {
        guard let high = hexQuad(at: position) else { return nil }
        position += 4
        guard (0xD800..<0xDC00).contains(high) else { return Unicode.Scalar(high) }
        guard position + 6 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u"),
              let low = hexQuad(at: position + 2), (0xDC00..<0xE000).contains(low)
        else { return nil }
        position += 6
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private func hexQuad(at start: Int) -> UInt32? {
        guard start + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = bytes[start + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
