extension MigrationFailure {
    /// Why a migration failed: a struct, not an enum, so a new reason
    /// breaks no caller's `switch`. Make one with the static functions
    /// (`.missingValues(entity:attribute:objectIDs:count:)`), compare its
    /// ``kind``, read its details through the properties.
    public struct Reason: Sendable, Hashable {
        let base: Base

        init(_ base: Base) {
            self.base = base
        }

        enum Base: Sendable, Hashable {
            case needsCustomStage(ModelDifference)
            case missingValues(entity: String, attribute: String, objectIDs: [ObjectID], count: Int)
            case uniqueConstraintViolated(entity: String, index: String, values: [String], objectIDs: [ObjectID])
            case severalDestinationsForToOne(entity: String, relationship: String, objectIDs: [ObjectID])
            case missingDestinations(entity: String, relationship: String, objectIDs: [ObjectID], count: Int)
            case stageFailed(stage: Int, error: String)
            case storeVersionNotInPlan(version: String?)
            case wouldRemoveData(entity: String, property: String?, count: Int)
            case subentityHasObjects(entity: String, superentity: String, count: Int)
        }

        /// What kind of reason this is.
        public var kind: Kind {
            switch base {
            case .needsCustomStage: .needsCustomStage
            case .missingValues: .missingValues
            case .uniqueConstraintViolated: .uniqueConstraintViolated
            case .severalDestinationsForToOne: .severalDestinationsForToOne
            case .missingDestinations: .missingDestinations
            case .stageFailed: .stageFailed
            case .storeVersionNotInPlan: .storeVersionNotInPlan
            case .wouldRemoveData: .wouldRemoveData
            case .subentityHasObjects: .subentityHasObjects
            }
        }

        /// Kinds of ``Reason``, each matched by `==`.
        public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The kind's name, as the static function that makes it is named.
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            public static let needsCustomStage = Kind(rawValue: "needsCustomStage")
            public static let missingValues = Kind(rawValue: "missingValues")
            public static let uniqueConstraintViolated = Kind(rawValue: "uniqueConstraintViolated")
            public static let severalDestinationsForToOne = Kind(rawValue: "severalDestinationsForToOne")
            public static let missingDestinations = Kind(rawValue: "missingDestinations")
            public static let stageFailed = Kind(rawValue: "stageFailed")
            public static let storeVersionNotInPlan = Kind(rawValue: "storeVersionNotInPlan")
            public static let wouldRemoveData = Kind(rawValue: "wouldRemoveData")
            public static let subentityHasObjects = Kind(rawValue: "subentityHasObjects")
        }

        /// A difference a lightweight migration can't make; a custom stage must.
        public static func needsCustomStage(_ difference: ModelDifference) -> Reason { Reason(.needsCustomStage(difference)) }
        /// A required attribute would be nil in these objects, and it has no
        /// default to fill them with.
        public static func missingValues(entity: String, attribute: String, objectIDs: [ObjectID], count: Int) -> Reason {
            Reason(.missingValues(entity: entity, attribute: attribute, objectIDs: objectIDs, count: count))
        }
        /// A new unique constraint: these objects share these values.
        public static func uniqueConstraintViolated(entity: String, index: String, values: [String], objectIDs: [ObjectID]) -> Reason {
            Reason(.uniqueConstraintViolated(entity: entity, index: index, values: values, objectIDs: objectIDs))
        }
        /// A relationship that becomes a to-one, or gains a to-one inverse,
        /// would hold several objects for these owners.
        public static func severalDestinationsForToOne(entity: String, relationship: String, objectIDs: [ObjectID]) -> Reason {
            Reason(.severalDestinationsForToOne(entity: entity, relationship: relationship, objectIDs: objectIDs))
        }
        /// A required relationship would be empty for these objects.
        public static func missingDestinations(entity: String, relationship: String, objectIDs: [ObjectID], count: Int) -> Reason {
            Reason(.missingDestinations(entity: entity, relationship: relationship, objectIDs: objectIDs, count: count))
        }
        /// The code of a custom stage threw.
        public static func stageFailed(stage: Int, error: String) -> Reason { Reason(.stageFailed(stage: stage, error: error)) }
        /// The store's model is not the source of any stage and the plan's
        /// models can't be reached from it.
        public static func storeVersionNotInPlan(version: String?) -> Reason { Reason(.storeVersionNotInPlan(version: version)) }
        /// An inferred migration would remove an entity, attribute or
        /// relationship (`property` is `nil` for an entity) that holds data
        /// in `count` objects, and the app didn't say it may (see the
        /// "Changing your model" article).
        public static func wouldRemoveData(entity: String, property: String?, count: Int) -> Reason {
            Reason(.wouldRemoveData(entity: entity, property: property, count: count))
        }
        /// A sub-entity the new model leaves out still has `count` objects:
        /// no migration removes it, whatever the app says (its
        /// superentity's shared index and relationship entries name its
        /// objects). Delete them with the model that has it, then remove it.
        public static func subentityHasObjects(entity: String, superentity: String, count: Int) -> Reason {
            Reason(.subentityHasObjects(entity: entity, superentity: superentity, count: count))
        }

        /// The entity the reason is about (`nil` for ``Kind/stageFailed``
        /// and ``Kind/storeVersionNotInPlan``).
        public var entity: String? {
            switch base {
            case .needsCustomStage(let difference): difference.entity
            case .missingValues(let entity, _, _, _), .uniqueConstraintViolated(let entity, _, _, _),
                 .severalDestinationsForToOne(let entity, _, _), .missingDestinations(let entity, _, _, _),
                 .wouldRemoveData(let entity, _, _), .subentityHasObjects(let entity, _, _): entity
            case .stageFailed, .storeVersionNotInPlan: nil
            }
        }

        /// The attribute, relationship or index the reason is about.
        public var property: String? {
            switch base {
            case .needsCustomStage(let difference): difference.property
            case .missingValues(_, let name, _, _), .uniqueConstraintViolated(_, let name, _, _),
                 .severalDestinationsForToOne(_, let name, _), .missingDestinations(_, let name, _, _): name
            case .wouldRemoveData(_, let property, _): property
            case .stageFailed, .storeVersionNotInPlan, .subentityHasObjects: nil
            }
        }

        /// The objects named (at most a sample of ``count``).
        public var objectIDs: [ObjectID] {
            switch base {
            case .missingValues(_, _, let ids, _), .uniqueConstraintViolated(_, _, _, let ids),
                 .severalDestinationsForToOne(_, _, let ids), .missingDestinations(_, _, let ids, _): ids
            default: []
            }
        }

        /// How many objects the reason holds for (``objectIDs`` may be a sample).
        public var count: Int {
            switch base {
            case .missingValues(_, _, _, let count), .missingDestinations(_, _, _, let count),
                 .wouldRemoveData(_, _, let count), .subentityHasObjects(_, _, let count): count
            case .uniqueConstraintViolated(_, _, _, let ids), .severalDestinationsForToOne(_, _, let ids): ids.count
            case .needsCustomStage, .stageFailed, .storeVersionNotInPlan: 0
            }
        }

        /// The values the objects share, for ``Kind/uniqueConstraintViolated``.
        public var values: [String] {
            guard case .uniqueConstraintViolated(_, _, let values, _) = base else { return [] }
            return values
        }

        /// The difference, for ``Kind/needsCustomStage``.
        public var difference: ModelDifference? {
            guard case .needsCustomStage(let difference) = base else { return nil }
            return difference
        }

        /// The stage (from 0) and what it threw, for ``Kind/stageFailed``.
        public var stageFailure: (stage: Int, error: String)? {
            guard case .stageFailed(let stage, let error) = base else { return nil }
            return (stage, error)
        }

        /// The superentity, for ``Kind/subentityHasObjects``.
        public var superentity: String? {
            guard case .subentityHasObjects(_, let superentity, _) = base else { return nil }
            return superentity
        }

        /// The store's version, for ``Kind/storeVersionNotInPlan`` (`nil`
        /// also when the store's model has none).
        public var storeVersion: String? {
            guard case .storeVersionNotInPlan(let version) = base else { return nil }
            return version
        }
    }
}
