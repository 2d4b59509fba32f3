/// Declares a relationship of a ``ManagedObject`` subclass: the property's
/// name is the relationship's name, and its type says what it holds:
///
/// | type | relationship |
/// |---|---|
/// | `Author?` | to-one (`isOptional: false` makes it required at save) |
/// | `Set<Tag>` | to-many |
/// | `[Chapter]` | ordered to-many (members keep their order; no duplicates) |
///
/// ```swift
/// final class Author: ManagedObject {
///     @Attribute(.unique) var name: String = ""
///     @Relationship(inverse: \News.author, deleteRule: .cascade) var news: Set<News>
/// }
/// final class News: ManagedObject {
///     @Attribute var title: String = ""
///     @Relationship var author: Author?
///     @Relationship(inverse: \Tag.news) var tags: Set<Tag>
/// }
/// ```
///
/// Name the inverse on one side (or both, agreeing); Kura pairs them and
/// keeps both sides in step: `news.author = ann` also puts `news` in
/// `ann.news` and takes it out of the previous author's. Reading a
/// relationship gives the context's objects, as faults whose values load
/// when first read; a to-many reads its members' IDs without their records.
///
/// Setting a relationship to an object of another context, or one that left
/// its context, doesn't change it: the next ``ManagedObjectContext/save()``
/// throws ``KuraError/objectInAnotherContext(_:)`` or
/// ``KuraError/objectDetached(_:)`` naming it (``ManagedObject/setObject(_:forKey:)``
/// throws at once).
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: RelationshipDeclaration {
    /// The inverse's key path on the destination. Every object of the class
    /// holds this storage, so it is a key path (one retain), not a closure.
    let inverseKeyPath: AnyKeyPath?
    let deleteRule: RelationshipDescription.DeleteRule
    let isRequired: Bool
    let minimumCount: Int
    let maximumCount: Int?

    /// A relationship, with its inverse on the destination, its delete rule;
    /// for a to-one, whether it may be `nil` at save; for a to-many, how many
    /// members it needs at save.
    public init<Destination: ManagedObject, Inverse>(
        inverse: KeyPath<Destination, Inverse>, deleteRule: RelationshipDescription.DeleteRule = .nullify,
        isOptional: Bool = true, minimumCount: Int = 0, maximumCount: Int? = nil
    ) where Value.Destination == Destination {
        inverseKeyPath = inverse
        self.deleteRule = deleteRule
        self.isRequired = !isOptional
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
    }

    /// A relationship whose inverse, if any, is named on the destination.
    public init(
        deleteRule: RelationshipDescription.DeleteRule = .nullify, isOptional: Bool = true,
        minimumCount: Int = 0, maximumCount: Int? = nil
    ) {
        inverseKeyPath = nil
        self.deleteRule = deleteRule
        self.isRequired = !isOptional
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
    }

    @available(*, unavailable, message: "@Relationship declares properties of ManagedObject subclasses only")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }

    @available(*, unavailable, message: "@Relationship declares properties of ManagedObject subclasses only")
    public var projectedValue: RelationshipMembers {
        fatalError("unavailable")
    }

    /// `$news`: the relationship as ``RelationshipMembers``, which can count
    /// a to-many's stored members without making their objects, and change
    /// it through methods that throw instead of stopping the program.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        projected projectedKeyPath: KeyPath<Object, RelationshipMembers>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> RelationshipMembers {
        object.relationshipView(forStorage: storageKeyPath)
    }

    /// Reads and writes the relationship through the enclosing object.
    /// Inlinable, so each property's accessor is specialized for its type in
    /// the module that declares it; the work is in non-generic entry points.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            if let probe = object.probeRelationship(storage: storageKeyPath, destination: Value.Destination.self, isToMany: Value.isToMany) {
                return Value.probing(probe)
            }
            if Value.isToMany { return Value(objects: object.relationshipMembers(forStorage: storageKeyPath)) }
            return Value(destination: object.relationshipDestination(forStorage: storageKeyPath))
        }
        set {
            object.setRelationship(newValue.relationshipObjects, forStorage: storageKeyPath)
        }
    }

    var inverse: (@Sendable () -> String)? {
        inverseKeyPath.map { keyPath in
            let kept = UncheckedSendableKeyPath(keyPath: keyPath)
            return { PropertyKeyPathNames.path(of: kept.keyPath, root: Value.Destination.self) }
        }
    }

    var destinationType: ManagedObject.Type { Value.Destination.self }
    var isToMany: Bool { Value.isToMany }
    var isOrdered: Bool { Value.isOrdered }
    var isOptional: Bool { !isRequired }
}

/// What the model builder reads from a ``Relationship`` through reflection.
protocol RelationshipDeclaration {
    var destinationType: ManagedObject.Type { get }
    var isToMany: Bool { get }
    var isOrdered: Bool { get }
    var isOptional: Bool { get }
    /// Finds the inverse's name by probing the destination class.
    var inverse: (@Sendable () -> String)? { get }
    var deleteRule: RelationshipDescription.DeleteRule { get }
    var minimumCount: Int { get }
    var maximumCount: Int? { get }
}

/// A key path kept for resolving an inverse's name later. `@unchecked`: key
/// paths are immutable.
struct UncheckedSendableKeyPath: @unchecked Sendable {
    let keyPath: AnyKeyPath
}

/// The Swift types a ``Relationship`` property can have: an optional or
/// required destination, a `Set` of them, or an `Array` for an ordered
/// to-many. You don't conform your own types to it.
public protocol RelationshipValue {
    /// The class of the destination objects.
    associatedtype Destination: ManagedObject
    static var isToMany: Bool { get }
    static var isOrdered: Bool { get }
    static var isOptional: Bool { get }
    /// The value a probe object gives while key paths are read for their
    /// names: a to-one's is `probe` (so the key path can go on through it),
    /// a to-many's has `probe` as its one member.
    static func probing(_ probe: ManagedObject) -> Self
    /// The value of the relationship's objects (one or none for a to-one).
    init(objects: [ManagedObject])
    /// The value of a to-one's destination.
    init(destination: ManagedObject?)
    /// The relationship's objects (one or none for a to-one).
    var relationshipObjects: [ManagedObject] { get }
}

extension RelationshipValue {
    public init(destination: ManagedObject?) { self.init(objects: destination.map { [$0] } ?? []) }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    public typealias Destination = Wrapped
    public static var isToMany: Bool { false }
    public static var isOrdered: Bool { false }
    public static var isOptional: Bool { true }
    public static func probing(_ probe: ManagedObject) -> Self { probe as? Wrapped }
    public init(objects: [ManagedObject]) { self = objects.first.map { $0 as! Wrapped } }
    @inlinable
    public init(destination: ManagedObject?) {
        if let destination { self = .some(destination as! Wrapped) } else { self = .none }
    }
    public var relationshipObjects: [ManagedObject] { self.map { [$0] } ?? [] }
}

extension Set: RelationshipValue where Element: ManagedObject {
    public typealias Destination = Element
    public static var isToMany: Bool { true }
    public static var isOrdered: Bool { false }
    public static var isOptional: Bool { true }
    public static func probing(_ probe: ManagedObject) -> Self { Set((probe as? Element).map { [$0] } ?? []) }
    @inlinable
    public init(objects: [ManagedObject]) {
        self.init(minimumCapacity: objects.count)
        for object in objects { insert(object as! Element) }
    }
    public var relationshipObjects: [ManagedObject] { Array(self) }
}

extension Array: RelationshipValue where Element: ManagedObject {
    public typealias Destination = Element
    public static var isToMany: Bool { true }
    public static var isOrdered: Bool { true }
    public static var isOptional: Bool { true }
    public static func probing(_ probe: ManagedObject) -> Self { (probe as? Element).map { [$0] } ?? [] }
    @inlinable
    public init(objects: [ManagedObject]) { self = objects.map { $0 as! Element } }
    public var relationshipObjects: [ManagedObject] { self }
}
