/// One way a model differs from the model a store holds, and what it costs to
/// move the store across it.
///
/// ``KuraError/modelMismatch(path:differences:)`` lists them when a store is
/// opened read-only or with migration turned off, and ``PersistentStore/lastMigration``
/// reports them after a migration. ``PersistentStore/differences(from:plan:)`` and
/// `kura diff` show them before one.
public struct ModelDifference: Sendable, Hashable, CustomStringConvertible {
    /// What moving a store across the difference costs.
    public enum Cost: Sendable, Hashable, Comparable {
        /// Nothing: the stored model is updated when the store opens.
        case none
        /// The stored model changes; no object is read or written, whatever
        /// their number.
        case modelOnly
        /// Stored objects are read, and some rewritten or indexed.
        case touchesData
        /// A lightweight migration can't do it: a custom stage of a
        /// ``MigrationPlan`` must.
        case needsCustomStage
    }

    /// The entity, by its name in the newer model (the store's, when removed).
    public var entity: String
    /// The attribute, relationship or index, when the difference is about one.
    public var property: String?
    public var change: Change
    public var cost: Cost

    public init(entity: String, property: String? = nil, change: Change, cost: Cost) {
        self.entity = entity
        self.property = property
        self.change = change
        self.cost = cost
    }

    public var description: String {
        let subject = property.map { "\(entity).\($0)" } ?? entity
        let what: String
        switch change.base {
        case .entityAdded: what = "entity \(entity) is added"
        case .entityRemoved: what = "entity \(entity) is removed, with its objects"
        case .entityRenamed(let old): what = "entity \(old) is renamed \(entity)"
        case .attributeAdded: what = "\(subject) is added"
        case .attributeRemoved: what = "\(subject) is removed"
        case .attributeRenamed(let old): what = "\(entity).\(old) is renamed \(property ?? "")"
        case .attributeTypeChanged(let old, let new):
            what = "\(subject) changes from \(old.displayName) to \(new.displayName)"
        case .attributeMadeOptional: what = "\(subject) becomes optional"
        case .attributeMadeRequired: what = "\(subject) becomes required"
        case .defaultValueChanged(let old, let new):
            what = "\(subject) defaults to \(new ?? "nil") instead of \(old ?? "nil") (for new objects)"
        case .superentityChanged(let old, let new):
            what = "\(entity)'s superentity changes from \(old ?? "none") to \(new ?? "none"): copy its objects into a new "
                + "entity in a custom stage"
        case .propertiesReordered: what = "\(entity)'s properties are in another order"
        case .indexAdded(let unique): what = "\(unique ? "unique index" : "index") \(subject) is added"
        case .indexRemoved: what = "index \(subject) is removed"
        case .relationshipAdded: what = "relationship \(subject) is added"
        case .relationshipRemoved: what = "relationship \(subject) is removed"
        case .relationshipRenamed(let old): what = "relationship \(entity).\(old) is renamed \(property ?? "")"
        case .relationshipChanged(let old, let new): what = "relationship \(subject) changes from \(old) to \(new)"
        }
        switch cost {
        case .none: return what + " (no migration)"
        case .modelOnly: return what + " (model only)"
        case .touchesData: return what + " (reads stored objects)"
        case .needsCustomStage: return what + " (needs a custom migration stage)"
        }
    }
}
