import Foundation

/// One attribute value, of any ``AttributeType``; `nil` (no value) is
/// `AttributeValue?.none`.
///
/// Typed properties of ``ManagedObject`` subclasses convert to and from this
/// type; the dynamic API (``ManagedObject/value(forKey:)``), predicates and the
/// inspect tool use it directly.
public enum AttributeValue: Sendable, Hashable {
    /// A Boolean.
    case bool(Bool)
    /// Any integer attribute (`Int16`, `Int32`, `Int64`).
    case int(Int64)
    /// A `Double`.
    case double(Double)
    /// A `Float`, kept apart from doubles.
    case float(Float)
    /// A `Decimal`, stored as its text.
    case decimal(Decimal)
    /// A string, stored as UTF-8.
    case string(String)
    /// A date, stored as seconds since 2001-01-01.
    case date(Date)
    /// A UUID, stored as its 16 bytes.
    case uuid(UUID)
    /// Bytes.
    case data(Data)
    /// A URL, stored as its absolute string.
    case url(URL)

    /// The attribute type this value naturally belongs to (integers: `int64`).
    public var naturalType: AttributeType {
        switch self {
        case .bool: .bool
        case .int: .int64
        case .double: .double
        case .float: .float
        case .decimal: .decimal
        case .string: .string
        case .date: .date
        case .uuid: .uuid
        case .data: .data
        case .url: .url
        }
    }

    /// A short name of the value's kind, for messages ("Int", "String", …).
    public var kindName: String {
        switch self {
        case .int: "Int"
        default: naturalType.displayName
        }
    }

    /// The value as a `Double`, for numeric comparisons across types.
    var numericValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        case .float(let value): Double(value)
        case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }

    /// True when an attribute of `type` stores the value as it is: nothing
    /// to convert or check.
    func isStored(as type: AttributeType) -> Bool {
        switch (self, type) {
        case (.bool, .bool), (.double, .double), (.float, .float), (.decimal, .decimal), (.string, .string),
             (.date, .date), (.uuid, .uuid), (.data, .data), (.url, .url), (.int, .int64):
            true
        default:
            false
        }
    }

    /// Converts the value to `type`, as setting it on an attribute of that type
    /// would: integers widen to floating point and decimal, integers are
    /// range-checked, strings become URLs. Returns `nil` when it doesn't fit.
    public func converted(to type: AttributeType) -> AttributeValue? {
        if isStored(as: type) { return self }
        switch (self, type) {
        case (.int(let value), _) where type.isInteger:
            return type.integerRange.contains(value) ? self : nil
        case (.int(let value), .double): return .double(Double(value))
        case (.int(let value), .float): return .float(Float(value))
        case (.int(let value), .decimal): return .decimal(Decimal(value))
        case (.float(let value), .double): return .double(Double(value))
        case (.double(let value), .float):
            let narrowed = Float(value)
            return Double(narrowed) == value || value.isNaN ? .float(narrowed) : nil
        case (.double(let value), .decimal) where value.isFinite: return .decimal(Decimal(value))
        case (.string(let value), .url): return URL(string: value).map(AttributeValue.url)
        case (.url(let value), .string): return .string(value.absoluteString)
        default: return nil
        }
    }
}

extension AttributeValue {
    /// Equal values of the same case. Unlike `Double`'s `==`, NaN equals NaN
    /// (for doubles, floats and dates alike),
    /// so setting an attribute to NaN twice changes nothing, and predicates
    /// holding NaN compare equal to themselves.
    public static func == (lhs: AttributeValue, rhs: AttributeValue) -> Bool {
        // One operand at a time, not `switch (lhs, rhs)`: the tuple copies
        // both values (retaining a string's storage) on every comparison,
        // which is every typed property set.
        switch lhs {
        case .bool(let a): if case .bool(let b) = rhs { return a == b }
        case .int(let a): if case .int(let b) = rhs { return a == b }
        case .double(let a): if case .double(let b) = rhs { return Self.same(a, b) }
        case .float(let a): if case .float(let b) = rhs { return a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }
        case .decimal(let a): if case .decimal(let b) = rhs { return a == b }
        case .string(let a): if case .string(let b) = rhs { return a == b }
        case .date(let a):
            if case .date(let b) = rhs { return Self.same(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate) }
        case .uuid(let a): if case .uuid(let b) = rhs { return a == b }
        case .data(let a): if case .data(let b) = rhs { return a == b }
        case .url(let a): if case .url(let b) = rhs { return a == b }
        }
        return false
    }

    /// Whether two doubles are the same value as stored: by their bits, so
    /// -0.0 is not 0.0 (what a store keeps is lossless, and setting one
    /// over the other is a change), every NaN the same. (Predicates and
    /// sorts compare numbers instead: there -0 == 0; see ``compare(_:_:)``.)
    @inline(__always)
    static func same(_ a: Double, _ b: Double) -> Bool {
        a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    }

    /// `lhs == rhs` for optional values, without the copies `Optional`'s
    /// own `==` makes of both (it switches over a tuple of them).
    static func same(_ lhs: borrowing AttributeValue?, _ rhs: borrowing AttributeValue?) -> Bool {
        switch lhs {
        case .none:
            switch rhs {
            case .none: return true
            case .some: return false
            }
        case .some(let a):
            switch rhs {
            case .none: return false
            case .some(let b): return a == b
            }
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .bool(let value): hasher.combine(0); hasher.combine(value)
        case .int(let value): hasher.combine(1); hasher.combine(value)
        case .double(let value): hasher.combine(2); hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern)
        case .float(let value): hasher.combine(3); hasher.combine(value.isNaN ? Float.nan.bitPattern : value.bitPattern)
        case .decimal(let value): hasher.combine(4); hasher.combine(value)
        case .string(let value): hasher.combine(5); hasher.combine(value)
        case .date(let value):
            hasher.combine(6)
            let seconds = value.timeIntervalSinceReferenceDate
            hasher.combine(seconds.isNaN ? Double.nan.bitPattern : seconds.bitPattern)
        case .uuid(let value): hasher.combine(7); hasher.combine(value)
        case .data(let value): hasher.combine(8); hasher.combine(value)
        case .url(let value): hasher.combine(9); hasher.combine(value)
        }
    }
}

extension AttributeValue: CustomStringConvertible {
    /// The value as the inspect tool shows it: strings unquoted, dates in
    /// ISO 8601 (with the fractional digits they have), data as its size and first bytes.
    public var description: String {
        switch self {
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .float(let value): String(value)
        case .decimal(let value): value.description
        case .string(let value): value
        case .date(let value): ExactDate.text(value)
        case .uuid(let value): value.uuidString
        case .data(let value): "<\(value.count) bytes\(value.isEmpty ? "" : ": ")\(value.prefix(8).map { String(format: "%02x", $0) }.joined())\(value.count > 8 ? "…" : "")>"
        case .url(let value): value.absoluteString
        }
    }
}
