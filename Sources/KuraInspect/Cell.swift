import Kura

/// One value of a result row, printed the way each output mode wants it.
enum Cell: Equatable {
    /// No value: `nil` in tables (or the session's `nullvalue`), an empty unquoted field in CSV, `null` in JSON.
    case null
    /// An attribute's value.
    case attribute(AttributeValue)
    /// Text as it is (names, IDs, counts).
    case text(String)
    /// A whole number, right-aligned in tables.
    case number(Int)
    /// Object IDs of a to-many: a count in tables, the IDs in CSV and JSON.
    case objectIDs([String], destination: String)
    /// A `Codable` value's JSON (an attribute of ``AttributeEncoding/json``):
    /// its text everywhere (in JSON output, a string holding it: an import
    /// stores the same bytes again).
    case json(String)

    init(_ value: AttributeValue?) {
        self = value.map(Cell.attribute) ?? .null
    }

    /// A value of `attribute`: JSON as text when the attribute holds JSON
    /// (bytes that aren't JSON stay data, as base64).
    init(_ value: AttributeValue?, of attribute: AttributeDescription) {
        if attribute.encoding == .json, case .data(let data)? = value,
           (try? JSONValue.parse(bytes: data)) != nil {
            self = .json(String(decoding: data, as: UTF8.self))
        } else {
            self.init(value)
        }
    }

    /// For tables and the line mode: readable, data shortened; no value
    /// as `null` (the session's `nullvalue`, `nil` unless changed).
    func display(null: String) -> String {
        switch self {
        case .null: null
        case .attribute(let value): value.description
        case .text(let text), .json(let text): text
        case .number(let number): String(number)
        case .objectIDs(let ids, let destination): "\(ids.count) \(destination)"
        }
    }

    /// For CSV: lossless (``AttributeValue/text``), IDs separated by spaces;
    /// `nil` for no value, which CSV writes as an empty unquoted field.
    var field: String? {
        switch self {
        case .null: nil
        case .attribute(let value): value.text
        case .text(let text), .json(let text): text
        case .number(let number): String(number)
        case .objectIDs(let ids, _): ids.joined(separator: " ")
        }
    }

    /// For JSON: numbers and Booleans as such (non-finite numbers and
    /// decimals as strings, to stay exact), everything else as lossless text.
    var json: JSONValue {
        switch self {
        case .null: .null
        case .attribute(let value):
            switch value {
            case .bool(let flag): .bool(flag)
            case .int(let number): .number(String(number))
            case .double(let number) where number.isFinite: .number(value.text)
            case .float(let number) where number.isFinite: .number(value.text)
            default: .string(value.text)
            }
        case .text(let text): .string(text)
        case .json(let text): .string(text)  // the text as stored, so an import gives back the same bytes
        case .number(let number): .number(String(number))
        case .objectIDs(let ids, _): .array(ids.map(JSONValue.string))
        }
    }

    /// Appends ``json`` to `bytes`, without making the `JSONValue` for the
    /// common cells (texts, integers, Booleans, IDs): what exports write
    /// for every value.
    func writeJSON(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes += "null".utf8
        case .text(let text), .attribute(.string(let text)): JSONValue.write(string: text, to: &bytes)
        case .attribute(.int(let number)): bytes += String(number).utf8
        case .attribute(.bool(let flag)): bytes += (flag ? "true" : "false").utf8
        case .objectIDs(let ids, _):
            bytes.append(UInt8(ascii: "["))
            for (position, id) in ids.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.write(string: id, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        default: json.write(to: &bytes)
        }
    }

    /// True for numbers, which tables right-align.
    var isNumeric: Bool {
        switch self {
        case .number: true
        case .attribute(let value): value.naturalType.isNumeric
        default: false
        }
    }
}
