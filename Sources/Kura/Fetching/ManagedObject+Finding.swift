// The classic accessors of a Core Data `DBAccessors` category, one line each.
//
//     let all = try News.findAll(in: context)
//     let one = try News.findFirst(by: "objectId", value: id, in: context)
//     try News.deleteAll(in: context); try context.save()

/// The typed accessors every ``ManagedObject`` subclass has: `News.findAll(in:)`
/// returns `[News]`. (A protocol, because only a protocol extension can
/// return an array of `Self`.)
public protocol ManagedObjectAccessors {}

extension ManagedObject: ManagedObjectAccessors {}

extension ManagedObjectAccessors where Self: ManagedObject {
    /// Every object of this class's entity (that match `predicate`), in the
    /// order of `sortDescriptors` (store order when empty).
    public static func findAll(
        in context: ManagedObjectContext, matching predicate: FetchPredicate? = nil, sortedBy sortDescriptors: [FetchSortDescriptor] = []
    ) throws -> [Self] {
        try context.fetch(FetchRequest(entityName: entityName, predicate: predicate, sortDescriptors: sortDescriptors), as: Self.self)
    }

    /// The first object (in store order) whose attribute `key` equals `value`,
    /// or `nil`. With a unique index on `key`, this is one index lookup.
    public static func findFirst<Value: AttributeValueConvertible>(
        by key: String, value: Value, in context: ManagedObjectContext
    ) throws -> Self? {
        var request = FetchRequest(
            entityName: entityName, predicate: .comparison(.key(key), .equal, .value(value.attributeValue)))
        request.fetchLimit = 1
        return try context.fetch(request, as: Self.self).first
    }

    /// Deletes every object of this class's entity (that match `predicate`)
    /// from `context`, and returns how many. Save the context to write it.
    @discardableResult
    public static func deleteAll(in context: ManagedObjectContext, matching predicate: FetchPredicate? = nil) throws -> Int {
        let objects = try context.fetch(FetchRequest(entityName: entityName, predicate: predicate))
        for object in objects { context.delete(object) }
        return objects.count
    }
}
