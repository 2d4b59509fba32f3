import Foundation

/// An error from Kura: bad input named precisely, or a store that cannot do
/// what was asked. Match its ``code``, and read what the error carries
/// through its properties:
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as KuraError where error.code == .uniqueConstraintViolated {
///     print("\(error.entity!).\(error.index!) already has that value")
/// } catch let error as KuraError where error.code == .conflict {
///     context.refreshAllObjects()   // error.objectIDs are the objects that changed
/// } catch let error as KuraError where error.code == .validationFailed {
///     for failure in error.validationFailures { print(failure) }
/// }
/// ```
///
/// A struct, not an enum (as Foundation's `PredicateError` and GRDB's
/// `DatabaseError`): a new kind of error is a new ``Code``, which no
/// caller's `switch` has to handle. Errors are equal when they are the same
/// code with the same details, so
/// `#expect(throws: KuraError.storeClosed(path: path))` works.
///
/// A save that throws has written nothing and left every pending change in
/// the context, so you can fix the cause and save again.
public struct KuraError: Error, Sendable, Hashable {
    /// What happened, with its details (the payloads callers read through
    /// the properties in KuraError+Details.swift).
    let detail: Detail

    init(_ detail: Detail) {
        self.detail = detail
    }

    /// What kind of error this is: compare it with the static codes.
    public var code: Code { detail.code }

    /// Kinds of ``KuraError``, each matched by `==`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static property that holds it is named.
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        // MARK: Model and keys
        /// The model is not valid: duplicate or empty names, an index over an
        /// unknown attribute, a default value of the wrong type.
        public static let invalidModel = Code(rawValue: "invalidModel")
        /// No entity has this name.
        public static let unknownEntity = Code(rawValue: "unknownEntity")
        /// The entity has no attribute with this name.
        public static let unknownAttribute = Code(rawValue: "unknownAttribute")
        /// A value does not fit the attribute: another type, or an integer out of
        /// the attribute's range.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// The model is in use by a store, so it can no longer change.
        public static let modelFrozen = Code(rawValue: "modelFrozen")
        /// The class is not an entity of the context's model.
        public static let classNotInModel = Code(rawValue: "classNotInModel")
        /// A request of entity `entity`, whose objects are of class
        /// `entityClass`, was asked for objects of another class.
        public static let classMismatch = Code(rawValue: "classMismatch")
        // MARK: Predicates and fetching
        /// The predicate can't apply to the entity: an operator used with the
        /// wrong kind of value, a malformed list, a comparison that can't hold.
        public static let invalidPredicate = Code(rawValue: "invalidPredicate")
        /// A `MATCHES` pattern is not a valid regular expression.
        public static let invalidRegularExpression = Code(rawValue: "invalidRegularExpression")
        /// A `$variable` has no value: the substitution didn't give one, or the
        /// predicate was fetched without substituting.
        public static let missingSubstitutionVariable = Code(rawValue: "missingSubstitutionVariable")
        /// A substitution value doesn't fit the attribute its variable is compared with.
        public static let substitutionTypeMismatch = Code(rawValue: "substitutionTypeMismatch")
        /// The model has no fetch request template with this name.
        public static let unknownTemplate = Code(rawValue: "unknownTemplate")
        /// The fetch request is not valid: a negative limit or offset, an unknown
        /// sort key, properties to fetch that don't exist.
        public static let invalidFetchRequest = Code(rawValue: "invalidFetchRequest")
        // MARK: Saving
        /// Validation at save failed; every failure of every object is listed.
        public static let validationFailed = Code(rawValue: "validationFailed")
        /// A unique index already holds these values, in the store or earlier in
        /// the same save.
        public static let uniqueConstraintViolated = Code(rawValue: "uniqueConstraintViolated")
        /// An indexed value is too long for an index key (511 bytes on every
        /// engine: LMDB's limit, kept by all so a store can move between them).
        public static let indexKeyTooLong = Code(rawValue: "indexKeyTooLong")
        /// `willSave` kept dirtying objects that had not been saved yet, for more
        /// passes than ``ManagedObjectContext/maximumWillSavePasses``.
        public static let willSaveDidNotSettle = Code(rawValue: "willSaveDidNotSettle")
        /// Another context or process changed or deleted these objects since this
        /// context read them (with ``MergePolicy/error``, the default).
        public static let conflict = Code(rawValue: "conflict")
        /// `save()` was called from inside a save (a `willSave`, validation or
        /// `didSave` hook); the outer save goes on, the inner one did nothing.
        public static let saveInProgress = Code(rawValue: "saveInProgress")
        /// The store reached its configured maximum size; nothing was written.
        public static let storeFull = Code(rawValue: "storeFull")
        // MARK: Objects
        /// No object with this ID exists in the store.
        public static let objectNotFound = Code(rawValue: "objectNotFound")
        /// The object no longer belongs to a context: it was inserted and then
        /// rolled back, the context was reset, or the context is gone.
        public static let objectDetached = Code(rawValue: "objectDetached")
        /// The object belongs to another context.
        public static let objectInAnotherContext = Code(rawValue: "objectInAnotherContext")
        /// A relationship can't hold this: an object of another entity, a
        /// deleted object, an ordered relationship given an object twice, a
        /// to-one used as a to-many.
        public static let invalidRelationship = Code(rawValue: "invalidRelationship")
        /// The ID's entity is not part of this context's model, or its string
        /// form could not be read.
        public static let invalidObjectID = Code(rawValue: "invalidObjectID")
        // MARK: Stores
        /// The storage holds something that isn't a Kura store (an LMDB file
        /// of another program, a database of other tables).
        public static let notAKuraStore = Code(rawValue: "notAKuraStore")
        /// The store was written by a newer (or unknown) version of Kura;
        /// `supported` is the newest format this version reads.
        public static let unsupportedFormatVersion = Code(rawValue: "unsupportedFormatVersion")
        /// The store's model differs from the one given, and the store can't be
        /// migrated: it is read-only, or migration is turned off
        /// (``MigrationOptions/disabled``). Each difference is listed.
        public static let modelMismatch = Code(rawValue: "modelMismatch")
        /// A migration failed; the store is as it was. Each reason is listed.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// The model given is older than the one the store holds (an older
        /// build of the app, a rolled-back deploy): migrating the store back
        /// would drop what newer versions added, so it is refused and nothing
        /// changes. `stored` and `given` name both versions (see
        /// ``ManagedObjectModel/versionIdentifier``; the "Changing your model"
        /// article says how the order is told).
        public static let modelOlderThanStore = Code(rawValue: "modelOlderThanStore")
        /// Another process migrated the store to another model since this one
        /// opened it: a save writes nothing, and reading a record the migration
        /// rewrote fails with this. Reopen the store with the newer model.
        public static let storeMigrated = Code(rawValue: "storeMigrated")
        /// The store's contents are damaged.
        public static let corruptStore = Code(rawValue: "corruptStore")
        /// History after this token was purged (``PersistentStore/purgeHistory(through:)``
        /// through `purgedThrough`): what those saves changed can't be told.
        /// Refetch what you show, and go on from ``PersistentStore/lastHistoryToken()``.
        public static let historyTokenExpired = Code(rawValue: "historyTokenExpired")
        /// The store was closed.
        public static let storeClosed = Code(rawValue: "storeClosed")
        /// The store was opened read-only.
        public static let storeReadOnly = Code(rawValue: "storeReadOnly")
        /// The storage under the store failed: a full disk, a missing
        /// permission, a file that isn't a store file, an engine error. Match
        /// the ``StorageFailure`` to tell them apart.
        public static let storage = Code(rawValue: "storage")
    }

    /// The details of each kind of error.
    enum Detail: Sendable, Hashable {
        case invalidModel(String)
        case unknownEntity(String)
        case unknownAttribute(entity: String, key: String)
        case typeMismatch(entity: String, key: String, expected: AttributeType, found: String)
        case modelFrozen(String)
        case classNotInModel(String)
        case classMismatch(requested: String, entity: String, entityClass: String)
        case invalidPredicate(String)
        case invalidRegularExpression(pattern: String, reason: String)
        case missingSubstitutionVariable(String)
        case substitutionTypeMismatch(variable: String, expected: AttributeType, found: String)
        case unknownTemplate(String)
        case invalidFetchRequest(String)
        case validationFailed([ValidationFailure])
        case uniqueConstraintViolated(entity: String, index: String, values: [String], objectID: ObjectID?)
        case indexKeyTooLong(entity: String, index: String, objectID: ObjectID?)
        case willSaveDidNotSettle(passes: Int, objectIDs: [ObjectID])
        case conflict(objectIDs: [ObjectID])
        case saveInProgress
        case storeFull(maximumBytes: Int)
        case objectNotFound(ObjectID)
        case objectDetached(ObjectID)
        case objectInAnotherContext(ObjectID)
        case invalidRelationship(String)
        case invalidObjectID(String)
        case notAKuraStore(path: String)
        case unsupportedFormatVersion(path: String, found: Int, supported: Int)
        case modelMismatch(path: String, differences: [ModelDifference])
        case migrationFailed(path: String, failures: [MigrationFailure])
        case modelOlderThanStore(path: String, stored: String, given: String)
        case storeMigrated(path: String)
        case corruptStore(path: String, reason: String)
        case historyTokenExpired(HistoryToken, purgedThrough: HistoryToken)
        case storeClosed(path: String)
        case storeReadOnly(path: String)
        case storage(path: String, failure: StorageFailure)

        var code: Code {
            switch self {
            case .invalidModel: .invalidModel
            case .unknownEntity: .unknownEntity
            case .unknownAttribute: .unknownAttribute
            case .typeMismatch: .typeMismatch
            case .modelFrozen: .modelFrozen
            case .classNotInModel: .classNotInModel
            case .classMismatch: .classMismatch
            case .invalidPredicate: .invalidPredicate
            case .invalidRegularExpression: .invalidRegularExpression
            case .missingSubstitutionVariable: .missingSubstitutionVariable
            case .substitutionTypeMismatch: .substitutionTypeMismatch
            case .unknownTemplate: .unknownTemplate
            case .invalidFetchRequest: .invalidFetchRequest
            case .validationFailed: .validationFailed
            case .uniqueConstraintViolated: .uniqueConstraintViolated
            case .indexKeyTooLong: .indexKeyTooLong
            case .willSaveDidNotSettle: .willSaveDidNotSettle
            case .conflict: .conflict
            case .saveInProgress: .saveInProgress
            case .storeFull: .storeFull
            case .objectNotFound: .objectNotFound
            case .objectDetached: .objectDetached
            case .objectInAnotherContext: .objectInAnotherContext
            case .invalidRelationship: .invalidRelationship
            case .invalidObjectID: .invalidObjectID
            case .notAKuraStore: .notAKuraStore
            case .unsupportedFormatVersion: .unsupportedFormatVersion
            case .modelMismatch: .modelMismatch
            case .migrationFailed: .migrationFailed
            case .modelOlderThanStore: .modelOlderThanStore
            case .storeMigrated: .storeMigrated
            case .corruptStore: .corruptStore
            case .historyTokenExpired: .historyTokenExpired
            case .storeClosed: .storeClosed
            case .storeReadOnly: .storeReadOnly
            case .storage: .storage
            }
        }
    }
}
