/// JSON as `kura` writes and reads it: numbers keep their text, so an
/// `Int64` or a `Double` goes through unchanged, and objects keep their
/// keys' order. Written by hand rather than with `JSONSerialization`,
/// which costs about 88 µs per object on Linux and reads every number as a `Double`.
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// A number, as its JSON text.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    struct Member: Equatable {
        var key: String
        var value: JSONValue
    }

    /// The value as one line of JSON.
    var text: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the value's JSON, as UTF-8, to `bytes` (bytes, not a `String`:
    /// appending to a string costs several times more, and exports write millions).
    func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case .bool(let flag): bytes += (flag ? "true" : "false").utf8
        case .number(let number): bytes += number.utf8
        case .string(let string): Self.write(string: string, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (position, member) in members.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.write(string: member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.value.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// `string` quoted, with `"`, `\` and control characters escaped.
    static func write(string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        let copied = string.withUTF8 { utf8 in
            // A quote, a backslash, a control character or DEL needs escaping.
            guard !ByteScan.contains(utf8, below: 0x20, or: (UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x7F, 0x7F)) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if !copied {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": bytes += #"\""#.utf8
                case "\\": bytes += #"\\"#.utf8
                case "\n": bytes += #"\n"#.utf8
                case "\r": bytes += #"\r"#.utf8
                case "\t": bytes += #"\t"#.utf8
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    let hex = String(scalar.value, radix: 16)
                    bytes += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
                default: bytes += String(scalar).utf8
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The member called `key` of an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

extension JSONValue {
    /// JSON for the plain values commands build their reports from:
    /// dictionaries (keys sorted, so output is stable), arrays, strings,
    /// integers, doubles, Booleans; anything else is `null`.
    init(_ value: Any?) {
        switch value {
        case let value as JSONValue: self = value
        case let flag as Bool: self = .bool(flag)
        case let number as Int: self = .number(String(number))
        case let number as Int64: self = .number(String(number))
        case let number as UInt64: self = .number(String(number))
        case let number as Double: self = number.isFinite ? .number(number.description) : .string(number.description)
        case let string as String: self = .string(string)
        case let array as [Any]: self = .array(array.map { JSONValue($0) })
        case let dictionary as [String: Any]:
            self = .object(dictionary.keys.sorted().map { Member(key: $0, value: JSONValue(dictionary[$0])) })
        default: self = .null
        }
    }
}

/// JSON text that isn't valid, and where.
struct JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    let message: String
    /// The byte offset in the text.
    let offset: Int

    var description: String { "\(message) at character \(offset + 1)" }
}

extension JSONValue {
    /// Reads one JSON value that is all of `text` (white space around it aside).
    static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    /// Reads one JSON value that is all of `bytes` (UTF-8).
    static func parse(bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        func read(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONSyntaxError> {
            Result { () throws(JSONSyntaxError) in try parse(buffer) }
        }
        return try (bytes.withContiguousStorageIfAvailable(read) ?? Array(bytes).withUnsafeBufferPointer(read)).get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(bytes: bytes)
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.position == reader.bytes.count else { throw reader.error("unexpected text after the value") }
        return value
    }
}

/// A recursive-descent reader over UTF-8 bytes.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// As deep as a store's JSON may nest (KuraCore's JSON scanner reads
    /// 512 levels): whatever `kura export` writes of a JSON attribute, it
    /// reads back. Each level is a few hundred bytes of stack.
    static let maximumDepth = 512

    func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(message: message, offset: position) }

    mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) deep") }
        skipSpace()
        guard position < bytes.count else { throw error("expected a value, found the end") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var members: [JSONValue.Member] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
                let key = try string()
                skipSpace()
                try expect(":")
                members.append(.init(key: key, value: try value(depth: depth + 1)))
                skipSpace()
                if try endOfList("}") { return .object(members) }
            }
        case UInt8(ascii: "["):
            position += 1
            var elements: [JSONValue] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
            while true {
                elements.append(try value(depth: depth + 1))
                skipSpace()
                if try endOfList("]") { return .array(elements) }
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try word("true"); return .bool(true)
        case UInt8(ascii: "f"): try word("false"); return .bool(false)
        case UInt8(ascii: "n"): try word("null"); return .null
        default: return .number(try number())
        }
    }

    /// After an element: true at `close`, false at a comma.
    mutating func endOfList(_ close: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        guard position < bytes.count else { throw error("expected , or \(close), found the end") }
        if bytes[position] == UInt8(ascii: close) { position += 1; return true }
        guard bytes[position] == UInt8(ascii: ",") else { throw error("expected , or \(close)") }
        position += 1
        return false
    }

    mutating func expect(_ character: Unicode.Scalar) throws(JSONSyntaxError) {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { throw error("expected \(character)") }
        position += 1
    }

    mutating func word(_ word: String) throws(JSONSyntaxError) {
        let utf8 = Array(word.utf8)
        guard bytes.count - position >= utf8.count, Array(bytes[position..<(position + utf8.count)]) == utf8 else {
            throw error("expected a value")
        }
        position += utf8.count
    }

    mutating func number() throws(JSONSyntaxError) -> String {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - first
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard digits() > 0 else { position = start; throw error("expected a value") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("expected digits after the decimal point") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("expected digits in the exponent") }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        position += 1  // the opening quote
        let start = position
        // Fast path: no escapes.
        while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\"), bytes[position] >= 0x20 {
            position += 1
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "\"") {
            position += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position - 1]), as: UTF8.self)
        }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: String(decoding: bytes[start..<position], as: UTF8.self).unicodeScalars)
        var pending: [UInt8] = []
        func flush() {
            scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
            pending.removeAll()
        }
        while true {
            guard position < bytes.count else { throw error("the string is not closed") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard position < bytes.count else { throw error("the string is not closed") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("a lone surrogate in \\u escape")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a lone surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("a lone surrogate in \\u escape") }
                    scalars.append(scalar)
                default:
                    position -= 1
                    throw error("unknown escape \\\(Unicode.Scalar(escape))")
                }
            case ..<0x20:
                position -= 1
                throw error("a control character inside a string (write it as \\u00XX)")
            default:
                pending.append(byte)
            }
        }
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - position >= 4,
              let code = UInt32(String(decoding: bytes[position..<(position + 4)], as: UTF8.self), radix: 16) else {
            throw error("expected four hex digits after \\u")
        }
        position += 4
        return code
    }
}
