import Foundation

extension PersistentStore {
    /// This store, opened on its own stored model, reopened with `model`: as
    /// it is when nothing stored differs, else migrated (see
    /// ``MigrationOptions``).
    func opening(_ model: ManagedObjectModel, migration: MigrationOptions) throws -> PersistentStore {
        let order = ModelVersionOrder(of: model, against: self.model, history: try modelHistory())
        var stages = migrationStages(to: model, plan: migration.plan)
        if stages.isEmpty {
            let mapping = SchemaMapping(from: self.model, to: model)
            if mapping.needsNoMigration {
                try model.bindLayouts(mapping.entities.map(\.layout))
                // Same schema: keep the app's document (order, defaults,
                // templates, version) in the store for `kura`, unless the
                // app's model is an older version than the stored one.
                if !isReadOnly && order != .older && model.document != self.model.document {
                    try engine.storeWrite { txn in try writeModel(model, change: nil, in: txn) }
                }
                return try PersistentStore(opening: engine, model: model, options: options, format: format)
            }
            stages = [.inferred(from: self.model, to: model)]
        }
        // An older build must not migrate a newer build's store back.
        try refuseOlder(model, order: order)
        // A model with no entity in common with the store's is another
        // app's model, not a newer version: migrating would empty the store.
        let unrelated = !self.model.entities.isEmpty
            && SchemaMapping(from: self.model, to: stages.last?.destination ?? model).entities.allSatisfy { $0.source == nil }
            && migration.plan == nil
        guard !isReadOnly && migration.isAutomatic && !unrelated else {
            throw KuraError.modelMismatch(path: path, differences: differences(from: model, plan: migration.plan))
        }
        // A newer version identifier says the app meant what it removed.
        let report = try migrate(through: stages, to: model, mayRemoveData: order == .newer, progress: migration.progress)
        options.eventReporter?.report(.migration(report))
        return try PersistentStore(opening: engine, model: model, options: options,
                                   format: StoreLayout.formatVersion, lastMigration: report)
    }

    /// The plan's stages from the store's version on, or none when the plan
    /// doesn't know the store's version (then a lightweight migration goes
    /// straight to `model`). A final stage to `model` itself is added when
    /// the plan ends at another model instance.
    private func migrationStages(to model: ManagedObjectModel, plan: MigrationPlan?) -> [MigrationStage] {
        let stages = plan?.stages ?? []
        func isStored(_ candidate: ManagedObjectModel) -> Bool {
            if let stored = self.model.versionIdentifier, let version = candidate.versionIdentifier {
                return ModelVersionOrder.isSameVersion(stored, version)
            }
            return SchemaMapping(from: self.model, to: candidate).needsNoMigration
        }
        var chain: [MigrationStage]
        if let start = stages.firstIndex(where: { isStored($0.source) }) {
            chain = Array(stages[start...])
        } else if let last = stages.lastIndex(where: { isStored($0.destination) }) {
            chain = Array(stages[(last + 1)...])
        } else {
            return []
        }
        if let last = chain.last, last.destination !== model, !SchemaMapping(from: last.destination, to: model).needsNoMigration {
            chain.append(.inferred(from: last.destination, to: model))
        }
        return chain
    }

    /// Runs `stages` in one write transaction: all of them happen, or none.
    private func migrate(
        through stages: [MigrationStage], to model: ManagedObjectModel, mayRemoveData: Bool,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws -> MigrationReport {
        let started = Date()
        var report = MigrationReport(versions: [], differences: [], steps: [], seconds: 0)
        try engine.storeWrite { txn in
            report = MigrationReport(versions: [self.model.versionIdentifier], differences: [], steps: [], seconds: 0)
            var current = try PersistentStore(
                opening: engine, model: self.model, options: options,
                format: StoreLayout.formatVersion, ambient: txn)
            for (number, stage) in stages.enumerated() {
                if let willMigrate = stage.willMigrate {
                    try runStageCode(willMigrate, on: current, source: nil, stage: number)
                }
                let mapping = SchemaMapping(from: current.model, to: stage.destination, replacingIncompatible: stage.isCustom)
                report.differences += mapping.differences.filter { $0.cost != .none }
                let blocked = mapping.needsCustomStage
                guard blocked.isEmpty else {
                    throw KuraError.migrationFailed(path: path, failures: blocked.map { MigrationFailure(.needsCustomStage($0)) })
                }
                let orphans = try current.removedSubentitiesWithObjects(by: mapping, in: txn)
                guard orphans.isEmpty else { throw KuraError.migrationFailed(path: path, failures: orphans) }
                if stage.isInferred && !mayRemoveData {
                    let removed = try current.removedData(by: mapping, in: txn)
                    guard removed.isEmpty else { throw KuraError.migrationFailed(path: path, failures: removed) }
                }
                try stage.destination.bindLayouts(mapping.entities.map(\.layout))
                let target = try PersistentStore(
                    opening: engine, model: stage.destination, options: options,
                    format: StoreLayout.formatVersion, ambient: txn)
                var run = MigrationRun(mapping: mapping, source: current, target: target, stage: number, progress: progress)
                try run.moveData(in: txn)
                if let didMigrate = stage.didMigrate {
                    try runStageCode(didMigrate, on: target, source: current, stage: number)
                }
                try run.finish(in: txn)
                report.steps += run.steps
                report.versions.append(stage.destination.versionIdentifier)
                current = target
            }
            if current.model !== model {
                // The plan ended at another instance of the app's model.
                try model.bindLayouts(SchemaMapping(from: current.model, to: model).entities.map(\.layout))
            }
            try writeModel(model, change: "migrated", in: txn)
            let next = try Self.generation(meta, in: txn) + 1
            try meta.put(StoreLayout.littleEndianBytes(next), forKey: StoreLayout.generationKey, in: txn)
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Runs a custom stage's code with a context on `store`, then saves what
    /// it left unsaved.
    private func runStageCode(
        _ code: (MigrationContext) throws -> Void, on store: PersistentStore, source: PersistentStore?, stage: Int
    ) throws {
        let context = ManagedObjectContext(store: store)
        do {
            try code(MigrationContext(context: context, stage: stage, sourceStore: source))
            if context.hasChanges { try context.save() }
        } catch let error as KuraError {
            throw KuraError.migrationFailed(path: path, failures: [MigrationFailure(.stageFailed(stage: stage, error: "\(error)"))])
        } catch {
            throw KuraError.migrationFailed(path: path, failures: [MigrationFailure(.stageFailed(stage: stage, error: "\(error)"))])
        }
    }

    /// Writes `model` as the store's model, its fingerprint and format, and
    /// (with `change`) a new entry in the store's model history.
    func writeModel(_ model: ManagedObjectModel, change: String?, in txn: StoreTransaction) throws {
        try meta.put(try model.encoded(), forKey: StoreLayout.modelKey, in: txn)
        try meta.put(Array(model.fingerprint.utf8), forKey: StoreLayout.fingerprintKey, in: txn)
        try meta.put(StoreLayout.littleEndianBytes(StoreLayout.formatVersion(for: model)), forKey: StoreLayout.formatKey, in: txn)
        guard let change else { return }
        var history = try Self.history(meta, in: txn)
        history.append(ModelHistoryEntry(
            version: model.versionIdentifier, fingerprint: model.fingerprint, date: Date(), change: change))
        try meta.put(try ModelHistoryEntry.encode(history), forKey: StoreLayout.historyKey, in: txn)
    }

    /// The model versions the store has had, oldest first (see ``ModelHistoryEntry``).
    public func modelHistory() throws -> [ModelHistoryEntry] {
        try read { txn in try Self.history(meta, in: txn) }
    }

    static func history(_ meta: StorageSpace, in txn: StoreTransaction) throws -> [ModelHistoryEntry] {
        guard let bytes = try meta.value(forKey: StoreLayout.historyKey, in: txn) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([ModelHistoryEntry].self, from: Data(bytes))) ?? []
    }

    /// What opening this store with `model` would change: the differences a
    /// migration would make (empty when none is needed). Changes nothing.
    public func differences(from model: ManagedObjectModel, plan: MigrationPlan? = nil) -> [ModelDifference] {
        var stages = migrationStages(to: model, plan: plan)
        if stages.isEmpty { stages = [.inferred(from: self.model, to: model)] }
        var differences: [ModelDifference] = []
        var from = self.model
        for stage in stages {
            differences += SchemaMapping(from: from, to: stage.destination, replacingIncompatible: stage.isCustom)
                .differences.filter { $0.cost != .none }
            from = stage.destination
        }
        return differences
    }
}

/// One model version a store had: when it started and how.
public struct ModelHistoryEntry: Codable, Sendable, Hashable {
    /// The model's ``ManagedObjectModel/versionIdentifier``, if it had one.
    public var version: String?
    /// The model's ``ManagedObjectModel/fingerprint``.
    public var fingerprint: String
    public var date: Date
    /// `"created"`, `"upgraded"` (from an older store format) or `"migrated"`.
    public var change: String

    static func encode(_ history: [ModelHistoryEntry]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(history))
    }
}
