/// What ``PersistentStore/check(problemLimit:)`` found.
public struct StoreCheckReport: Sendable {
    /// One entity's records and index entries as checked.
    public struct EntityReport: Sendable {
        /// The entity's name.
        public var entity: String
        /// How many records it has.
        public var records: Int
        /// Index name → entries.
        public var indexEntries: [String: Int]
        /// Relationship name → entries, for relationships that keep their own.
        public var relationshipEntries: [String: Int] = [:]
        /// References to objects that no longer exist, left as a `noAction`
        /// delete rule leaves them (not a problem).
        public var danglingReferences = 0
    }

    /// What was found for each entity.
    public var entities: [EntityReport] = []
    /// What is wrong, one line each (at most the limit asked for).
    public var problems: [String] = []
    /// The store file's pages: every page of the snapshot checked, how many
    /// hold data, and how many are free for reuse (the space a compacting
    /// copy would give back).
    public var totalPages = 0
    public var usedPages = 0
    public var freePages = 0
    /// The size of a page, in bytes.
    public var pageSize = 0
    /// How many problems there are in all, listed or not.
    public var problemCount = 0

    /// True when the file's pages are sound, every record decodes, every
    /// index entry has its record and every record its index entries, unique
    /// indexes hold, ID counters are ahead of every primary key, and every
    /// relationship's references exist and agree from both sides.
    public var isConsistent: Bool { problemCount == 0 }
}

extension PersistentStore {
    /// Checks the store's consistency in one read transaction, changing
    /// nothing. First the file itself: every page of the snapshot is read
    /// from the file (not through the memory map) and its structure checked,
    /// so a damaged file is reported, never a crash; a database whose pages
    /// are damaged is not read further. Then the objects: every record decodes against the model; every index entry
    /// names an existing record whose values give exactly that key, and every
    /// record has each of its index entries; no two records share the values
    /// of a unique index; each entity's ID counter is past its largest
    /// primary key. Readers and the writer carry on meanwhile.
    ///
    /// On an engine without a file of Kura's (in memory, PostgreSQL) the
    /// objects are checked alone, in one read transaction; the page figures
    /// are 0.
    ///
    /// Cancelling the task that runs it stops it with `CancellationError`.
    ///
    /// - Parameter problemLimit: How many problems to describe (all are counted).
    /// - Complexity: O(n) in records and index entries, with the index keys of
    ///   one entity in memory at a time.
    public func check(problemLimit: Int = 100) throws -> StoreCheckReport {
        guard let engine = engine as? any StructureCheckingEngine else {
            return try read { txn in
                var report = StoreCheckReport()
                try check(structure: nil, in: txn) { text in
                    report.problemCount += 1
                    if report.problems.count < problemLimit { report.problems.append(text) }
                } entity: { report.entities.append($0) }
                return report
            }
        }
        var report = StoreCheckReport()
        try engine.performStructureCheckedRead(problemLimit: problemLimit) { engineTransaction, structure in
            let txn = StoreTransaction(engineTransaction, isRequesting: transactionsRequest)
            report = StoreCheckReport()
            report.totalPages = structure.totalPages
            report.usedPages = structure.usedPages
            report.freePages = structure.freePages
            report.pageSize = structure.pageSize
            for line in structure.problems { report.problems.append("file: \(line)") }
            report.problemCount = structure.problemCount
            try check(structure: structure, in: txn) { text in
                report.problemCount += 1
                if report.problems.count < problemLimit { report.problems.append(text) }
            } entity: { report.entities.append($0) }
        }
        return report
    }

    private func check(
        structure: StoreFileStructure?, in txn: StoreTransaction,
        problem: (String) -> Void, entity addEntity: (StoreCheckReport.EntityReport) -> Void
    ) throws {
        func readable(_ space: String) -> Bool { structure?.isIntact(space: space) ?? true }
        guard readable(StoreLayout.metaSpaceName) else {
            problem("the meta database is damaged: the objects can't be checked")
            return
        }
        // The entries each index space should hold, with the record they
        // point to: a space a family shares (an index declared on a
        // superentity) gets every member's, and is checked once, with its owner.
        var expected: [String: [[UInt8]: UInt64]] = [:]
        var reports: [StoreCheckReport.EntityReport?] = []
        for entity in model.entities {
            let spaces = spaces(for: entity)
            let indexNames = entity.indexes.indices.map { StoreLayout.indexSpaceName(entity, $0) }
            guard readable(StoreLayout.recordsSpaceName(entity)) else {
                problem("\(entity.name): its records' pages are damaged; its objects and indexes were not checked")
                reports.append(nil)
                continue
            }
            var entityReport = StoreCheckReport.EntityReport(entity: entity.name, records: 0, indexEntries: [:])
            var largestKey: UInt64 = 0
            try spaces.records.forEach(in: txn, readAhead: .max) { entry in
                try CancellationCheck.check()
                entityReport.records += 1
                guard entry.key.count == 8 else {
                    problem("\(entity.name): a record key is \(entry.key.count) bytes, not 8")
                    return true
                }
                let primaryKey = StoreLayout.primaryKey(fromSuffixOf: entry.key)
                largestKey = max(largestKey, primaryKey)
                if !entity.ownsKey(primaryKey) {
                    problem("\(entity.name): record \(primaryKey)'s key carries another entity's tag")
                } else if entity.isAbstract {
                    // No object is of an abstract entity: a record here was
                    // filed under its family's root instead of its own entity.
                    problem("\(entity.name): record \(primaryKey) is stored under an abstract entity, which has no objects of its own")
                }
                let view: RecordView
                do {
                    view = try RecordView(validating: entry.value, entity: entity)
                } catch {
                    problem("\(entity.name) record \(primaryKey) does not decode: \(error)")
                    return true
                }
                for (position, index) in spaces.indexes.enumerated() {
                    let key = index.key(primaryKey: primaryKey) { view.value($0, of: entity) }.key
                    if let other = expected[indexNames[position], default: [:]].updateValue(primaryKey, forKey: key) {
                        problem("\(entity.name): records \(other) and \(primaryKey) have the same values in unique index \(index.description.name)")
                    }
                }
                return true
            }
            let counter = try meta.value(forKey: StoreLayout.counterKey(entity), in: txn)
                .flatMap { StoreLayout.littleEndian($0, as: UInt64.self) } ?? (entity.layout.keyTag | 1)
            if largestKey >= counter {
                problem("\(entity.name): the ID counter (\(counter)) is not past the largest primary key (\(largestKey))")
            }
            reports.append(entityReport)
        }
        for (entity, report) in zip(model.entities, reports) {
            guard var entityReport = report else { continue }
            let spaces = spaces(for: entity)
            for (position, index) in spaces.indexes.enumerated() {
                let name = StoreLayout.indexSpaceName(entity, position)
                // An inherited index's space is its superentity's to check.
                guard entity.indexOwner(position).entity === entity else { continue }
                guard readable(name) else {
                    problem("\(entity.name) index \(index.description.name): its pages are damaged; it was not checked")
                    continue
                }
                var entries = 0
                var left = expected.removeValue(forKey: name) ?? [:]
                try index.space.forEach(in: txn, readAhead: .max) { entry in
                    try CancellationCheck.check()
                    entries += 1
                    guard entry.value.count == 8 else {
                        problem("\(entity.name) index \(index.description.name): an entry has a \(entry.value.count)-byte value")
                        return true
                    }
                    let pointsTo = StoreLayout.primaryKey(fromSuffixOf: entry.value)
                    let key = Array(entry.key)
                    if left[key] == pointsTo {
                        left[key] = nil
                    } else {
                        problem("\(entity.name) index \(index.description.name): an entry names record \(pointsTo), which is missing or has other values")
                    }
                    return true
                }
                for primaryKey in left.values.sorted() {
                    problem("\(entity.concreteEntity(forKey: primaryKey).name) record \(primaryKey) has no entry in index \(index.description.name)")
                }
                entityReport.indexEntries[index.description.name] = entries
            }
            try checkRelationships(of: entity, in: txn, readable: readable, problem: problem, report: &entityReport)
            addEntity(entityReport)
        }
    }
}
