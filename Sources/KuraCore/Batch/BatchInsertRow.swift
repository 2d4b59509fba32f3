/// The values of one object a typed ``BatchInsertRequest`` inserts, set by
/// key path in its `fill` closure (attributes not set get their defaults):
///
/// ```swift
/// let request = BatchInsertRequest(News.self, count: feed.count) { index, row in
///     row.set(\.objectId, to: feed[index].id)
///     row.set(\.title, to: feed[index].title)
/// }
/// try context.execute(request)
/// ```
///
/// A key path that isn't one of the entity's attributes (a relationship,
/// a computed property), or a value that doesn't fit its attribute, makes
/// ``ManagedObjectContext/execute(_:)-(BatchInsertRequest)`` throw, naming
/// it, with nothing inserted.
public struct BatchInsertRow<Object: ManagedObject> {
    @usableFromInline var values: BatchInsertValues

    /// Sets the attribute `keyPath` names to `value` (`nil` leaves an
    /// optional attribute without a value).
    @inlinable
    public mutating func set<Value: AttributeValueConvertible>(_ keyPath: KeyPath<Object, Value>, to value: Value) {
        values.set(value.attributeValue, forKeyPath: keyPath, root: Object.self)
    }

    /// Sets the attribute called `key` to `value`.
    public mutating func set(_ key: String, to value: AttributeValue?) {
        values.set(value, forKey: key)
    }
}

/// What a ``BatchInsertRow`` holds, whatever its object type: the row's
/// values in the entity's order, which were set, and the first thing set
/// wrong. Cheap to copy: what all rows share is in ``BatchInsertKeys``.
@usableFromInline
struct BatchInsertValues {
    let keys: BatchInsertKeys
    var values: ContiguousArray<AttributeValue?> = []
    var given = AttributeMask()
    /// The first thing set wrong: thrown once the row is filled.
    var failure: (any Error)?
    /// How many values this row has set.
    private var setCount = 0

    init(entity: EntityDescription) {
        keys = BatchInsertKeys(entity: entity)
    }

    var entity: EntityDescription { keys.entity }

    /// Starts the next row: the entity's defaults, nothing set.
    mutating func startRow() {
        values = keys.entity.newObjectValues()
        given = AttributeMask()
        setCount = 0
    }

    @usableFromInline
    mutating func set(_ value: AttributeValue?, forKeyPath keyPath: AnyKeyPath, root: ManagedObject.Type) {
        defer { setCount += 1 }
        do {
            set(value, number: try keys.number(for: keyPath, root: root, at: setCount))
        } catch {
            if failure == nil { failure = error }
        }
    }

    mutating func set(_ value: AttributeValue?, forKey key: String) {
        do {
            set(value, number: try keys.entity.requireAttributeNumber(key))
        } catch {
            if failure == nil { failure = error }
        }
    }

    private mutating func set(_ value: AttributeValue?, number: Int) {
        // A value of its attribute's own type as it is (most of them); others converted, or refused.
        if let value, value.isStored(as: keys.types[number]) {
            values[number] = value
            given.insert(number)
            return
        }
        do {
            values[number] = try ManagedObjectContext.batchValue(value, for: number, of: keys.entity, checksRequired: false)
            given.insert(number)
        } catch {
            if failure == nil { failure = error }
        }
    }
}

/// The entity of a typed batch insert's rows and the key paths they set,
/// met so far with their attribute numbers, kept from row to row: rows set
/// the same key paths in the same order, so each is found by its position.
final class BatchInsertKeys {
    let entity: EntityDescription
    /// The attributes' types, by number.
    let types: [AttributeType]
    private var keyPaths: [(keyPath: AnyKeyPath, number: Int)] = []

    init(entity: EntityDescription) {
        self.entity = entity
        types = entity.attributes.map(\.type)
    }

    /// The attribute number of `keyPath`, the `position`-th a row sets.
    func number(for keyPath: AnyKeyPath, root: ManagedObject.Type, at position: Int) throws -> Int {
        if position < keyPaths.count, keyPaths[position].keyPath === keyPath { return keyPaths[position].number }
        if let known = keyPaths.first(where: { $0.keyPath == keyPath }) { return known.number }
        let number = try entity.requireAttributeNumber(PropertyKeyPathNames.path(of: keyPath, root: root))
        keyPaths.append((keyPath, number))
        return number
    }
}
