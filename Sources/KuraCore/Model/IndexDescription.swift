/// An index over one or more attributes of an entity, unique or not.
///
/// An index keeps the entity's objects sorted by the indexed values, so a
/// fetch can find equal values, ranges and prefixes without reading every
/// object, and can return objects in the index's order without sorting. A
/// unique index also refuses, at save, a second object with the same values.
///
/// ```swift
/// IndexDescription.unique("objectId")
/// IndexDescription.index("lastName", "firstName")    // compound
/// ```
///
/// `nil` sorts before every value. Objects whose indexed values include `nil`
/// never conflict in a unique index (SQLite's rule). Indexed strings and data
/// must fit the 511-byte index key (LMDB's limit, kept on every engine) together with the other indexed values.
public struct IndexDescription: Sendable, Hashable {
    /// The index's name, unique within its entity. Defaults to the attribute
    /// names joined with `_` (with `_` for the dots of composite fields).
    public var name: String
    /// The indexed attributes, most significant first.
    public var attributes: [String]
    /// True when no two objects may have the same (non-nil) values.
    public var isUnique: Bool

    /// An index on `attributes`, in order; its name defaults to the attribute names joined with `_`.
    public init(_ attributes: [String], isUnique: Bool = false, name: String? = nil) {
        self.attributes = attributes
        self.isUnique = isUnique
        // (A composite's field, `address.city`, names the index `address_city`.)
        self.name = name ?? String(attributes.joined(separator: "_").map { $0 == "." ? "_" : $0 })
    }

    /// A non-unique index over `attributes`.
    public static func index(_ attributes: String...) -> IndexDescription {
        IndexDescription(attributes)
    }

    /// A unique index over `attributes`.
    public static func unique(_ attributes: String...) -> IndexDescription {
        IndexDescription(attributes, isUnique: true)
    }
}

extension IndexDescription: CustomStringConvertible {
    /// `unique index objectId (objectId)`, as `schema` shows it.
    public var description: String {
        "\(isUnique ? "unique " : "")index \(name) (\(attributes.joined(separator: ", ")))"
    }
}
