import Foundation
import Kura

/// Reads a value typed on the command line as a value of an attribute type:
/// how `template NAME var=value` turns text into substitution values.
///
/// Strings are taken as typed (quotes optional); integers, decimals and
/// floating point as numbers; booleans as true/false, yes/no or 1/0; dates as
/// ISO 8601 (`2026-11-22`, `2026-11-22T10:00:00Z`) or seconds since 1970;
/// UUIDs and URLs by their text; data as base64; `nil` as no value. A list
/// (for `IN $ids`, `BETWEEN $range`) is written `{a, b}` or `a,b`.
enum ValueParser {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ text: String, as type: AttributeType, isList: Bool, variable: String) throws -> Any {
        if isList {
            var body = text.trimmingCharacters(in: .whitespaces)
            if body.hasPrefix("{") && body.hasSuffix("}") { body = String(body.dropFirst().dropLast()) }
            let parts = body.isEmpty ? [] : body.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            return try parts.map { try parse(unquote($0), as: type, variable: variable) as Any }
        }
        return try parse(text, as: type, variable: variable) as Any
    }

    private static func unquote(_ text: String) -> String {
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return text
    }

    static func parse(_ text: String, as type: AttributeType, variable: String) throws -> AttributeValue? {
        if text == "nil" || text == "NIL" { return nil }
        func fail(_ what: String) -> Failure {
            Failure(description: "$\(variable) must be \(type.displayName): '\(text)' is not \(what)")
        }
        switch type {
        case .string:
            return .string(text)
        case .int16, .int32, .int64:
            guard let number = Int64(text), type == .int64 || AttributeValue.int(number).converted(to: type) != nil else {
                throw fail("a whole number in range")
            }
            return .int(number)
        case .double:
            guard let number = Double(text) else { throw fail("a number") }
            return .double(number)
        case .float:
            guard let number = Float(text) else { throw fail("a number") }
            return .float(number)
        case .decimal:
            guard let number = Decimal(string: text), !number.isNaN else { throw fail("a decimal number") }
            return .decimal(number)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw fail("true or false")
            }
        case .date:
            if let seconds = Double(text) { return .date(Date(timeIntervalSince1970: seconds)) }
            if let date = try? Date(text, strategy: .iso8601) { return .date(date) }
            if let date = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return .date(date) }
            throw fail("an ISO 8601 date")
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw fail("a UUID") }
            return .uuid(uuid)
        case .url:
            guard let url = URL(string: text) else { throw fail("a URL") }
            return .url(url)
        case .data:
            guard let data = Data(base64Encoded: text) else { throw fail("base64 data") }
            return .data(data)
        }
    }
}
