import Foundation

/// An attribute value as text with its kind, for the stored model (default
/// values) and for the fingerprint. Text keeps every value exact: doubles
/// through their shortest round-tripping form (NaN and infinities included),
/// dates as seconds since the reference date, data as base64.
struct StoredValue: Codable, Hashable {
    var type: AttributeType
    var text: String

    init(_ value: AttributeValue) {
        switch value {
        case .bool(let flag): (type, text) = (.bool, flag ? "true" : "false")
        case .int(let integer): (type, text) = (.int64, String(integer))
        case .double(let number): (type, text) = (.double, String(number))
        case .float(let number): (type, text) = (.float, String(number))
        case .decimal(let number): (type, text) = (.decimal, number.description)
        case .string(let string): (type, text) = (.string, string)
        case .date(let date): (type, text) = (.date, String(date.timeIntervalSinceReferenceDate))
        case .uuid(let uuid): (type, text) = (.uuid, uuid.uuidString)
        case .data(let data): (type, text) = (.data, data.base64EncodedString())
        case .url(let url): (type, text) = (.url, url.absoluteString)
        }
    }

    /// The value, or `nil` when the text doesn't parse as its type.
    var value: AttributeValue? {
        switch type {
        case .bool: text == "true" ? .bool(true) : (text == "false" ? .bool(false) : nil)
        case .int16, .int32, .int64: Int64(text).map(AttributeValue.int)
        case .double: Double(text).map(AttributeValue.double)
        case .float: Float(text).map(AttributeValue.float)
        case .decimal: DecimalText.parse(text).map(AttributeValue.decimal)
        case .string: .string(text)
        case .date: Double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .uuid: UUID(uuidString: text).map(AttributeValue.uuid)
        case .data: Data(base64Encoded: text).map(AttributeValue.data)
        case .url: URL(string: text).map(AttributeValue.url)
        }
    }
}
