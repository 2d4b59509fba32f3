import Foundation

/// How to order fetched objects by one attribute.
///
/// ```swift
/// FetchSortDescriptor(key: "sortOrder")
/// FetchSortDescriptor(key: "title", ascending: false, comparison: .caseInsensitiveCompare)
/// FetchSortDescriptor(\News.dateCreated, ascending: false)
/// ```
///
/// With several descriptors, later ones order objects the earlier ones find
/// equal; objects equal on every descriptor keep their store order (saved
/// objects by primary key, then unsaved ones in the order they were
/// inserted), so sorting is stable. `nil` sorts before every value when
/// ascending and after every value when descending (SQLite's rule).
public struct FetchSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// How two values compare.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        /// Values in Kura's order (``AttributeValue/compare(_:_:)``): numbers by
        /// value, strings by code point. An index on the key can give this order.
        case compare
        /// Strings ignoring case (Unicode case folding); other values as `compare`.
        case caseInsensitiveCompare
        /// Strings as Foundation's `localizedStandardCompare` (the Finder's
        /// order: case-insensitive, numbers by value, "file9" before "file10"):
        /// what Foundation's `SortDescriptor` calls `.localizedStandard`.
        case localizedStandardCompare
        /// Strings as Foundation's `localizedCompare` (the current locale's
        /// order): what Foundation's `SortDescriptor` calls `.localized`.
        case localizedCompare
    }

    /// The attribute to sort by.
    public var key: String
    /// True for smallest first.
    public var ascending: Bool
    /// How values compare.
    public var comparison: Comparison

    /// Sorts by the attribute `key`, ascending or descending, compared with `comparison`.
    public init(key: String, ascending: Bool = true, comparison: Comparison = .compare) {
        self.key = key
        self.ascending = ascending
        self.comparison = comparison
    }

    /// A descriptor for the attribute of a key path: `FetchSortDescriptor(\News.title)`,
    /// through to-one relationships too: `FetchSortDescriptor(\Article.author?.name)`.
    public init<Root: ManagedObject, Value>(
        _ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: Comparison = .compare
    ) {
        self.init(key: PropertyKeyPathNames.path(of: keyPath), ascending: ascending, comparison: comparison)
    }

    /// `title ASC`, `title DESC caseInsensitiveCompare`.
    public var description: String {
        "\(key) \(ascending ? "ASC" : "DESC")\(comparison == .compare ? "" : " \(comparison.rawValue)")"
    }
}
