/// Values of unknown type that may be optionals.
enum AnyOptional {
    /// `value` without the `Optional`s around it (`nil` for none).
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}
