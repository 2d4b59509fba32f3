/// Values of unknown type that may be optionals.
enum AnyOptional {
    /// `value` without the `Optional`s around it (`nil` for none).
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}

/// `Optional`, whatever it wraps: lets code that holds a type ask what an
/// optional wraps.
protocol OptionalProtocol {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalProtocol {
    static var wrappedType: Any.Type { Wrapped.self }
}

extension AnyOptional {
    /// `type` without the `Optional`s around it.
    static func unwrappedType(_ type: Any.Type) -> Any.Type {
        guard let optional = type as? any OptionalProtocol.Type else { return type }
        return unwrappedType(optional.wrappedType)
    }
}
