/// Values of unknown type that may be optionals.
enum AnyOptional {
    /// `value` without the `Optional`s around it (`nil` for none).
    static func unwrapped(_ value: Any) -> Any? {
        // One cast (its answer cached by the runtime per type), not a
        // `Mirror`: a predicate's every constant comes through here.
        guard let optional = value as? any OptionalProtocol else { return value }
        return optional.heldValue.flatMap(unwrapped)
    }
}

/// `Optional`, whatever it wraps: lets code that holds a type ask what an
/// optional wraps, and code that holds a value what it holds.
protocol OptionalProtocol {
    static var wrappedType: Any.Type { get }
    /// What the optional holds, `nil` for none.
    var heldValue: Any? { get }
}

extension Optional: OptionalProtocol {
    static var wrappedType: Any.Type { Wrapped.self }
    var heldValue: Any? { map { $0 as Any } }
}

extension AnyOptional {
    /// `type` without the `Optional`s around it.
    static func unwrappedType(_ type: Any.Type) -> Any.Type {
        guard let optional = type as? any OptionalProtocol.Type else { return type }
        return unwrappedType(optional.wrappedType)
    }
}
