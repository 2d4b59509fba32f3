/// One relationship of an entity: a reference to one object of another
/// entity (to-one) or to a set of them (to-many), usually with an inverse
/// relationship on the other side that Kura keeps in step.
///
/// ```swift
/// RelationshipDescription.toOne("author", destination: "Author", inverse: "news")
/// RelationshipDescription.toMany("news", destination: "News", inverse: "author", deleteRule: .cascade)
/// RelationshipDescription.toMany("tags", destination: "Tag", inverse: "news")       // many-to-many
/// RelationshipDescription.toMany("chapters", destination: "Chapter", inverse: "book", isOrdered: true)
/// ```
///
/// Subclasses of ``ManagedObject`` don't write these by hand: each
/// ``Relationship`` property becomes one.
///
/// An inverse is named on one side or both (both must then agree); a
/// relationship without one is allowed, and Kura still keeps the store
/// consistent: deleting the destination removes the references to it (for
/// the `nullify`, `cascade` and `deny` rules of the deleted side, see
/// ``DeleteRule``), because every reference is indexed from both ends.
public struct RelationshipDescription: Sendable, Hashable {
    /// What deleting an object does to the objects its relationship points to.
    public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
        /// The destinations stay; their inverse no longer points at the
        /// deleted object (Core Data's default, and Kura's).
        case nullify
        /// The destinations are deleted too, and their own rules apply.
        case cascade
        /// The save fails with a validation error naming the deleted object
        /// and the objects it still points to; delete or unlink those first.
        case deny
        /// Nothing is done to the destinations: their inverse keeps the
        /// stored reference to an object that no longer exists. Kura gives
        /// it one meaning everywhere: such a reference reads as nothing (a
        /// to-one is `nil`, a to-many leaves the object out, in objects,
        /// predicates, counts, dictionary results and `kura`), from the
        /// moment the object is deleted in a context. (Core Data keeps a
        /// fault that throws when fired.) `check` counts such references
        /// apart from damage; setting the relationship again replaces them.
        case noAction
    }

    /// The relationship's name, unique among the entity's attributes and relationships.
    public var name: String
    /// The entity of the objects it points to.
    public var destinationEntityName: String
    /// The relationship on the destination that points back, if any.
    public var inverseName: String?
    /// True for a set (or, ordered, a list) of destinations.
    public var isToMany: Bool
    /// For a to-many: the destinations keep the order they were given, and
    /// reading gives them in that order (Core Data's ordered relationships).
    public var isOrdered: Bool
    /// For a to-one: whether it may be `nil` at save.
    public var isOptional: Bool
    /// For a to-many: at least this many destinations at save (0: any).
    public var minimumCount: Int
    /// For a to-many: at most this many destinations at save (`nil`: any).
    public var maximumCount: Int?
    /// What deleting the source does to the destinations.
    public var deleteRule: DeleteRule
    /// The relationship's name in an earlier model version: migrating a
    /// store renames that relationship to this one and keeps its objects.
    public var renamingIdentifier: String?

    /// A relationship; prefer ``RelationshipDescription/toOne(_:destination:inverse:deleteRule:isOptional:originalName:)``
    /// and ``RelationshipDescription/toMany(_:destination:inverse:deleteRule:isOrdered:minimumCount:maximumCount:originalName:)``.
    public init(
        name: String, destinationEntityName: String, inverseName: String? = nil, isToMany: Bool,
        isOrdered: Bool = false, isOptional: Bool = true, minimumCount: Int = 0, maximumCount: Int? = nil,
        deleteRule: DeleteRule = .nullify, renamingIdentifier: String? = nil
    ) {
        self.renamingIdentifier = renamingIdentifier
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
        self.deleteRule = deleteRule
    }

    /// A reference to at most one object of `destination`.
    public static func toOne(
        _ name: String, destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true, originalName: String? = nil
    ) -> RelationshipDescription {
        RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: false,
            isOptional: isOptional, deleteRule: deleteRule, renamingIdentifier: originalName)
    }

    /// A set of objects of `destination` (a list when `isOrdered`).
    public static func toMany(
        _ name: String, destination: String, inverse: String? = nil, deleteRule: DeleteRule = .nullify,
        isOrdered: Bool = false, minimumCount: Int = 0, maximumCount: Int? = nil, originalName: String? = nil
    ) -> RelationshipDescription {
        RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse, isToMany: true,
            isOrdered: isOrdered, minimumCount: minimumCount, maximumCount: maximumCount, deleteRule: deleteRule,
            renamingIdentifier: originalName)
    }
}

extension RelationshipDescription: CustomStringConvertible {
    /// `author: Author? (inverse news, nullify)`, as `schema` shows it.
    public var description: String {
        var text = "\(name): "
        if isToMany {
            text += isOrdered ? "[\(destinationEntityName)]" : "Set<\(destinationEntityName)>"
            if minimumCount > 0 || maximumCount != nil {
                text += " (\(minimumCount)…\(maximumCount.map(String.init) ?? ""))"
            }
        } else {
            text += destinationEntityName + (isOptional ? "?" : "")
        }
        text += " (inverse \(inverseName ?? "none"), \(deleteRule.rawValue))"
        return text
    }
}
