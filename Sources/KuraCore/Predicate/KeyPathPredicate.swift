/// A predicate on objects of `Root`, built from key paths of `Root`: the
/// same tree as NSPredicate text, with keys, value types and the class the
/// compiler checks.
///
/// ```swift
/// let popular = \Article.rating > 3 && \Article.author?.name == "Ann"      // author.name == "Ann"
/// let kura = KeyPathPredicate.compare(\Article.title, .beginsWith, "kura", options: .caseInsensitive)
/// let request = FetchRequest<Article>(predicate: popular || kura)
/// ```
///
/// A key path may go through to-one relationships (`\Article.author?.name`
/// is `author.name`); for to-many relationships, quantifiers, counts and
/// subqueries, use Foundation's `#Predicate` (``FetchRequest/init(predicate:sortBy:)-(Predicate<Object>?,_)``)
/// or the format syntax. A `KeyPathPredicate<Article>` can only go into a
/// request of `Article`s: `FetchRequest<Author>(predicate: \Article.rating > 1)`
/// doesn't compile.
public struct KeyPathPredicate<Root: ManagedObject>: Sendable, Hashable, CustomStringConvertible {
    /// The predicate, untyped.
    public let predicate: FetchPredicate

    /// A predicate of `Root` from a ``FetchPredicate`` (text or a tree):
    /// its keys are checked when a request fetches with it, not here.
    public init(_ predicate: FetchPredicate) {
        self.predicate = predicate
    }

    /// The predicate as NSPredicate text.
    public var description: String { predicate.predicateFormat }

    /// Every object.
    public static var `true`: KeyPathPredicate { KeyPathPredicate(.true) }
    /// No object.
    public static var `false`: KeyPathPredicate { KeyPathPredicate(.false) }

    /// Both predicates.
    public static func && (lhs: KeyPathPredicate, rhs: KeyPathPredicate) -> KeyPathPredicate {
        KeyPathPredicate(lhs.predicate && rhs.predicate)
    }

    /// Either predicate.
    public static func || (lhs: KeyPathPredicate, rhs: KeyPathPredicate) -> KeyPathPredicate {
        KeyPathPredicate(lhs.predicate || rhs.predicate)
    }

    /// The negation.
    public static prefix func ! (predicate: KeyPathPredicate) -> KeyPathPredicate {
        KeyPathPredicate(!predicate.predicate)
    }

    /// `keyPath op[options] value`, for any operator: the way to say
    /// NSPredicate's `[c]`, `[d]` and `[cd]` in code.
    ///
    /// ```swift
    /// KeyPathPredicate.compare(\News.title, .contains, "kura", options: [.caseInsensitive, .diacriticInsensitive])
    /// ```
    public static func compare<Value: AttributeValueConvertible>(
        _ keyPath: KeyPath<Root, Value>, _ operation: FetchPredicate.Operator, _ value: Value,
        options: FetchPredicate.ComparisonOptions = []
    ) -> KeyPathPredicate {
        KeyPathPredicate(.comparison(FetchPredicate.key(keyPath), operation, .value(value.comparisonValue), options: options))
    }

    /// `keyPath op[options] otherKeyPath`: two properties of the same object.
    public static func compare<Value: AttributeValueConvertible, Other: AttributeValueConvertible>(
        _ keyPath: KeyPath<Root, Value>, _ operation: FetchPredicate.Operator, _ other: KeyPath<Root, Other>,
        options: FetchPredicate.ComparisonOptions = []
    ) -> KeyPathPredicate {
        KeyPathPredicate(.comparison(FetchPredicate.key(keyPath), operation, FetchPredicate.key(other), options: options))
    }

    /// `keyPath IN {values…}`.
    public static func `in`<Value: AttributeValueConvertible>(_ keyPath: KeyPath<Root, Value>, _ values: [Value]) -> KeyPathPredicate {
        KeyPathPredicate(.comparison(FetchPredicate.key(keyPath), .in, .list(values.map { .value($0.comparisonValue) })))
    }

    /// `keyPath BETWEEN {lower, upper}`: both bounds included.
    public static func between<Value: AttributeValueConvertible>(
        _ keyPath: KeyPath<Root, Value>, _ lower: Value, _ upper: Value
    ) -> KeyPathPredicate {
        KeyPathPredicate(.comparison(FetchPredicate.key(keyPath), .between, .list([.value(lower.attributeValue), .value(upper.attributeValue)])))
    }

    /// `keyPath == object` for a to-one relationship (`nil`: no destination).
    public static func equals<Value: RelationshipValue>(_ keyPath: KeyPath<Root, Value>, _ object: Value.Destination?) -> KeyPathPredicate {
        KeyPathPredicate(.comparison(FetchPredicate.key(keyPath), .equal, object.map { .object($0.objectID.uriRepresentation) } ?? .value(nil)))
    }
}

/// `keyPath == value` as a predicate: `\News.sortOrder == 3`, `\Article.author?.name == "Ann"`.
public func == <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> KeyPathPredicate<Root> {
    .compare(lhs, .equal, rhs)
}

/// `keyPath != value` as a predicate: `\News.sortOrder != 3`.
public func != <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> KeyPathPredicate<Root> {
    .compare(lhs, .notEqual, rhs)
}

/// `keyPath < value` as a predicate: `\News.sortOrder < 3`.
public func < <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> KeyPathPredicate<Root> {
    .compare(lhs, .less, rhs)
}

/// `keyPath <= value` as a predicate: `\News.sortOrder <= 3`.
public func <= <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> KeyPathPredicate<Root> {
    .compare(lhs, .lessOrEqual, rhs)
}

/// `keyPath > value` as a predicate: `\News.sortOrder > 3`.
public func > <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> KeyPathPredicate<Root> {
    .compare(lhs, .greater, rhs)
}

/// `keyPath >= value` as a predicate: `\News.sortOrder >= 3`.
public func >= <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> KeyPathPredicate<Root> {
    .compare(lhs, .greaterOrEqual, rhs)
}

/// `keyPath == object` for a to-one: `\Article.author == ann`, `\Article.author == nil`.
public func == <Root: ManagedObject, Value: RelationshipValue>(lhs: KeyPath<Root, Value>, rhs: Value.Destination?) -> KeyPathPredicate<Root> {
    .equals(lhs, rhs)
}

/// `keyPath != object` for a to-one: `\Article.author != nil`.
public func != <Root: ManagedObject, Value: RelationshipValue>(lhs: KeyPath<Root, Value>, rhs: Value.Destination?) -> KeyPathPredicate<Root> {
    !.equals(lhs, rhs)
}
