import Foundation

// The classic accessors of a Core Data `DBAccessors` category, one line each.
//
//     let all = try News.findAll(in: context, matching: #Predicate { $0.sortOrder > 3 }, sortedBy: [SortDescriptor(\.sortOrder)])
//     let one = try News.findFirst(by: \.objectId, value: id, in: context)
//     try News.deleteAll(in: context); try context.save()

/// The typed accessors every ``ManagedObject`` subclass has: `News.findAll(in:)`
/// returns `[News]`. (A protocol, because only a protocol extension can
/// return an array of `Self`.)
public protocol ManagedObjectAccessors {}

extension ManagedObject: ManagedObjectAccessors {}

extension ManagedObjectAccessors where Self: ManagedObject {
    /// Every object of this class's entity (that match `predicate`, text or
    /// a tree), in the order of `sortDescriptors` (store order when empty).
    public static func findAll(
        in context: ManagedObjectContext, matching predicate: FetchPredicate? = nil, sortedBy sortDescriptors: [FetchSortDescriptor] = []
    ) throws -> [Self] {
        try context.fetch(FetchRequest<Self>(predicate: predicate, sortBy: sortDescriptors))
    }

    /// Every object of this class's entity that matches a predicate of its
    /// key paths, in the order of `sortDescriptors`.
    public static func findAll(
        in context: ManagedObjectContext, matching predicate: KeyPathPredicate<Self>, sortedBy sortDescriptors: [FetchSortDescriptor] = []
    ) throws -> [Self] {
        try context.fetch(FetchRequest<Self>(predicate: predicate, sortBy: sortDescriptors))
    }

    /// Every object of this class's entity, in the order of Foundation sort
    /// descriptors: `News.findAll(in: context, sortedBy: [SortDescriptor(\.sortOrder)])`.
    public static func findAll(in context: ManagedObjectContext, sortedBy sortDescriptors: [SortDescriptor<Self>]) throws -> [Self] {
        try context.fetch(FetchRequest<Self>(predicate: nil, sortBy: sortDescriptors))
    }

    /// Every object of this class's entity that matches a Foundation
    /// predicate (`#Predicate`), in the order of `sortDescriptors`.
    public static func findAll(
        in context: ManagedObjectContext, matching predicate: Predicate<Self>, sortedBy sortDescriptors: [SortDescriptor<Self>] = []
    ) throws -> [Self] {
        try context.fetch(FetchRequest<Self>(predicate: predicate, sortBy: sortDescriptors))
    }

    /// The first object (in store order) whose property at `keyPath` is
    /// `value`, or `nil`. With a unique index on it, this is one index lookup.
    ///
    /// ```swift
    /// let article = try Article.findFirst(by: \.url, value: url, in: context)
    /// ```
    public static func findFirst<Value: AttributeValueConvertible>(
        by keyPath: KeyPath<Self, Value>, value: Value, in context: ManagedObjectContext
    ) throws -> Self? {
        try context.first(FetchRequest<Self>(predicate: keyPath == value))
    }

    /// The first object (in store order) whose attribute `key` equals `value`,
    /// or `nil`. With a unique index on `key`, this is one index lookup.
    public static func findFirst<Value: AttributeValueConvertible>(
        by key: String, value: Value, in context: ManagedObjectContext
    ) throws -> Self? {
        try context.first(FetchRequest<Self>(predicate: .comparison(.key(key), .equal, .value(value.attributeValue))))
    }

    /// Deletes every object of this class's entity (that match `predicate`)
    /// from `context`, and returns how many. Save the context to write it.
    @discardableResult
    public static func deleteAll(in context: ManagedObjectContext, matching predicate: FetchPredicate? = nil) throws -> Int {
        try delete(FetchRequest<Self>(predicate: predicate), in: context)
    }

    /// Deletes the objects of this class's entity that match a predicate of
    /// its key paths, and returns how many. Save the context to write it.
    @discardableResult
    public static func deleteAll(in context: ManagedObjectContext, matching predicate: KeyPathPredicate<Self>) throws -> Int {
        try delete(FetchRequest<Self>(predicate: predicate), in: context)
    }

    /// Deletes the objects of this class's entity that match a Foundation
    /// predicate (`#Predicate`), and returns how many. Save the context to write it.
    @discardableResult
    public static func deleteAll(in context: ManagedObjectContext, matching predicate: Predicate<Self>) throws -> Int {
        try delete(FetchRequest<Self>(predicate: predicate), in: context)
    }

    private static func delete(_ request: FetchRequest<Self>, in context: ManagedObjectContext) throws -> Int {
        let objects = try context.fetch(request)
        for object in objects { context.delete(object) }
        return objects.count
    }
}
