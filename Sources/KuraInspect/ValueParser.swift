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
        // Unix time is what shells give (`date +%s`).
        if type == .date, let seconds = Double(text) { return .date(Date(timeIntervalSince1970: seconds)) }
        if let value = AttributeValue(text: text, as: type), !(type == .decimal && value == .decimal(.nan)) { return value }
        let what = switch type {
        case .string: "a string"
        case .int16, .int32, .int64: "a whole number in range"
        case .double, .float: "a number"
        case .decimal: "a decimal number"
        case .bool: "true or false"
        case .date: "an ISO 8601 date"
        case .uuid: "a UUID"
        case .url: "a URL"
        case .data: "base64 data"
        }
        throw Failure(description: "$\(variable) must be \(type.displayName): '\(text)' is not \(what)")
    }
}
