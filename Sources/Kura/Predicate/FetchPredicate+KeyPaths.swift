// Predicates from key paths: the same trees as the format syntax, checked by
// the compiler.
//
//     let p = \News.sortOrder > 3 && \News.imageURL != nil
//     let q = FetchPredicate.compare(\News.title, .beginsWith, "Ku", options: .caseInsensitive)
//     let r = FetchPredicate.in(\News.sortOrder, [1, 2, 3])

extension FetchPredicate {
    /// The key expression of an ``Attribute`` key path: `\News.title` → `title`.
    public static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>) -> Expression {
        .key(PropertyKeyPathNames.name(of: keyPath))
    }

    /// `keyPath op[options] value`, for any operator.
    public static func compare<Root: ManagedObject, Value: AttributeValueConvertible>(
        _ keyPath: KeyPath<Root, Value>, _ operation: Operator, _ value: Value, options: ComparisonOptions = []
    ) -> FetchPredicate {
        .comparison(key(keyPath), operation, .value(value.attributeValue), options: options)
    }

    /// `keyPath IN {values…}`.
    public static func `in`<Root: ManagedObject, Value: AttributeValueConvertible>(
        _ keyPath: KeyPath<Root, Value>, _ values: [Value]
    ) -> FetchPredicate {
        .comparison(key(keyPath), .in, .list(values.map { .value($0.attributeValue) }))
    }

    /// `keyPath BETWEEN {lower, upper}`: both bounds included.
    public static func between<Root: ManagedObject, Value: AttributeValueConvertible>(
        _ keyPath: KeyPath<Root, Value>, _ lower: Value, _ upper: Value
    ) -> FetchPredicate {
        .comparison(key(keyPath), .between, .list([.value(lower.attributeValue), .value(upper.attributeValue)]))
    }
}

/// `keyPath == value` as a predicate: `\\News.sortOrder == 3`.
public func == <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> FetchPredicate {
    .compare(lhs, .equal, rhs)
}

/// `keyPath != value` as a predicate: `\\News.sortOrder != 3`.
public func != <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> FetchPredicate {
    .compare(lhs, .notEqual, rhs)
}

/// `keyPath < value` as a predicate: `\\News.sortOrder < 3`.
public func < <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> FetchPredicate {
    .compare(lhs, .less, rhs)
}

/// `keyPath <= value` as a predicate: `\\News.sortOrder <= 3`.
public func <= <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> FetchPredicate {
    .compare(lhs, .lessOrEqual, rhs)
}

/// `keyPath > value` as a predicate: `\\News.sortOrder > 3`.
public func > <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> FetchPredicate {
    .compare(lhs, .greater, rhs)
}

/// `keyPath >= value` as a predicate: `\\News.sortOrder >= 3`.
public func >= <Root: ManagedObject, Value: AttributeValueConvertible>(lhs: KeyPath<Root, Value>, rhs: Value) -> FetchPredicate {
    .compare(lhs, .greaterOrEqual, rhs)
}
