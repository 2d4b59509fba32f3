/// An entity: a kind of object, with named, typed attributes and indexes.
///
/// Build one from a ``ManagedObject`` subclass (its ``Attribute`` properties
/// become the attributes), or as plain values for an entity with no Swift
/// class, whose objects are plain `ManagedObject`s used through
/// ``ManagedObject/value(forKey:)``:
///
/// ```swift
/// let news = try EntityDescription(News.self)
/// let note = try EntityDescription(name: "Note", attributes: [
///     AttributeDescription(name: "text", type: .string),
///     AttributeDescription(name: "created", type: .date),
/// ], indexes: [.index("created")])
/// ```
///
/// An entity is immutable once made, and `Sendable`.
public final class EntityDescription: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name, unique in its model.
    public let name: String
    /// The attributes, in the order their values are stored.
    public let attributes: [AttributeDescription]
    /// The indexes.
    public let indexes: [IndexDescription]
    /// The class of the entity's objects; `ManagedObject` itself for an entity
    /// with no Swift class.
    public let managedObjectClass: ManagedObject.Type

    let attributeNumbers: [String: Int]
    /// Each index's attributes as positions in ``attributes``.
    let indexAttributeNumbers: [[Int]]
    /// Resolves typed properties to attribute positions.
    let keyPaths: AttributeKeyPaths
    /// For checking stored records quickly: each attribute's record tag,
    /// and its payload size (-1 when it varies).
    let recordTags: [UInt8]
    let recordPayloadSizes: [Int]
    /// True when a record's values need parsing to be checked (decimals, URLs).
    let recordHasParsedValues: Bool

    /// Makes an entity from plain values.
    ///
    /// - Throws: ``KuraError/invalidModel(_:)`` for an empty or invalid name,
    ///   duplicate attribute or index names, an index over an unknown
    ///   attribute, or a default value that doesn't fit its attribute.
    public init(
        name: String,
        attributes: [AttributeDescription],
        indexes: [IndexDescription] = [],
        managedObjectClass: ManagedObject.Type = ManagedObject.self
    ) throws {
        try Self.checkName(name, of: "entity")
        var numbers: [String: Int] = [:]
        var checked: [AttributeDescription] = []
        for attribute in attributes {
            try Self.checkName(attribute.name, of: "attribute of \(name)")
            guard numbers.updateValue(checked.count, forKey: attribute.name) == nil else {
                throw KuraError.invalidModel("entity \(name) has two attributes named '\(attribute.name)'")
            }
            var attribute = attribute
            if let value = attribute.defaultValue {
                guard let converted = value.converted(to: attribute.type) else {
                    throw KuraError.invalidModel(
                        "the default of \(name).\(attribute.name) is \(value.kindName), not \(attribute.type.displayName)")
                }
                attribute.defaultValue = converted
            }
            checked.append(attribute)
        }
        guard checked.count <= Int(UInt16.max) else {
            throw KuraError.invalidModel("entity \(name) has more than \(UInt16.max) attributes")
        }
        var indexNames = Set<String>()
        var indexNumbers: [[Int]] = []
        for index in indexes {
            guard !index.attributes.isEmpty else {
                throw KuraError.invalidModel("index \(name).\(index.name) has no attributes")
            }
            guard indexNames.insert(index.name).inserted else {
                throw KuraError.invalidModel("entity \(name) has two indexes named '\(index.name)'")
            }
            try Self.checkName(index.name, of: "index of \(name)")
            indexNumbers.append(try index.attributes.map { attribute in
                guard let number = numbers[attribute] else {
                    throw KuraError.invalidModel("index \(name).\(index.name) names unknown attribute '\(attribute)'")
                }
                return number
            })
        }
        self.name = name
        self.attributes = checked
        self.indexes = indexes
        self.managedObjectClass = managedObjectClass
        self.attributeNumbers = numbers
        self.indexAttributeNumbers = indexNumbers
        self.keyPaths = AttributeKeyPaths(count: checked.count)
        self.recordTags = checked.map { RecordFormat.tag(for: $0.type).rawValue }
        self.recordPayloadSizes = checked.map { RecordFormat.payloadSize(of: RecordFormat.tag(for: $0.type)) ?? -1 }
        self.recordHasParsedValues = checked.contains { $0.type == .decimal || $0.type == .url }
    }

    /// Names are identifiers (a letter or `_`, then letters, digits and `_`),
    /// so every key can be written in a predicate.
    private static func checkName(_ name: String, of what: String) throws {
        guard let first = name.unicodeScalars.first,
              first == "_" || first.properties.isAlphabetic,
              name.unicodeScalars.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        else {
            throw KuraError.invalidModel("'\(name)' is not a valid name for an \(what): use letters, digits and _")
        }
    }

    /// The attribute called `name`, or `nil`.
    public func attribute(named name: String) -> AttributeDescription? {
        attributeNumbers[name].map { attributes[$0] }
    }

    /// The position of the attribute called `name` in ``attributes``, or `nil`.
    public func attributeNumber(named name: String) -> Int? {
        attributeNumbers[name]
    }

    /// The position of `key`, or ``KuraError/unknownAttribute(entity:key:)``.
    func requireAttributeNumber(_ key: String) throws -> Int {
        guard let number = attributeNumbers[key] else {
            throw KuraError.unknownAttribute(entity: name, key: key)
        }
        return number
    }

    /// True when `other` has the same name, attributes and indexes (the class
    /// doesn't count): the same schema, so the same stored bytes.
    public func hasSameSchema(as other: EntityDescription) -> Bool {
        name == other.name && attributes == other.attributes && indexes == other.indexes
    }

    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// `News(title: String, …)`.
    public var description: String {
        "\(name)(\(attributes.map(\.description).joined(separator: ", ")))"
    }
}
