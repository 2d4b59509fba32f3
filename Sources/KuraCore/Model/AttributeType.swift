/// The type of an attribute's values, as the store keeps them.
///
/// Every integer width is held as a 64-bit value and range-checked on the way
/// in; `Float` and `Double` are distinct; dates are stored as seconds since
/// 2001-01-01 (Foundation's reference date), URLs by their absolute string.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    /// `Bool`.
    case bool
    /// `Int16`, range-checked.
    case int16
    /// `Int32`, range-checked.
    case int32
    /// `Int64` (and `Int`).
    case int64
    /// `Double`.
    case double
    /// `Float`.
    case float
    /// `Decimal`.
    case decimal
    /// `String`.
    case string
    /// `Date`.
    case date
    /// `UUID`.
    case uuid
    /// `Data`.
    case data
    /// `URL`.
    case url

    /// True for the integer types.
    public var isInteger: Bool {
        switch self {
        case .int16, .int32, .int64: true
        default: false
        }
    }

    /// True for every numeric type: integers, floating point and decimal.
    public var isNumeric: Bool {
        switch self {
        case .int16, .int32, .int64, .double, .float, .decimal: true
        default: false
        }
    }

    /// True for types compared as text (strings and URLs).
    public var isTextual: Bool {
        self == .string || self == .url
    }

    /// The range an integer attribute accepts.
    var integerRange: ClosedRange<Int64> {
        switch self {
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }

    /// The name used in messages and in the inspect tool (`Int64`, `String`, …).
    public var displayName: String {
        switch self {
        case .bool: "Bool"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int64"
        case .double: "Double"
        case .float: "Float"
        case .decimal: "Decimal"
        case .string: "String"
        case .date: "Date"
        case .uuid: "UUID"
        case .data: "Data"
        case .url: "URL"
        }
    }
}
