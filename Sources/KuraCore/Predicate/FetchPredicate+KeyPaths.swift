extension FetchPredicate {
    /// The key expression of a key path: `\News.title` → `title`, through
    /// to-one relationships too: `\Article.author?.name` → `author.name`.
    /// (Predicates typed by their class are ``KeyPathPredicate``s.)
    public static func key<Root: ManagedObject, Value>(_ keyPath: KeyPath<Root, Value>) -> Expression {
        .key(PropertyKeyPathNames.path(of: keyPath))
    }
}
