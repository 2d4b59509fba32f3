/// How a save settles a conflict by its ``MergePolicy``: an update whose
/// stored record is not the one its context read, and an insert merged into
/// the stored object (or earlier insert) that has its unique values. Each
/// merge works on whole value lists, so the save writes one record, with
/// its index and to-one entries moved as an update's are.
extension PersistentStore {
    /// What a save does with an update whose stored record changed since
    /// its context read it.
    enum UpdateSettlement {
        /// Listed in ``KuraError/conflict(objectIDs:)``.
        case conflict
        /// Written as the context has it.
        case write
        /// Written with these values and to-one destinations.
        case merge(ContiguousArray<AttributeValue?>, references: [UInt64?])
        /// Not written: the stored record stays.
        case keepStored
    }

    /// Settles an update of a record that another save changed, by `policy`.
    ///
    /// - Parameters:
    ///   - stored: the record stored now; its values are checked here.
    ///   - references: the update's to-one destinations, resolved.
    func settle(
        _ update: ChangeSet.Update, stored: RecordView, references: [UInt64?], policy: MergePolicy
    ) throws -> UpdateSettlement {
        let entity = update.objectID.entity
        switch policy {
        case .error: return .conflict
        case .overwrite: return .write
        case .rollback: return .keepStored
        case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump: break
        }
        try checkAllValues(of: stored, entity)
        let storeWins = policy == .mergeByPropertyStoreTrump
        // What the context read, to tell what the store changed since.
        let read = update.readRecord
        func storeChanged(_ number: Int) -> Bool {
            guard let read else { return true }
            return read.withUnsafeBytes { bytes in
                !AttributeValue.same(RecordView(trusted: bytes).value(number, of: entity), stored.value(number, of: entity))
            }
        }
        func storeChangedReference(_ field: Int) -> Bool {
            guard let read else { return true }
            return read.withUnsafeBytes { RecordView(trusted: $0).reference(field) } != stored.reference(field)
        }
        var values = ContiguousArray<AttributeValue?>()
        values.reserveCapacity(entity.attributes.count)
        for number in entity.attributes.indices {
            let objectChanged = update.changedAttributes?.contains(number) ?? true
            let takesObject = objectChanged && !(storeWins && storeChanged(number))
            values.append(takesObject ? update.value(number) : stored.value(number, of: entity))
        }
        var merged: [UInt64?] = []
        for (position, link) in entity.toOneLinks.enumerated() {
            let field = link.field!
            let objectChanged = update.changedRelationships.contains(link.number)
            let takesObject = objectChanged && !(storeWins && storeChangedReference(field))
            merged.append(takesObject && position < references.count ? references[position] : stored.reference(field))
        }
        return .merge(values, references: merged)
    }

    /// The values of an insert merged into `base` (a stored object's, or an
    /// earlier insert's with the same unique values) by `policy`.
    ///
    /// - Parameter attributes: false when `base` has the insert's
    ///   attributes already, and only its to-ones are to merge.
    static func upsert(
        _ insert: ChangeSet.Insert, references: [UInt64?],
        into base: inout (values: ContiguousArray<AttributeValue?>, references: [UInt64?]), policy: MergePolicy,
        attributes: Bool = true
    ) {
        switch policy {
        case .error, .rollback, .mergeByPropertyStoreTrump:
            return  // the stored object's values stand
        case .overwrite:
            if attributes { base.values = insert.values }
            if !references.isEmpty { base.references = references }
        case .mergeByPropertyObjectTrump:
            if attributes {
                for number in insert.changedAttributes.elements { base.values[number] = insert.values[number] }
            }
            for (position, destination) in references.enumerated() where destination != nil && position < base.references.count {
                base.references[position] = destination
            }
        }
    }

    /// Checks every value of a stored record before a merge decodes them.
    func checkAllValues(of view: RecordView, _ entity: EntityDescription) throws {
        do {
            try view.checkValues(Array(entity.attributes.indices), of: entity)
        } catch {
            throw corruptRecord(entity, error)
        }
    }
}
