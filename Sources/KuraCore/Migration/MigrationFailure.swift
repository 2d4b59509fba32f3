/// Why a migration failed. The store is left exactly as it was.
///
/// ``KuraError/migrationFailed(path:failures:)`` lists them; each is a value a
/// program can inspect, and its description is a sentence for people.
public struct MigrationFailure: Sendable, Hashable, CustomStringConvertible {
    /// Why: compare its ``Reason/kind`` with the static kinds, and read
    /// what it carries through its properties.
    public var reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        func objects(_ ids: [ObjectID], _ count: Int) -> String {
            let listed = ids.map(\.description).joined(separator: ", ")
            return count > ids.count ? "\(listed) and \(count - ids.count) more" : listed
        }
        switch reason.base {
        case .needsCustomStage(let difference):
            return "\(difference)"
        case .missingValues(let entity, let attribute, let ids, let count):
            return "\(entity).\(attribute) becomes required without a default, but \(count) object(s) have none: "
                + objects(ids, count)
        case .uniqueConstraintViolated(let entity, let index, let values, let ids):
            return "unique index \(entity).\(index): \(ids.count) objects share \(values.joined(separator: ", ")): "
                + objects(ids, ids.count)
        case .severalDestinationsForToOne(let entity, let relationship, let ids):
            return "\(entity).\(relationship) becomes a to-one, but these objects hold several: " + objects(ids, ids.count)
        case .missingDestinations(let entity, let relationship, let ids, let count):
            return "\(entity).\(relationship) is required, but \(count) object(s) have none: " + objects(ids, count)
        case .stageFailed(let stage, let error):
            return "stage \(stage + 1) of the migration plan threw: \(error)"
        case .wouldRemoveData(let entity, let property, let count):
            let subject = property.map { "\(entity).\($0)" } ?? "entity \(entity)"
            return "the migration would remove \(subject), which \(count) object(s) hold data in; "
                + "give the model a newer versionIdentifier or a MigrationPlan stage to say it may"
        case .subentityHasObjects(let entity, let superentity, let count):
            return "sub-entity \(entity) of \(superentity) still has \(count) object(s), and a sub-entity with objects is never removed, "
                + "even by a newer version (\(superentity)'s shared index and relationship entries name them): delete them first, "
                + "with the model that has \(entity) (a BatchDeleteRequest for \(entity) does it in one save), then open with this model"
        case .storeVersionNotInPlan(let version):
            return "the store's model (version \(version ?? "without identifier")) is not a model of the migration plan"
        }
    }
}
