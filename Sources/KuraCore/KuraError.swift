import Foundation

/// An error from Kura: bad input named precisely, or a store that cannot do
/// what was asked. Match the cases you handle:
///
/// ```swift
/// do {
///     try context.save()
/// } catch KuraError.uniqueConstraintViolated(let entity, let index, _, _) {
///     print("\(entity).\(index) already has that value")
/// } catch KuraError.validationFailed(let failures) {
///     for failure in failures { print(failure) }
/// }
/// ```
///
/// A save that throws has written nothing and left every pending change in
/// the context, so you can fix the cause and save again.
public enum KuraError: Error, Sendable, Hashable {
    // MARK: Model and keys

    /// The model is not valid: duplicate or empty names, an index over an
    /// unknown attribute, a default value of the wrong type.
    case invalidModel(String)
    /// No entity has this name.
    case unknownEntity(String)
    /// The entity has no attribute with this name.
    case unknownAttribute(entity: String, key: String)
    /// A value does not fit the attribute: another type, or an integer out of
    /// the attribute's range.
    case typeMismatch(entity: String, key: String, expected: AttributeType, found: String)
    /// The model is in use by a store, so it can no longer change.
    case modelFrozen(String)
    /// The class is not an entity of the context's model.
    case classNotInModel(String)
    /// A request of entity `entity`, whose objects are of class
    /// `entityClass`, was asked for objects of another class.
    case classMismatch(requested: String, entity: String, entityClass: String)

    // MARK: Predicates and fetching

    /// The predicate can't apply to the entity: an operator used with the
    /// wrong kind of value, a malformed list, a comparison that can't hold.
    case invalidPredicate(String)
    /// A `MATCHES` pattern is not a valid regular expression.
    case invalidRegularExpression(pattern: String, reason: String)
    /// A `$variable` has no value: the substitution didn't give one, or the
    /// predicate was fetched without substituting.
    case missingSubstitutionVariable(String)
    /// A substitution value doesn't fit the attribute its variable is compared with.
    case substitutionTypeMismatch(variable: String, expected: AttributeType, found: String)
    /// The model has no fetch request template with this name.
    case unknownTemplate(String)
    /// The fetch request is not valid: a negative limit or offset, an unknown
    /// sort key, properties to fetch that don't exist.
    case invalidFetchRequest(String)

    // MARK: Saving

    /// Validation at save failed; every failure of every object is listed.
    case validationFailed([ValidationFailure])
    /// A unique index already holds these values, in the store or earlier in
    /// the same save.
    case uniqueConstraintViolated(entity: String, index: String, values: [String], objectID: ObjectID?)
    /// An indexed value is too long for LMDB's 511-byte keys.
    case indexKeyTooLong(entity: String, index: String, objectID: ObjectID?)
    /// `willSave` kept dirtying objects that had not been saved yet, for more
    /// passes than ``ManagedObjectContext/maximumWillSavePasses``.
    case willSaveDidNotSettle(passes: Int, objectIDs: [ObjectID])
    /// Another context or process changed or deleted these objects since this
    /// context read them (with ``MergePolicy/error``, the default).
    case conflict(objectIDs: [ObjectID])
    /// `save()` was called from inside a save (a `willSave`, validation or
    /// `didSave` hook); the outer save goes on, the inner one did nothing.
    case saveInProgress
    /// The store reached its configured maximum size; nothing was written.
    case storeFull(maximumBytes: Int)

    // MARK: Objects

    /// No object with this ID exists in the store.
    case objectNotFound(ObjectID)
    /// The object no longer belongs to a context: it was inserted and then
    /// rolled back, the context was reset, or the context is gone.
    case objectDetached(ObjectID)
    /// The object belongs to another context.
    case objectInAnotherContext(ObjectID)
    /// A relationship can't hold this: an object of another entity, a
    /// deleted object, an ordered relationship given an object twice, a
    /// to-one used as a to-many.
    case invalidRelationship(String)
    /// The ID's entity is not part of this context's model, or its string
    /// form could not be read.
    case invalidObjectID(String)

    // MARK: Stores

    /// The file is an LMDB environment but not a Kura store.
    case notAKuraStore(path: String)
    /// The store was written by a newer (or unknown) version of Kura;
    /// `supported` is the newest format this version reads.
    case unsupportedFormatVersion(path: String, found: Int, supported: Int)
    /// The store's model differs from the one given, and the store can't be
    /// migrated: it is read-only, or migration is turned off
    /// (``MigrationOptions/disabled``). Each difference is listed.
    case modelMismatch(path: String, differences: [ModelDifference])
    /// A migration failed; the store is as it was. Each reason is listed.
    case migrationFailed(path: String, failures: [MigrationFailure])
    /// The model given is older than the one the store holds (an older
    /// build of the app, a rolled-back deploy): migrating the store back
    /// would drop what newer versions added, so it is refused and nothing
    /// changes. `stored` and `given` name both versions (see
    /// ``ManagedObjectModel/versionIdentifier``; the "Changing your model"
    /// article says how the order is told).
    case modelOlderThanStore(path: String, stored: String, given: String)
    /// Another process migrated the store to another model since this one
    /// opened it: a save writes nothing, and reading a record the migration
    /// rewrote fails with this. Reopen the store with the newer model.
    case storeMigrated(path: String)
    /// The store's contents are damaged.
    case corruptStore(path: String, reason: String)
    /// History after this token was purged (``PersistentStore/purgeHistory(through:)``
    /// through `purgedThrough`): what those saves changed can't be told.
    /// Refetch what you show, and go on from ``PersistentStore/lastHistoryToken()``.
    case historyTokenExpired(HistoryToken, purgedThrough: HistoryToken)
    /// The store was closed.
    case storeClosed(path: String)
    /// The store was opened read-only.
    case storeReadOnly(path: String)
    /// The storage under the store failed: a full disk, a missing
    /// permission, a file that isn't a store file, an engine error. Match
    /// the ``StorageFailure`` to tell them apart.
    case storage(path: String, failure: StorageFailure)
}

/// One failed validation: the object, the attribute (if any), and why.
public struct ValidationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The object that failed.
    public var objectID: ObjectID
    /// The attribute that failed, or `nil` when the failure is about the whole object.
    public var key: String?
    /// What is wrong, for a person.
    public var message: String

    /// A failure of `objectID`, about the attribute `key` when there is one.
    public init(objectID: ObjectID, key: String?, message: String) {
        self.objectID = objectID
        self.key = key
        self.message = message
    }

    public var description: String {
        if let key { return "\(objectID) \(key): \(message)" }
        return "\(objectID): \(message)"
    }
}

extension KuraError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidModel(let reason):
            "invalid model: \(reason)"
        case .unknownEntity(let name):
            "unknown entity '\(name)'"
        case .unknownAttribute(let entity, let key):
            "entity \(entity) has no attribute '\(key)'"
        case .typeMismatch(let entity, let key, let expected, let found):
            "\(entity).\(key) is \(expected.displayName), not \(found)"
        case .modelFrozen(let reason):
            "the model is in use and cannot change: \(reason)"
        case .classMismatch(let requested, let entity, let entityClass):
            "the request fetches \(entity), whose objects are \(entityClass), not \(requested)"
        case .classNotInModel(let name):
            "class \(name) is not an entity of this model"
        case .invalidPredicate(let reason):
            "invalid predicate: \(reason)"
        case .invalidRegularExpression(let pattern, let reason):
            "MATCHES pattern \(PredicateFormatter.quoted(pattern)) is not a valid regular expression: \(reason)"
        case .missingSubstitutionVariable(let name):
            "no value for the variable $\(name)"
        case .substitutionTypeMismatch(let variable, let expected, let found):
            "$\(variable) must be \(expected.displayName), not \(found)"
        case .unknownTemplate(let name):
            "the model has no fetch request template named '\(name)'"
        case .invalidFetchRequest(let reason):
            "invalid fetch request: \(reason)"
        case .validationFailed(let failures):
            "validation failed: " + failures.map(\.description).joined(separator: "; ")
        case .uniqueConstraintViolated(let entity, let index, let values, let objectID):
            "unique index \(entity).\(index) already holds (\(values.joined(separator: ", ")))"
                + (objectID.map { " (saving \($0))" } ?? "")
        case .indexKeyTooLong(let entity, let index, let objectID):
            "the values of index \(entity).\(index) are too long for an LMDB key (511 bytes)"
                + (objectID.map { " (saving \($0))" } ?? "")
        case .willSaveDidNotSettle(let passes, let objectIDs):
            "willSave kept changing new objects after \(passes) passes: "
                + objectIDs.prefix(5).map(\.description).joined(separator: ", ")
        case .conflict(let objectIDs):
            "another context changed these objects since they were read: "
                + objectIDs.prefix(5).map(\.description).joined(separator: ", ")
        case .saveInProgress:
            "save() was called from inside a save (a willSave, validation or didSave hook)"
        case .storeFull(let maximum):
            "the store reached its maximum size of \(maximum) bytes; nothing was written"
        case .objectNotFound(let objectID):
            "no object \(objectID) in the store"
        case .objectDetached(let objectID):
            "\(objectID) no longer belongs to a context (rolled back, reset, or its context is gone)"
        case .objectInAnotherContext(let objectID):
            "\(objectID) belongs to another context"
        case .invalidRelationship(let reason):
            "invalid relationship: \(reason)"
        case .invalidObjectID(let reason):
            "invalid object ID: \(reason)"
        case .notAKuraStore(let path):
            "'\(path)' is not a Kura store"
        case .unsupportedFormatVersion(let path, let found, let supported):
            "'\(path)' has store format \(found); this Kura reads formats up to \(supported)"
        case .modelMismatch(let path, let differences):
            "the model of '\(path)' differs from the one given: " + differences.map(\.description).joined(separator: "; ")
        case .migrationFailed(let path, let failures):
            "migrating '\(path)' failed, and the store is unchanged: " + failures.map(\.description).joined(separator: "; ")
        case .modelOlderThanStore(let path, let stored, let given):
            "'\(path)' holds \(stored), newer than this app's \(given): an older model can't migrate it back "
                + "without dropping what the newer one added, so nothing was changed (if this model is the newer one, "
                + "give it a versionIdentifier that sorts after the store's)"
        case .storeMigrated(let path):
            "another process migrated '\(path)' to another model version: reopen it with that model; nothing was saved"
        case .corruptStore(let path, let reason):
            "'\(path)' is damaged: \(reason)"
        case .historyTokenExpired(let token, let purged):
            "the history after \(token) was purged (through \(purged)): refetch, and read history from the last token on"
        case .storeClosed(let path):
            "the store '\(path)' is closed"
        case .storeReadOnly(let path):
            "the store '\(path)' was opened read-only"
        case .storage(let path, let failure):
            "'\(path)': \(failure)"
        }
    }
}

extension KuraError: LocalizedError {
    /// The same text as ``description``, so `localizedDescription` reads well.
    public var errorDescription: String? { description }
}

extension ValidationFailure: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

extension StorageFailure: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
