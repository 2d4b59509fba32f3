/// Why a migration failed. The store is left exactly as it was.
///
/// ``KuraError/migrationFailed(path:failures:)`` lists them; each is a value a
/// program can inspect, and its description is a sentence for people.
public struct MigrationFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// A difference a lightweight migration can't make; a custom stage must.
        case needsCustomStage(ModelDifference)
        /// A required attribute would be nil in these objects, and it has no
        /// default to fill them with.
        case missingValues(entity: String, attribute: String, objectIDs: [ObjectID], count: Int)
        /// A new unique constraint: these objects share these values.
        case uniqueConstraintViolated(entity: String, index: String, values: [String], objectIDs: [ObjectID])
        /// A relationship that becomes a to-one, or gains a to-one inverse,
        /// would hold several objects for these owners.
        case severalDestinationsForToOne(entity: String, relationship: String, objectIDs: [ObjectID])
        /// A required relationship would be empty for these objects.
        case missingDestinations(entity: String, relationship: String, objectIDs: [ObjectID], count: Int)
        /// The code of a custom stage threw.
        case stageFailed(stage: Int, error: String)
        /// The store's model is not the source of any stage and the plan's
        /// models can't be reached from it.
        case storeVersionNotInPlan(version: String?)
        /// An inferred migration would remove an entity, attribute or
        /// relationship (`property` is `nil` for an entity) that holds data
        /// in `count` objects, and the app didn't say it may (see the
        /// "Changing your model" article).
        case wouldRemoveData(entity: String, property: String?, count: Int)
        /// A sub-entity the new model leaves out still has `count` objects:
        /// no migration removes it, whatever the app says (its
        /// superentity's shared index and relationship entries name its
        /// objects). Delete them with the model that has it, then remove it.
        case subentityHasObjects(entity: String, superentity: String, count: Int)
    }

    public var reason: Reason

    public init(_ reason: Reason) {
        self.reason = reason
    }

    public var description: String {
        func objects(_ ids: [ObjectID], _ count: Int) -> String {
            let listed = ids.map(\.description).joined(separator: ", ")
            return count > ids.count ? "\(listed) and \(count - ids.count) more" : listed
        }
        switch reason {
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
