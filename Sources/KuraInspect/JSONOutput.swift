import Foundation
import Kura

/// Turns results into JSON text: one object per line for rows, one object
/// for everything else. Keys are sorted, so the output is stable.
enum JSONOutput {
    /// A JSON value for an attribute value: numbers as numbers (non-finite
    /// ones, and decimals, as strings to stay exact), dates in ISO 8601,
    /// data as base64, `nil` as null.
    static func value(_ value: AttributeValue?) -> Any {
        guard let value else { return NSNull() }
        switch value {
        case .bool(let flag): return flag
        case .int(let number): return number
        case .double(let number): return number.isFinite ? number as Any : String(number)
        case .float(let number): return number.isFinite ? Double(number) as Any : String(number)
        case .decimal(let number): return number.description
        case .string(let text): return text
        case .date(let date): return date.formatted(.iso8601)
        case .uuid(let uuid): return uuid.uuidString
        case .data(let data): return data.base64EncodedString()
        case .url(let url): return url.absoluteString
        }
    }

    /// One line of JSON for `object`.
    static func line(_ object: Any) -> String {
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: options) else {
            return "null"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
