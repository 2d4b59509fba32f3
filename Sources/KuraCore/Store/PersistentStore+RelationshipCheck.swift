extension PersistentStore {
    /// Checks every relationship of `entity`, each by its kind
    /// (``RelationshipStorage/check(in:_:_:)``): each reference points to an
    /// existing object (a reference left by a `noAction` delete rule is
    /// counted apart, not a problem); each to-one's entries hold exactly its
    /// references; a one-to-one's two sides point at each other; each
    /// joined to-many's entries name existing objects and match their other
    /// side (the inverse's entries, or the reverse entries of a to-many
    /// without inverse); each ordered to-many's order lists exactly its members.
    func checkRelationships(
        of entity: EntityDescription, in txn: StoreTransaction, readable: (String) -> Bool,
        problem: (String) -> Void, report: inout StoreCheckReport.EntityReport
    ) throws {
        // An inherited relationship's entries are its superentity's to check
        // (they are the family's: see EntityFamily).
        for storage in spaces(for: entity).relationships where entity.relationshipOwner(storage.link.number) === entity {
            let link = storage.link
            let label = "\(entity.name).\(link.name)"
            guard link.spaceNames.allSatisfy({ readable($0.name) }) else {
                problem("\(label): its entries' pages are damaged; it was not checked")
                continue
            }
            try withoutActuallyEscaping(problem) { problem in
                var checks = RelationshipChecks(label: label, problem: problem, report: report)
                try storage.check(in: self, txn, &checks)
                report = checks.report
            }
        }
    }

    /// True when `entity` has a record `primaryKey`.
    /// For an entity with sub-entities, the key's tag says whose records to look in.
    func exists(_ primaryKey: UInt64, of entity: EntityDescription, in txn: StoreTransaction) throws -> Bool {
        let entity = entity.concreteEntity(forKey: primaryKey)
        return try entity.ownsKey(primaryKey) && spaces(for: entity).records.contains(StoreLayout.key(primaryKey), in: txn)
    }
}

extension RelationshipChecks {
    /// `owner` points to `destination`, which doesn't exist: expected (and
    /// counted) where the other side's delete rule is no action, else a problem.
    mutating func missing(_ owner: UInt64, _ destination: UInt64, of link: RelationshipLink) {
        if link.mayOutliveDestinations {
            report.danglingReferences += 1
        } else {
            problem("\(label) of record \(owner) points to \(link.destination.name) \(destination), which doesn't exist")
        }
    }
}
