/// How a store opened with a newer model is migrated: automatically or not,
/// through which stages, with what progress reports.
///
/// ```swift
/// let container = try PersistentContainer(
///     path: path, model: modelV3,
///     migration: MigrationOptions(plan: MigrationPlan([
///         .lightweight(from: modelV1, to: modelV2),
///         .custom(from: modelV2, to: modelV3, didMigrate: { migration in … }),
///     ])))
/// ```
public struct MigrationOptions: Sendable {
    /// When false, any difference between the store's model and the one
    /// given throws ``KuraError/modelMismatch(path:differences:)`` (except
    /// those that need no migration at all: order, defaults, templates).
    public var isAutomatic: Bool
    /// The stages for changes a lightweight migration can't infer.
    public var plan: MigrationPlan?
    /// Called as a migration goes, on the thread that opens the store.
    public var progress: (@Sendable (MigrationProgress) -> Void)?

    public init(plan: MigrationPlan? = nil, isAutomatic: Bool = true,
                progress: (@Sendable (MigrationProgress) -> Void)? = nil) {
        self.plan = plan
        self.isAutomatic = isAutomatic
        self.progress = progress
    }

    /// Lightweight migration on open, as SwiftData does: the default.
    public static var automatic: MigrationOptions { MigrationOptions() }
    /// No migration: a store whose model differs is an error.
    public static var disabled: MigrationOptions { MigrationOptions(isAutomatic: false) }
}

/// Stages that take a store from one model version to the next, in order
/// (SwiftData's `SchemaMigrationPlan`). A store several versions behind runs
/// every stage from its own version on, all in one transaction.
///
/// A store's place in the plan is found by the stages' source models: by
/// ``ManagedObjectModel/versionIdentifier`` when the store recorded one, else
/// by schema. A store on none of them is migrated straight to the newest
/// model with a lightweight migration.
public struct MigrationPlan: Sendable {
    public var stages: [MigrationStage]

    public init(_ stages: [MigrationStage]) {
        self.stages = stages
    }
}

/// One step of a ``MigrationPlan``.
public struct MigrationStage: Sendable {
    /// The model version the stage starts from.
    public let source: ManagedObjectModel
    /// The model version it ends at.
    public let destination: ManagedObjectModel
    let willMigrate: (@Sendable (MigrationContext) throws -> Void)?
    let didMigrate: (@Sendable (MigrationContext) throws -> Void)?
    /// True for a custom stage.
    public let isCustom: Bool
    /// True for a stage Kura added because no stage of the app's plan
    /// covers the step: it may not remove data (see the "Changing your
    /// model" article); a stage the app lists may.
    let isInferred: Bool

    init(
        source: ManagedObjectModel, destination: ManagedObjectModel,
        willMigrate: (@Sendable (MigrationContext) throws -> Void)?, didMigrate: (@Sendable (MigrationContext) throws -> Void)?,
        isCustom: Bool, isInferred: Bool = false
    ) {
        self.source = source
        self.destination = destination
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
        self.isCustom = isCustom
        self.isInferred = isInferred
    }

    /// A stage a lightweight migration infers from the two models.
    ///
    /// Listed in a ``MigrationPlan``, it also says that the step may remove
    /// entities, attributes and relationships that hold data.
    public static func lightweight(from source: ManagedObjectModel, to destination: ManagedObjectModel) -> MigrationStage {
        MigrationStage(source: source, destination: destination, willMigrate: nil, didMigrate: nil, isCustom: false)
    }

    /// The stage Kura infers when the app's plan has none for a step.
    static func inferred(from source: ManagedObjectModel, to destination: ManagedObjectModel) -> MigrationStage {
        MigrationStage(source: source, destination: destination, willMigrate: nil, didMigrate: nil, isCustom: false, isInferred: true)
    }

    /// A stage with code of your own around the inferred part.
    ///
    /// - `willMigrate` runs first, with a context on the source model: the
    ///   place to fix data before the change (remove duplicates before a
    ///   unique constraint, fill values before an attribute becomes
    ///   required).
    /// - Then the inferred part runs. In a custom stage an attribute whose
    ///   type changed in a way that can't be converted (String to Int)
    ///   becomes a new attribute of that name, empty, and the old values
    ///   stay readable.
    /// - `didMigrate` runs last, with a context on the destination model,
    ///   where ``MigrationContext/oldValue(forKey:of:)`` reads what an object
    ///   held before the stage, also for attributes the destination removed,
    ///   renamed or retyped, and ``MigrationContext/oldObjects(of:)`` reads
    ///   the objects of entities it removed. Constraints (required values,
    ///   unique indexes) are checked after it.
    ///
    /// Each context's unsaved changes are saved when its closure returns.
    /// Everything, both closures included, is one transaction: a throw (or a
    /// crash) leaves the store as it was before the whole migration. The
    /// closures may run again from the start when the file must grow
    /// meanwhile, so they should change nothing but the store.
    public static func custom(
        from source: ManagedObjectModel, to destination: ManagedObjectModel,
        willMigrate: (@Sendable (MigrationContext) throws -> Void)? = nil,
        didMigrate: (@Sendable (MigrationContext) throws -> Void)? = nil
    ) -> MigrationStage {
        MigrationStage(source: source, destination: destination, willMigrate: willMigrate, didMigrate: didMigrate, isCustom: true)
    }
}

/// How far a migration is, for a progress bar.
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    /// The stage, counted from 0 among those that run.
    public var stage: Int
    /// What is being done, such as "index News.title".
    public var step: String
    /// Objects done in this step, and how many there are.
    public var completed: Int
    public var total: Int

    public var description: String { "stage \(stage + 1): \(step) \(completed)/\(total)" }
}

/// What a migration did: the stages that ran, their differences, and each
/// step that touched data with its count and time.
public struct MigrationReport: Sendable, CustomStringConvertible {
    public struct Step: Sendable, Hashable {
        public var stage: Int
        public var step: String
        public var objects: Int
        public var seconds: Double
        /// Objects per second.
        public var throughput: Double { seconds > 0 ? Double(objects) / seconds : 0 }
    }

    /// The model versions, from the store's to the newest.
    public var versions: [String?]
    public var differences: [ModelDifference]
    public var steps: [Step]
    /// The whole migration, commit included.
    public var seconds: Double

    public var description: String {
        var lines = ["migrated in \(String(format: "%.3f", seconds)) s through \(versions.count - 1) stage(s)"]
        lines += differences.map { "  \($0)" }
        lines += steps.map {
            "  \($0.step): \($0.objects) objects in \(String(format: "%.3f", $0.seconds)) s (\(Int($0.throughput)) objects/s)"
        }
        return lines.joined(separator: "\n")
    }
}
