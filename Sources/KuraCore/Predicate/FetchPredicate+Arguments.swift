import Foundation

/// Turns the Swift values given as `%@` arguments and substitution variables
/// into predicate values: attribute values, objects and object IDs (compared
/// with relationships and `SELF`), and arrays of them.
enum PredicateArguments {
    struct Unsupported: Error, CustomStringConvertible {
        let typeName: String
        var description: String { "a \(typeName) is not an attribute value" }
    }

    /// `value` as a predicate expression: a constant, or a list for an array.
    static func expression(from value: Any?) throws -> FetchPredicate.Expression {
        if let common = commonValue(value) { return .value(common) }
        guard let value = flatten(value) else { return .value(nil) }
        if let expression = value as? FetchPredicate.Expression { return expression }
        if let object = value as? ManagedObject { return .object(object.objectID.uriRepresentation) }
        if let objectID = value as? ObjectID { return .object(objectID.uriRepresentation) }
        if let objects = value as? Set<ManagedObject> { return .list(objects.map { .object($0.objectID.uriRepresentation) }) }
        if let array = value as? [Any?] { return .list(try array.map(expression(from:))) }
        if let array = value as? [Any] { return .list(try array.map(expression(from:))) }
        return .value(try attributeValue(from: value))
    }

    /// `value` as an attribute value (`nil` for nil).
    static func attributeValue(from value: Any?) throws -> AttributeValue? {
        if let common = commonValue(value) { return common }
        guard let value = flatten(value) else { return nil }
        if let attributeValue = value as? AttributeValue { return attributeValue }
        if let convertible = value as? any AttributeValueConvertible { return convertible.comparisonValue }
        if let integer = value as? any BinaryInteger {
            guard let exact = Int64(exactly: integer) else { throw Unsupported(typeName: "\(type(of: value)) this large") }
            return .int(exact)
        }
        if let text = value as? Substring { return .string(String(text)) }
        if value is NSNull { return nil }
        throw Unsupported(typeName: "\(type(of: value))")
    }

    /// The most common argument types. Template lookups pass one value
    /// each, so this path must be cheap: the value's type is compared with
    /// each first (a dynamic cast from `Any` costs far more);
    /// casts then catch what bridges to them (`NSString`, `NSNumber`).
    @inline(__always)
    static func commonValue(_ value: Any?) -> AttributeValue? {
        guard let value else { return nil }
        func exact<T>(_ value: T) -> AttributeValue? { exactValue(value) }
        if let exact = _openExistential(value, do: exact) { return exact }
        switch value {
        case let text as String: return .string(text)
        case let number as Int: return .int(Int64(number))
        case let attributeValue as AttributeValue: return attributeValue
        case let uuid as UUID: return .uuid(uuid)
        case let number as Double: return .double(number)
        case let date as Date: return .date(date)
        default: return nil
        }
    }

    /// `value` as an attribute value when its type is exactly one of the
    /// common ones.
    @inline(__always)
    private static func exactValue<T>(_ value: T) -> AttributeValue? {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .int(Int64(unsafeBitCast(value, to: Int.self))) }
        if T.self == AttributeValue.self { return unsafeBitCast(value, to: AttributeValue.self) }
        if T.self == UUID.self { return .uuid(unsafeBitCast(value, to: UUID.self)) }
        if T.self == Double.self { return .double(unsafeBitCast(value, to: Double.self)) }
        if T.self == Date.self { return .date(unsafeBitCast(value, to: Date.self)) }
        return nil
    }

    /// Unwraps nested optionals: `Optional(Optional(nil))` is nil.
    private static func flatten(_ value: Any?) -> Any? {
        guard let value else { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            return mirror.children.first.flatMap { flatten($0.value) }
        }
        return value
    }
}
