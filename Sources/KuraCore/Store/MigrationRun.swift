import Foundation

/// The data work of one migration stage, inside the migration's write
/// transaction: what ``SchemaMapping`` says must touch stored objects, and
/// nothing else. A change that only touches the model does no work here.
///
/// Two phases, around a custom stage's `didMigrate`:
/// - ``moveData(in:)``: records whose values are converted, or whose to-one
///   references move, are rewritten; relationships whose storage changed are
///   rebuilt into new spaces.
/// - ``finish(in:)``: required values are filled or
///   reported, new indexes built (unique ones checked), and the spaces
///   the new model no longer uses dropped.
///
/// A custom stage's code changes objects through contexts, whose saves keep
/// every index of its model up to date; new indexes are built after it.
struct MigrationRun {
    let mapping: SchemaMapping
    let source: PersistentStore
    let target: PersistentStore
    let stage: Int
    let progress: (@Sendable (MigrationProgress) -> Void)?
    private(set) var steps: [MigrationReport.Step] = []
    /// For rebuilt to-ones: owner key → destination key, by relationship.
    private var movedReferences: [ObjectIdentifier: [Int: [UInt64: UInt64]]] = [:]

    /// How many records are read and written at a time: writing a space
    /// while a cursor walks it is avoided.
    static let batchSize = 4096
    /// How many objects a failure names.
    static let namedObjects = 20

    init(mapping: SchemaMapping, source: PersistentStore, target: PersistentStore, stage: Int,
         progress: (@Sendable (MigrationProgress) -> Void)?) {
        self.mapping = mapping
        self.source = source
        self.target = target
        self.stage = stage
        self.progress = progress
    }

    // MARK: Phase one

    mutating func moveData(in txn: StoreTransaction) throws {
        for map in mapping.entities where map.source != nil {
            for link in map.target.links where map.rebuiltRelationships[link.number] {
                try rebuild(link, in: map, txn)
            }
        }
        for map in mapping.entities where map.rewritesRecords {
            try rewriteRecords(of: map, in: txn)
        }
    }

    /// Fills the spaces of `link` (new names) from the entries of the
    /// source relationship it continues, or of its inverse's.
    private mutating func rebuild(_ link: RelationshipLink, in map: SchemaMapping.EntityMap, _ txn: StoreTransaction) throws {
        let started = Date()
        var pairs: [(owner: UInt64, members: [UInt64])] = []
        if let number = map.relationshipSources[link.number], let old = map.source {
            pairs = try members(of: old.links[number], txn)
        } else if let inverse = link.inverse, let inverseMap = mapping.entities.first(where: { $0.target === inverse.source }),
                  let number = inverseMap.relationshipSources[inverse.number], let old = inverseMap.source {
            var byOwner: [UInt64: [UInt64]] = [:]
            for (owner, members) in try self.members(of: old.links[number], txn) {
                for member in members { byOwner[member, default: []].append(owner) }
            }
            pairs = byOwner.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        if let references = try target.storage(of: link).rebuild(from: pairs, store: target, in: txn) {
            movedReferences[ObjectIdentifier(link.source), default: [:]][link.number] = references
        }
        record("relationship \(link.source.name).\(link.name)", objects: pairs.count, since: started)
    }

    /// Every owner of `link` (a source relationship) with its members: in
    /// stored order for an ordered one, else ascending.
    private func members(of link: RelationshipLink, _ txn: StoreTransaction) throws -> [(owner: UInt64, members: [UInt64])] {
        try source.storage(of: link).allMembers(store: source, in: txn)
    }

    /// Rewrites every record of the entity: values converted, references
    /// moved, fields of removed properties kept for the stage's code.
    private mutating func rewriteRecords(of map: SchemaMapping.EntityMap, in txn: StoreTransaction) throws {
        guard let old = map.source else { return }
        let entity = map.target
        let moved = movedReferences[ObjectIdentifier(entity)] ?? [:]
        let total = try source.count(of: old, in: txn)
        try rewrite(entity, step: "rewrite \(entity.name)", total: total, reading: source, as: old, txn) { key, view in
            var values = ContiguousArray<AttributeValue?>()
            values.reserveCapacity(entity.attributes.count)
            for (position, attribute) in entity.attributes.enumerated() {
                if let from = map.attributeSources[position] {
                    let value = view.value(from, of: old)
                    values.append(map.converted[position] ? value?.converted(to: attribute.type) : value)
                } else {
                    values.append(map.layout.absentValues[position])
                }
            }
            let references = entity.toOneLinks.map { link -> UInt64? in
                if let references = moved[link.number] { return references[key] }
                guard let number = map.relationshipSources[link.number], let field = old.links[number].field else { return nil }
                return view.reference(field)
            }
            return (values, references)
        }
    }

    /// Walks `entity`'s records in batches (read with `reader` as
    /// `readEntity`), and writes the record `transform` makes of each
    /// (when it makes one), in `entity`'s layout.
    @discardableResult
    private mutating func rewrite(
        _ entity: EntityDescription, step: String, total: Int, reading reader: PersistentStore, as readEntity: EntityDescription,
        _ txn: StoreTransaction,
        _ transform: (UInt64, RecordView) throws -> (ContiguousArray<AttributeValue?>, [UInt64?])?
    ) throws -> Int {
        let started = Date()
        let records = target.spaces(for: entity).records
        var after: [UInt8]?
        var done = 0
        while true {
            var batch: [(key: UInt64, record: [UInt8])] = []
            var last: [UInt8]?
            try reader.spaces(for: readEntity).records.forEach(
                in: txn, range: KeyRange(lower: after.map { .init($0, isInclusive: false) }, upper: nil)
            ) { entry in
                let key = StoreLayout.primaryKey(fromSuffixOf: entry.key)
                last = Array(entry.key)
                let view = try reader.validatedRecord(entry.value, of: readEntity)
                if let (values, references) = try transform(key, view) {
                    batch.append((key, RecordFormat.encode(
                        values, references: references, rowVersion: view.rowVersion + 1, layout: entity.layout, retaining: view)))
                }
                done += 1
                return done % Self.batchSize != 0
            }
            for (key, record) in batch { try records.put(record, forKey: StoreLayout.key(key), in: txn) }
            progress?(MigrationProgress(stage: stage, step: step, completed: done, total: total))
            guard let last, last != after else { break }
            after = last
            if done % Self.batchSize != 0 { break }
        }
        record(step, objects: done, since: started)
        return done
    }

    // MARK: Phase two

    mutating func finish(in txn: StoreTransaction) throws {
        var failures: [MigrationFailure] = []
        for map in mapping.entities where map.source != nil {
            failures += try fillRequiredValues(of: map, txn)
            failures += try checkRequiredReferences(of: map, txn)
        }
        guard failures.isEmpty else { throw KuraError.migrationFailed(path: target.path, failures: failures) }
        for map in mapping.entities where map.source != nil {
            let spaces = target.spaces(for: map.target)
            let building = spaces.indexes.indices.filter { map.indexSources[$0] == nil }
            guard !building.isEmpty else { continue }
            failures += try buildIndexes(building.map { spaces.indexes[$0] }, of: map.target, txn)
        }
        guard failures.isEmpty else { throw KuraError.migrationFailed(path: target.path, failures: failures) }
        try dropUnusedDatabases(txn)
    }

    /// Required attributes that may be nil now: nils become the default, or
    /// are reported when there is none.
    private mutating func fillRequiredValues(of map: SchemaMapping.EntityMap, _ txn: StoreTransaction) throws -> [MigrationFailure] {
        let entity = map.target
        var failures: [MigrationFailure] = []
        for position in map.attributesToFill {
            let attribute = entity.attributes[position]
            var missing: [ObjectID] = []
            var count = 0
            if let fill = attribute.defaultValue {
                let total = try target.count(of: entity, in: txn)
                try rewrite(entity, step: "fill \(entity.name).\(attribute.name)", total: total, reading: target, as: entity, txn) { _, view in
                    guard view.value(position, of: entity) == nil else { return nil }
                    var values = ContiguousArray(entity.attributes.indices.map { view.value($0, of: entity) })
                    values[position] = fill
                    return (values, entity.links.compactMap(\.field).map { view.reference($0) })
                }
            } else {
                try target.forEachRecord(of: entity, values: [position], in: txn) { key, view in
                    if view.value(position, of: entity) == nil {
                        count += 1
                        if missing.count < Self.namedObjects { missing.append(ObjectID(entity: entity, number: key, isTemporaryID: false)) }
                    }
                    return true
                }
                if count > 0 {
                    failures.append(MigrationFailure(.missingValues(
                        entity: entity.name, attribute: attribute.name, objectIDs: missing, count: count)))
                }
            }
        }
        return failures
    }

    /// Required to-ones that are new, rebuilt, or were optional: each
    /// object must have a destination.
    private func checkRequiredReferences(of map: SchemaMapping.EntityMap, _ txn: StoreTransaction) throws -> [MigrationFailure] {
        let entity = map.target
        guard let old = map.source else { return [] }
        var failures: [MigrationFailure] = []
        for link in entity.links where !link.isToMany && !link.description.isOptional {
            let previous = map.relationshipSources[link.number].map { old.links[$0] }
            guard previous == nil || previous!.description.isOptional || map.rebuiltRelationships[link.number],
                  let field = link.field else { continue }
            var missing: [ObjectID] = []
            var count = 0
            try target.forEachRecord(of: entity, values: [], in: txn) { key, view in
                if view.reference(field) == nil {
                    count += 1
                    if missing.count < Self.namedObjects { missing.append(ObjectID(entity: entity, number: key, isTemporaryID: false)) }
                }
                return true
            }
            if count > 0 {
                failures.append(MigrationFailure(.missingDestinations(
                    entity: entity.name, relationship: link.name, objectIDs: missing, count: count)))
            }
        }
        return failures
    }

    /// Fills `indexes` (emptied first) from the records; a unique index
    /// reports the objects that share values.
    private mutating func buildIndexes(_ indexes: [IndexSpace], of entity: EntityDescription,
                                       _ txn: StoreTransaction) throws -> [MigrationFailure] {
        let started = Date()
        for index in indexes { try index.space.removeAll(in: txn) }
        var failures: [MigrationFailure] = []
        var conflicts: [Int: [(values: [String], objects: [ObjectID])]] = [:]
        let total = try target.count(of: entity, in: txn)
        var done = 0
        var entries: [(index: Int, key: (key: [UInt8], isUniqueKey: Bool), primaryKey: UInt64, values: [String])] = []
        let numbers = Array(Set(indexes.flatMap(\.attributeNumbers))).sorted()
        try target.forEachRecord(of: entity, values: numbers, in: txn) { key, view in
            for (position, index) in indexes.enumerated() {
                let indexKey = index.key(primaryKey: key) { view.value($0, of: entity) }
                let values = index.description.isUnique
                    ? index.attributeNumbers.map { view.value($0, of: entity).map { "\($0)" } ?? "nil" } : []
                entries.append((position, indexKey, key, values))
            }
            done += 1
            if done % Self.batchSize == 0 { progress?(MigrationProgress(stage: stage, step: "index \(entity.name)", completed: done, total: total)) }
            return true
        }
        for entry in entries {
            let index = indexes[entry.index]
            do {
                try index.putEntry(entry.key.key, isUniqueKey: entry.key.isUniqueKey, primaryKey: entry.primaryKey, in: txn)
            } catch StorageEngineError.keyExists {
                let existing = try index.space.withValue(forKey: entry.key.key, in: txn) { StoreLayout.primaryKey(fromSuffixOf: $0) }
                var list = conflicts[entry.index, default: []]
                let object = ObjectID(entity: entity, number: entry.primaryKey, isTemporaryID: false)
                if let found = list.firstIndex(where: { $0.values == entry.values }) {
                    list[found].objects.append(object)
                } else if list.count < Self.namedObjects {
                    list.append((entry.values, [existing.map { ObjectID(entity: entity, number: $0, isTemporaryID: false) }, object].compactMap { $0 }))
                }
                conflicts[entry.index] = list
            } catch StorageEngineError.keyTooLong {
                throw KuraError.indexKeyTooLong(entity: entity.name, index: index.description.name,
                                                objectID: ObjectID(entity: entity, number: entry.primaryKey, isTemporaryID: false))
            }
        }
        for (position, list) in conflicts.sorted(by: { $0.key < $1.key }) {
            for conflict in list {
                failures.append(MigrationFailure(.uniqueConstraintViolated(
                    entity: entity.name, index: indexes[position].description.name, values: conflict.values, objectIDs: conflict.objects)))
            }
        }
        record("index \(entity.name) (\(indexes.map(\.description.name).joined(separator: ", ")))", objects: done, since: started)
        return failures
    }

    /// Drops every space of the source model that the target model
    /// doesn't use, and the ID counters of removed entities.
    private func dropUnusedDatabases(_ txn: StoreTransaction) throws {
        let kept = Set(Self.spaces(of: target).map(\.name))
        for (name, space) in Self.spaces(of: source) where !kept.contains(name) {
            try space.drop(in: txn)
        }
        let entities = Set(target.model.entities.map(\.layout.storageName))
        for entity in source.model.entities where !entities.contains(entity.layout.storageName) {
            try target.meta.delete(StoreLayout.counterKey(entity), in: txn)
        }
    }

    /// Every space of `store`'s model, by name.
    private static func spaces(of store: PersistentStore) -> [(name: String, space: StorageSpace)] {
        var all: [(String, StorageSpace)] = []
        for entity in store.model.entities {
            let spaces = store.spaces(for: entity)
            all.append((StoreLayout.recordsSpaceName(entity), spaces.records))
            for (position, index) in spaces.indexes.enumerated() { all.append((StoreLayout.indexSpaceName(entity, position), index.space)) }
            for storage in spaces.relationships {
                for (name, space) in zip(storage.link.spaceNames, storage.spaces) { all.append((name.name, space)) }
            }
        }
        return all
    }

    private mutating func record(_ step: String, objects: Int, since started: Date) {
        steps.append(MigrationReport.Step(stage: stage, step: step, objects: objects, seconds: Date().timeIntervalSince(started)))
        progress?(MigrationProgress(stage: stage, step: step, completed: objects, total: objects))
    }
}
