import Foundation

/// Batch requests: work done in the store, in one write transaction each,
/// without making a managed object (Core Data's `NSBatchDeleteRequest`,
/// `NSBatchUpdateRequest` and `NSBatchInsertRequest`).
///
/// What a batch does and doesn't do, as Core Data documents for its own:
/// - it finds its objects with the query planner (an index range when the
///   predicate allows) in the transaction that writes them, so nothing
///   saved meanwhile slips between finding and writing;
/// - indexes, unique constraints and relationship entries stay right; a
///   delete applies the delete rules (cascade, nullify; deny refuses the
///   batch); a unique constraint broken refuses the batch; nothing is
///   written when it throws;
/// - no object hook runs (`awakeFromInsert`, `willSave`, `validateFor…`,
///   `prepareForDeletion`), and no object is made: a batch insert checks
///   only that required attributes have values and that values fit their
///   types;
/// - it reads the store, not this context's unsaved changes;
/// - its changes reach contexts as a save's do: this context merges them at
///   once (its objects refreshed, deleted ones gone), contexts that merge
///   automatically merge them, observed fetches see them, and the history
///   records them (so other processes do); ``BatchResult/changes`` goes to
///   ``mergeChanges(_:)`` for any other context.
extension ManagedObjectContext {
    /// Deletes in the store every object `request` describes, and what
    /// their delete rules delete.
    ///
    /// - Throws: ``KuraError/validationFailed(_:)`` when a deny rule
    ///   refuses; a predicate's or a store's error. Nothing is deleted then.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        let roots: (StoreTransaction) throws -> [(EntityDescription, [UInt64])]
        if let objectIDs = request.objectIDs {
            if let temporary = objectIDs.first(where: \.isTemporaryID) {
                throw KuraError.invalidObjectID("\(temporary) was never saved: a batch deletes saved objects")
            }
            let byEntity = Dictionary(grouping: objectIDs) { IdentityKey($0.entity) }
            roots = { _ in byEntity.values.map { ($0[0].entity, $0.map(\.number)) } }
        } else {
            let fetch = try PreparedFetch(request.fetchRequest, model: model)
            roots = { [store] txn in try store.matchingKeys(of: fetch, in: txn) }
        }
        let (changes, _) = try store.writeBatch(author: transactionAuthor) { [store] txn in
            try store.batchDeleteChanges(of: try roots(txn), in: txn)
        }
        var done = ContextChanges()
        done.deleted = changes.deletes.map(\.objectID)
        done.updated = changes.updates.map(\.objectID) + changes.memberships.compactMap { change in
            guard case .stored(let key) = change.owner else { return nil }
            return ObjectID(entity: change.link.source, number: key, isTemporaryID: false)
        }
        return finishBatch(done, objectIDs: done.deleted)
    }

    /// Sets ``BatchUpdateRequest/propertiesToUpdate`` on every object
    /// `request` describes, in the store.
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)`` (a relationship
    ///   included: a batch sets attributes only), ``KuraError/typeMismatch(entity:key:expected:found:)``,
    ///   ``KuraError/validationFailed(_:)`` for `nil` in a required
    ///   attribute, ``KuraError/uniqueConstraintViolated(entity:index:values:objectID:)``.
    ///   Nothing is changed then.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        let fetch = try PreparedFetch(request.fetchRequest, model: model)
        let entity = fetch.entity
        var values: [Int: AttributeValue?] = [:]
        for (key, value) in request.propertiesToUpdate {
            let number = try entity.requireAttributeNumber(key)
            values[number] = try Self.batchValue(value, for: number, of: entity)
        }
        let (changes, _) = try store.writeBatch(author: transactionAuthor) { [store] txn in
            var changes = ChangeSet()
            let matching = try store.matchingKeys(of: fetch, in: txn)
            try store.readAhead(matching, members: false, in: txn)
            for (member, keys) in matching {
                for key in keys {
                    guard let record = try store.storedRecordBytes(key, of: member, in: txn) else { continue }
                    changes.updates.append(store.batchUpdate(of: key, entity: member, record: record, setting: values))
                }
            }
            return changes
        }
        var done = ContextChanges()
        done.updated = changes.updates.map(\.objectID)
        return finishBatch(done, objectIDs: done.updated)
    }

    /// Inserts an object for each of ``BatchInsertRequest/objects``, in the
    /// store. Under a merge policy other than ``MergePolicy/error`` (this
    /// context's), an object whose unique values are stored already updates
    /// that object instead, as a save's insert does (see ``MergePolicy``).
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)``,
    ///   ``KuraError/typeMismatch(entity:key:expected:found:)``,
    ///   ``KuraError/validationFailed(_:)`` for required attributes without
    ///   a value, ``KuraError/uniqueConstraintViolated(entity:index:values:objectID:)``,
    ///   ``KuraError/invalidModel(_:)`` for an abstract entity. Nothing is
    ///   inserted then.
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        let entity = try model.requireEntity(named: request.entityName)
        guard !entity.isAbstract else {
            throw KuraError.invalidModel("entity \(entity.name) is abstract: insert objects of one of its sub-entities")
        }
        var changes = ChangeSet()
        changes.mergePolicy = mergePolicy
        changes.inserts.reserveCapacity(request.objects.count)
        var failures: [ValidationFailure] = []
        let noReferences = [ChangeSet.Reference?](repeating: nil, count: entity.toOneLinks.count)
        func append(_ values: ContiguousArray<AttributeValue?>, given: AttributeMask) {
            let position = changes.inserts.count
            let objectID = ObjectID(temporary: UInt64(position + 1), of: entity)
            for number in entity.requiredAttributeNumbers where values[number] == nil {
                failures.append(ValidationFailure(
                    objectID: objectID, key: entity.attributes[number].name, message: "object \(position) has no value for it"))
            }
            changes.inserts.append(ChangeSet.Insert(
                objectID: objectID, values: values, references: noReferences, changedAttributes: given))
        }
        switch request.objects {
        case .dictionaries(let objects):
            for object in objects {
                var values = entity.newObjectValues()
                var given = AttributeMask()
                for (key, value) in object {
                    let number = try entity.requireAttributeNumber(key)
                    values[number] = try Self.batchValue(value, for: number, of: entity, checksRequired: false)
                    given.insert(number)
                }
                append(values, given: given)
            }
        case .rows(let keys, let rows):
            let numbers = try keys.map { try entity.requireAttributeNumber($0) }
            var given = AttributeMask()
            for number in numbers { given.insert(number) }
            for row in rows {
                guard row.count == numbers.count else {
                    throw KuraError.invalidFetchRequest(
                        "a row of \(row.count) values for \(numbers.count) keys (\(keys.joined(separator: ", ")))")
                }
                var values = entity.newObjectValues()
                for (number, value) in zip(numbers, row) {
                    values[number] = try Self.batchValue(value, for: number, of: entity, checksRequired: false)
                }
                append(values, given: given)
            }
        case .filled(let filling):
            var row = BatchInsertValues(entity: entity)
            for index in 0..<filling.count {
                row.startRow()
                try filling.fill(index, &row)
                if let failure = row.failure { throw failure }
                append(row.values, given: row.given)
            }
        }
        if !failures.isEmpty { throw KuraError.validationFailed(failures) }
        let prepared = changes
        let (_, result) = try store.writeBatch(author: transactionAuthor) { _ in prepared }
        var done = ContextChanges()
        var objectIDs: [ObjectID] = []
        for (position, key) in result.insertedKeys.enumerated() {
            let objectID = ObjectID(entity: entity, number: key, isTemporaryID: false)
            switch result.mergedInserts[position] {
            case .intoStored?: done.updated.append(objectID)
            case .intoInsert?: continue
            case nil: done.inserted.append(objectID)
            }
            objectIDs.append(objectID)
        }
        return finishBatch(done, objectIDs: objectIDs)
    }

    /// Deletes every object of `model` (and of its sub-entities, unless
    /// `includeSubclasses` is false) that `predicate` matches, in the store,
    /// as SwiftData's `ModelContext.delete(model:where:)`; see
    /// ``execute(_:)-(BatchDeleteRequest)``.
    public func delete<Object: ManagedObject>(
        model: Object.Type, where predicate: Predicate<Object>? = nil, includeSubclasses: Bool = true
    ) throws {
        var request = FetchRequest<Object>(predicate: predicate)
        request.includesSubentities = includeSubclasses
        try execute(BatchDeleteRequest(request))
    }

    /// `value` for attribute `number`, of its type; `nil` refused for a
    /// required attribute (unless `checksRequired` is false: an insert
    /// checks every required attribute at once).
    static func batchValue(
        _ value: AttributeValue?, for number: Int, of entity: EntityDescription, checksRequired: Bool = true
    ) throws -> AttributeValue? {
        let type = entity.attributes[number].type  // the type only: copying the description retains its strings
        guard let value else {
            if checksRequired && !entity.attributes[number].isOptional {
                throw KuraError.validationFailed([ValidationFailure(
                    objectID: ObjectID(temporary: 0, of: entity), key: entity.attributes[number].name,
                    message: "a batch can't set a required attribute to nil")])
            }
            return nil
        }
        guard let converted = value.converted(to: type) else {
            throw KuraError.typeMismatch(entity: entity.name, key: entity.attributes[number].name, expected: type, found: value.kindName)
        }
        if type == .data { try entity.checkJSON(converted, at: number) }
        return converted
    }

    /// After a batch committed: this context merges its changes, the
    /// contexts that merge automatically and the observed fetches hear of
    /// them.
    private func finishBatch(_ changes: ContextChanges, objectIDs: [ObjectID]) -> BatchResult {
        mergeChanges(changes)
        store.broadcast(changes, from: inbox)
        store.observers.deliver(changes, from: ObjectIdentifier(self))
        return BatchResult(objectIDs: objectIDs, changes: changes)
    }
}
