/// A property's value as change tracking reports it (``ManagedObject/changedValues()``,
/// ``ManagedObject/committedValues(forKeys:)``): an attribute's value, or a
/// relationship's destinations by ID.
///
/// ```swift
/// news.changedValues()   // ["title": .attribute(.string("Kura ships")), "author": .toOne(ann.objectID)]
/// ```
public enum PropertyValue: Sendable, Hashable, CustomStringConvertible {
    /// An attribute's value (`nil`: none).
    case attribute(AttributeValue?)
    /// A to-one's destination (`nil`: none).
    case toOne(ObjectID?)
    /// A to-many's members: in order for an ordered one, else by ID.
    case toMany([ObjectID])

    /// The attribute value, or `nil` for a relationship.
    public var attributeValue: AttributeValue?? {
        if case .attribute(let value) = self { return .some(value) }
        return nil
    }

    public var description: String {
        switch self {
        case .attribute(let value): value.map { "\($0)" } ?? "nil"
        case .toOne(let id): id.map(\.description) ?? "nil"
        case .toMany(let ids): "{" + ids.map(\.description).joined(separator: ", ") + "}"
        }
    }
}
