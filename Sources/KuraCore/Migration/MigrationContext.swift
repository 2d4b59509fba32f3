/// What a custom stage's code works with: a context on the stage's model
/// (the source in `willMigrate`, the destination in `didMigrate`) whose
/// fetches and saves happen inside the migration's transaction, and the
/// values objects had before the stage.
///
/// Valid only during the closure it is given to; not `Sendable`.
public final class MigrationContext {
    /// A context on the stage's model. Its unsaved changes are saved when
    /// the closure returns; saving earlier is fine.
    public let context: ManagedObjectContext
    /// The stage, counted from 0 among those that run.
    public let stage: Int
    let sourceStore: PersistentStore?

    init(context: ManagedObjectContext, stage: Int, sourceStore: PersistentStore?) {
        self.context = context
        self.stage = stage
        self.sourceStore = sourceStore
    }

    /// The value `key` had in `object` before this stage, as the source
    /// model named it: also for attributes the destination model removed,
    /// renamed (use the old name) or retyped. `nil` in `willMigrate`, for
    /// objects inserted during the stage, and once the object was saved
    /// with new values in this stage (read old values first).
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)`` when the
    ///   source entity has no such attribute.
    public func oldValue(forKey key: String, of object: ManagedObject) throws -> AttributeValue? {
        guard let entity = sourceEntity(of: object.entity) else { return nil }
        let number = try entity.requireAttributeNumber(key)
        let store = context.store
        guard !object.objectID.isTemporaryID,
              let record = try store.read({ txn in try store.record(of: object.objectID, in: txn) }) else { return nil }
        let layout = entity.layout
        return record.withUnsafeBytes { bytes in
            // Fields carry their kind, so a value reads the same whatever
            // type the attribute has now.
            RecordView(trusted: bytes).value(atField: layout.attributeFields[number], absent: layout.absentValues[number])
        }
    }

    /// The objects of an entity of the source model, as dictionaries of
    /// attribute values (nil values left out), in primary-key order: the way
    /// to move the data of an entity the destination removed. In
    /// `didMigrate` only.
    ///
    /// - Throws: ``KuraError/unknownEntity(_:)``.
    public func oldObjects(of entityName: String) throws -> [[String: AttributeValue]] {
        guard let sourceStore else { return [] }
        let entity = try sourceStore.model.requireEntity(named: entityName)
        return try sourceStore.read { txn in
            var objects: [[String: AttributeValue]] = []
            try sourceStore.forEachRecord(of: entity, in: txn) { _, view in
                var values: [String: AttributeValue] = [:]
                for (number, attribute) in entity.attributes.enumerated() {
                    if let value = view.value(number, of: entity) { values[attribute.name] = value }
                }
                objects.append(values)
                return true
            }
            return objects
        }
    }

    private func sourceEntity(of entity: EntityDescription) -> EntityDescription? {
        guard let sourceStore else { return nil }
        return sourceStore.model.entities.first { $0.layout.storageName == entity.layout.storageName }
    }
}
