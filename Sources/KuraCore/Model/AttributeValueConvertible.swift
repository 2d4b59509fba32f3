import Foundation

/// A Swift type that an attribute can hold: `Bool`, the integers, `Double`,
/// `Float`, `Decimal`, `String`, `Date`, `UUID`, `Data`, `URL`, an
/// enumeration whose raw value is one of them, and an `Optional` of any of
/// them.
///
/// Typed properties (``Attribute``) and ``ManagedObject/value(forKey:as:)``
/// convert through this protocol. Conform your own types to it with no code
/// of your own: an enumeration (`enum Status: String,
/// AttributeValueConvertible`) gets its requirements from its raw value,
/// which is what the store keeps; a `Codable` type (a struct, an enum with
/// payloads, arrays and dictionaries of them) is stored as its JSON (see
/// the extensions on `RawRepresentable` and `Codable` types).
/// The conversions are inlinable, so a typed property's accessor, which is
/// specialized where it is declared, converts without a generic call.
public protocol AttributeValueConvertible {
    /// The attribute type that stores this Swift type.
    static var attributeType: AttributeType { get }
    /// How the stored bytes of a ``AttributeType/data`` attribute read:
    /// ``AttributeEncoding/json`` for a `Codable` value's, ``AttributeEncoding/plain`` otherwise.
    static var attributeEncoding: AttributeEncoding { get }
    /// For a list of scalars (`[String]`): its elements' type, which
    /// predicates test one by one; `nil` otherwise.
    static var attributeElementType: AttributeType? { get }
    /// True for `Optional`: the attribute may have no value.
    static var isOptionalAttribute: Bool { get }
    /// Makes a value from what the store holds; `nil` when it doesn't fit
    /// (a non-optional type given no value, or a value of another type).
    init?(attributeValue: AttributeValue?)
    /// The value to store; `nil` for an empty optional.
    var attributeValue: AttributeValue? { get }
    /// The value a predicate compares stored values with, for `==`, `!=`
    /// and `IN` (``attributeValue`` unless the type says otherwise): a
    /// `Codable` value holding NaN gives one equal to no stored value, as
    /// Swift's synthesized `==` is false for it.
    var comparisonValue: AttributeValue? { get }
}

extension AttributeValueConvertible {
    @inlinable public var comparisonValue: AttributeValue? { attributeValue }
    @inlinable public static var isOptionalAttribute: Bool { false }
    @inlinable public static var attributeElementType: AttributeType? { nil }
    /// Plain, for a type that isn't `Codable`. (The standard types, all
    /// `Codable`, say so themselves: the `Codable` extension's JSON would
    /// be theirs otherwise.)
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
}

extension Optional: AttributeValueConvertible where Wrapped: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { Wrapped.attributeType }
    @inlinable public static var attributeEncoding: AttributeEncoding { Wrapped.attributeEncoding }
    @inlinable public static var attributeElementType: AttributeType? { Wrapped.attributeElementType }
    @inlinable public static var isOptionalAttribute: Bool { true }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard let attributeValue else {
            self = .none
            return
        }
        guard let wrapped = Wrapped(attributeValue: attributeValue) else { return nil }
        self = .some(wrapped)
    }
    @inlinable public var attributeValue: AttributeValue? { self?.attributeValue }
    @inlinable public var comparisonValue: AttributeValue? { self?.comparisonValue }
}

extension Bool: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .bool }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .bool(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .bool(self) }
}

extension Int: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .int64 }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .int(let value) = attributeValue else { return nil }
        self = Int(value)
    }
    @inlinable public var attributeValue: AttributeValue? { .int(Int64(self)) }
}

extension Int64: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .int64 }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .int(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .int(self) }
}

extension Int32: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .int32 }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .int(let value) = attributeValue, let narrowed = Int32(exactly: value) else { return nil }
        self = narrowed
    }
    @inlinable public var attributeValue: AttributeValue? { .int(Int64(self)) }
}

extension Int16: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .int16 }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .int(let value) = attributeValue, let narrowed = Int16(exactly: value) else { return nil }
        self = narrowed
    }
    @inlinable public var attributeValue: AttributeValue? { .int(Int64(self)) }
}

extension Double: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .double }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .double(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .double(self) }
}

extension Float: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .float }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .float(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .float(self) }
}

extension Decimal: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .decimal }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .decimal(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .decimal(self) }
}

extension String: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .string }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .string(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .string(self) }
}

extension Date: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .date }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .date(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .date(self) }
}

extension UUID: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .uuid }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .uuid(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .uuid(self) }
}

extension Data: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .data }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .data(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .data(self) }
}

extension URL: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { .url }
    @inlinable public static var attributeEncoding: AttributeEncoding { .plain }
    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .url(let value) = attributeValue else { return nil }
        self = value
    }
    @inlinable public var attributeValue: AttributeValue? { .url(self) }
}
