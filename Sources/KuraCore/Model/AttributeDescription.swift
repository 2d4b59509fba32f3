/// One attribute of an entity: its name, type, whether it may be `nil`, and
/// the value a new object starts with.
///
/// ```swift
/// AttributeDescription(name: "title", type: .string)
/// AttributeDescription(name: "imageURL", type: .string, isOptional: true)
/// AttributeDescription(name: "sortOrder", type: .int64, defaultValue: .int(0))
/// ```
///
/// Subclasses of ``ManagedObject`` don't write these by hand: each ``Attribute``
/// property becomes one.
public struct AttributeDescription: Sendable, Hashable {
    /// The attribute's name: the key in predicates, sort descriptors and
    /// ``ManagedObject/value(forKey:)``.
    public var name: String
    /// The type of the attribute's values.
    public var type: AttributeType
    /// True when the attribute may have no value. A non-optional attribute
    /// without a value fails validation at save.
    public var isOptional: Bool
    /// The value a newly inserted object starts with, or `nil` for none.
    public var defaultValue: AttributeValue?
    /// The attribute's name in an earlier model version (Core Data's
    /// `renamingIdentifier`): migrating a store renames that attribute to
    /// this one and keeps its values.
    public var renamingIdentifier: String?
    /// How a ``AttributeType/data`` attribute's bytes read: as they are, or
    /// as the JSON of a `Codable` value (which `kura` shows as text).
    public var encoding: AttributeEncoding
    /// For a list of values (`[String]`, `[Int]`, stored as a JSON array in
    /// a ``AttributeEncoding/json`` data attribute): the type of its
    /// elements, which predicates test one by one (`ANY tags == 'swift'`,
    /// `'swift' IN tags`, `tags CONTAINS 'swift'`). `nil` for other attributes.
    public var elementType: AttributeType?

    /// An attribute called `name` of `type`; `defaultValue` is what new objects start with.
    public init(name: String, type: AttributeType, isOptional: Bool = false, defaultValue: AttributeValue? = nil,
                renamingIdentifier: String? = nil, encoding: AttributeEncoding = .plain, elementType: AttributeType? = nil) {
        self.elementType = elementType
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.encoding = encoding
    }
}

/// What the bytes of a ``AttributeType/data`` attribute hold.
public enum AttributeEncoding: String, Sendable, Hashable, Codable {
    /// Bytes as they are (`Data`).
    case plain
    /// A `Codable` value as JSON: UTF-8, keys sorted, Foundation's
    /// `JSONEncoder` defaults otherwise (dates as seconds since 2001, data
    /// as base64), so equal values are equal bytes.
    case json
}

extension AttributeDescription: CustomStringConvertible {
    /// `name: Type?` and the default, as `schema` shows it.
    public var description: String {
        let kind = elementType.map { "[\($0.displayName)]" } ?? (encoding == .json ? "JSON" : type.displayName)
        var text = "\(name): \(kind)\(isOptional ? "?" : "")"
        if let defaultValue { text += " = \(defaultValue)" }
        return text
    }
}
