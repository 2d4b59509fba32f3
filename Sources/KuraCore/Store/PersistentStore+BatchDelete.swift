/// A batch delete's change set: the objects asked for, and what their
/// relationships' delete rules do, found in the store's entries, as a
/// context's `delete(_:)` finds them among objects:
///
/// - cascade deletes the destinations (and theirs, in turn);
/// - nullify takes the deleted objects out of their destinations' inverses
///   (a to-one inverse's record is rewritten without the reference; a
///   to-many inverse loses the member, an ordered one keeps its order);
/// - deny refuses the whole batch when a destination is not deleted too;
/// - a relationship without an inverse that points to a deleted object
///   (from an object not deleted) is cleared as nullify would.
extension PersistentStore {
    /// The change set that deletes `roots` (primary keys by concrete
    /// entity) and applies the delete rules, read in `txn`.
    ///
    /// - Throws: ``KuraError/validationFailed(_:)`` naming the object and
    ///   relationship when a deny rule refuses.
    func batchDeleteChanges(of roots: [(EntityDescription, [UInt64])], in txn: StoreTransaction) throws -> ChangeSet {
        try readAhead(roots, members: true, in: txn)
        var plan = BatchDeletePlan()
        for (entity, keys) in roots {
            for key in keys { plan.enqueue(ObjectID(entity: entity, number: key, isTemporaryID: false)) }
        }
        var denied: [(ObjectID, RelationshipLink, ObjectID)] = []
        var nullified: [ObjectID: [Int]] = [:]  // the to-ones to clear, by position among the entity's to-ones
        var memberships: [(owner: ObjectID, link: RelationshipLink, removed: ObjectID)] = []
        var position = 0
        while position < plan.order.count {
            let objectID = plan.order[position]
            position += 1
            let entity = objectID.entity
            guard let record = try storedRecordBytes(objectID.number, of: entity, in: txn) else { continue }
            plan.records[objectID] = record
            let references = references(in: record, of: entity)
            for link in entity.links {
                let related: [ObjectID]
                if link.isToMany {
                    related = try storage(of: link).memberKeys(of: objectID.number, store: self, in: txn)
                        .map { ObjectID(entity: link.destination, number: $0, isTemporaryID: false) }
                } else if let toOne = entity.toOneLinks.firstIndex(where: { $0 === link }), let key = references[toOne] {
                    related = [ObjectID(entity: link.destination, number: key, isTemporaryID: false)]
                } else {
                    related = []
                }
                switch link.description.deleteRule {
                case .cascade:
                    related.forEach { plan.enqueue($0) }
                case .deny:
                    denied += related.map { (objectID, link, $0) }
                case .nullify:
                    guard let inverse = link.inverse else { continue }
                    for destination in related {
                        if inverse.isToMany {
                            memberships.append((destination, inverse, objectID))
                        } else if let toOne = destination.entity.toOneLinks.firstIndex(where: { $0.number == inverse.number }) {
                            nullified[destination, default: []].append(toOne)
                        }
                    }
                case .noAction:
                    continue
                }
            }
            for link in model.linksWithoutInverseTo[IdentityKey(entity)] ?? [] {
                let sources = try storage(of: link).sourceKeys(pointingTo: [objectID.number], cap: .max, store: self, in: txn) ?? []
                for key in sources {
                    let source = ObjectID(entity: link.source, number: key, isTemporaryID: false)
                    if link.isToMany {
                        memberships.append((source, link, objectID))
                    } else if let toOne = source.entity.toOneLinks.firstIndex(where: { $0.number == link.number }) {
                        nullified[source, default: []].append(toOne)
                    }
                }
            }
        }
        if let (objectID, link, destination) = denied.first(where: { !plan.deletes($0.2) }) {
            throw KuraError.validationFailed([ValidationFailure(
                objectID: objectID, key: link.name,
                message: "its delete rule is deny and \(destination) is not deleted with it: the batch deleted nothing")])
        }

        var changes = ChangeSet()
        changes.deletes = plan.order.filter { plan.records[$0] != nil }.map { ChangeSet.Delete(objectID: $0, expectedVersion: nil) }
        for (objectID, positions) in nullified where !plan.deletes(objectID) {
            let entity = objectID.entity
            guard let record = try storedRecordBytes(objectID.number, of: entity, in: txn) else { continue }
            var references = references(in: record, of: entity)
            var changed = AttributeMask()
            for toOne in positions {
                references[toOne] = nil
                changed.insert(entity.toOneLinks[toOne].number)
            }
            changes.updates.append(batchUpdate(
                of: objectID.number, entity: entity, record: record, setting: [:], references: references, changedRelationships: changed))
        }
        var removedByOwner: [ObjectID: [(RelationshipLink, ObjectID)]] = [:]
        for (owner, link, removed) in memberships where !plan.deletes(owner) {
            removedByOwner[owner, default: []].append((link, removed))
        }
        for (owner, removals) in removedByOwner {
            var links: [RelationshipLink] = []
            for (link, _) in removals where !links.contains(where: { $0 === link }) { links.append(link) }
            for link in links {
                let removed = Set(removals.filter { $0.0 === link }.map(\.1.number))
                changes.memberships.append(ChangeSet.MembershipChange(
                    owner: .stored(owner.number), link: link, added: [], removed: removed.sorted().map { .stored($0) }))
            }
        }
        return changes
    }

}

/// The objects a batch delete deletes, in the order found.
struct BatchDeletePlan {
    private(set) var order: [ObjectID] = []
    private var seen = Set<ObjectID>()
    /// Each found object's stored record (an object whose record is gone
    /// already is not deleted).
    var records: [ObjectID: [UInt8]] = [:]

    mutating func enqueue(_ objectID: ObjectID) {
        if seen.insert(objectID).inserted { order.append(objectID) }
    }

    func deletes(_ objectID: ObjectID) -> Bool { seen.contains(objectID) }
}
