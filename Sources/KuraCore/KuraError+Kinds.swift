// The errors by kind, each made by the static member named for its code.
extension KuraError {
    // MARK: Model and keys

    /// The model is not valid: duplicate or empty names, an index over an
    /// unknown attribute, a default value of the wrong type.
    public static func invalidModel(_ value: String) -> KuraError {
        KuraError(.invalidModel(value))
    }

    /// No entity has this name.
    public static func unknownEntity(_ value: String) -> KuraError {
        KuraError(.unknownEntity(value))
    }

    /// The entity has no attribute with this name.
    public static func unknownAttribute(entity: String, key: String) -> KuraError {
        KuraError(.unknownAttribute(entity: entity, key: key))
    }

    /// A value does not fit the attribute: another type, or an integer out of
    /// the attribute's range.
    public static func typeMismatch(entity: String, key: String, expected: AttributeType, found: String) -> KuraError {
        KuraError(.typeMismatch(entity: entity, key: key, expected: expected, found: found))
    }

    /// The model is in use by a store, so it can no longer change.
    public static func modelFrozen(_ value: String) -> KuraError {
        KuraError(.modelFrozen(value))
    }

    /// The class is not an entity of the context's model.
    public static func classNotInModel(_ value: String) -> KuraError {
        KuraError(.classNotInModel(value))
    }

    /// A request of entity `entity`, whose objects are of class
    /// `entityClass`, was asked for objects of another class.
    public static func classMismatch(requested: String, entity: String, entityClass: String) -> KuraError {
        KuraError(.classMismatch(requested: requested, entity: entity, entityClass: entityClass))
    }

    // MARK: Predicates and fetching

    /// The predicate can't apply to the entity: an operator used with the
    /// wrong kind of value, a malformed list, a comparison that can't hold.
    public static func invalidPredicate(_ value: String) -> KuraError {
        KuraError(.invalidPredicate(value))
    }

    /// A `MATCHES` pattern is not a valid regular expression.
    public static func invalidRegularExpression(pattern: String, reason: String) -> KuraError {
        KuraError(.invalidRegularExpression(pattern: pattern, reason: reason))
    }

    /// A `$variable` has no value: the substitution didn't give one, or the
    /// predicate was fetched without substituting.
    public static func missingSubstitutionVariable(_ value: String) -> KuraError {
        KuraError(.missingSubstitutionVariable(value))
    }

    /// A substitution value doesn't fit the attribute its variable is compared with.
    public static func substitutionTypeMismatch(variable: String, expected: AttributeType, found: String) -> KuraError {
        KuraError(.substitutionTypeMismatch(variable: variable, expected: expected, found: found))
    }

    /// The model has no fetch request template with this name.
    public static func unknownTemplate(_ value: String) -> KuraError {
        KuraError(.unknownTemplate(value))
    }

    /// The fetch request is not valid: a negative limit or offset, an unknown
    /// sort key, properties to fetch that don't exist.
    public static func invalidFetchRequest(_ value: String) -> KuraError {
        KuraError(.invalidFetchRequest(value))
    }

    // MARK: Saving

    /// Validation at save failed; every failure of every object is listed.
    public static func validationFailed(_ failures: [ValidationFailure]) -> KuraError {
        KuraError(.validationFailed(failures))
    }

    /// A unique index already holds these values, in the store or earlier in
    /// the same save.
    public static func uniqueConstraintViolated(entity: String, index: String, values: [String], objectID: ObjectID?) -> KuraError {
        KuraError(.uniqueConstraintViolated(entity: entity, index: index, values: values, objectID: objectID))
    }

    /// An indexed value is too long for an index key (511 bytes on every engine).
    public static func indexKeyTooLong(entity: String, index: String, objectID: ObjectID?) -> KuraError {
        KuraError(.indexKeyTooLong(entity: entity, index: index, objectID: objectID))
    }

    /// `willSave` kept dirtying objects that had not been saved yet, for more
    /// passes than ``ManagedObjectContext/maximumWillSavePasses``.
    public static func willSaveDidNotSettle(passes: Int, objectIDs: [ObjectID]) -> KuraError {
        KuraError(.willSaveDidNotSettle(passes: passes, objectIDs: objectIDs))
    }

    /// Another context or process changed or deleted these objects since this
    /// context read them (with ``MergePolicy/error``, the default).
    public static func conflict(objectIDs: [ObjectID]) -> KuraError {
        KuraError(.conflict(objectIDs: objectIDs))
    }

    /// `save()` was called from inside a save (a `willSave`, validation or
    /// `didSave` hook); the outer save goes on, the inner one did nothing.
    public static let saveInProgress = KuraError(.saveInProgress)

    /// The store reached its configured maximum size; nothing was written.
    public static func storeFull(maximumBytes: Int) -> KuraError {
        KuraError(.storeFull(maximumBytes: maximumBytes))
    }

    // MARK: Objects

    /// No object with this ID exists in the store.
    public static func objectNotFound(_ objectID: ObjectID) -> KuraError {
        KuraError(.objectNotFound(objectID))
    }

    /// The object no longer belongs to a context: it was inserted and then
    /// rolled back, the context was reset, or the context is gone.
    public static func objectDetached(_ objectID: ObjectID) -> KuraError {
        KuraError(.objectDetached(objectID))
    }

    /// The object belongs to another context.
    public static func objectInAnotherContext(_ objectID: ObjectID) -> KuraError {
        KuraError(.objectInAnotherContext(objectID))
    }

    /// A relationship can't hold this: an object of another entity, a
    /// deleted object, an ordered relationship given an object twice, a
    /// to-one used as a to-many.
    public static func invalidRelationship(_ value: String) -> KuraError {
        KuraError(.invalidRelationship(value))
    }

    /// The ID's entity is not part of this context's model, or its string
    /// form could not be read.
    public static func invalidObjectID(_ value: String) -> KuraError {
        KuraError(.invalidObjectID(value))
    }

    // MARK: Stores

    /// The storage holds something that isn't a Kura store (an LMDB file of
    /// another program, a database of other tables).
    public static func notAKuraStore(path: String) -> KuraError {
        KuraError(.notAKuraStore(path: path))
    }

    /// The store was written by a newer (or unknown) version of Kura;
    /// `supported` is the newest format this version reads.
    public static func unsupportedFormatVersion(path: String, found: Int, supported: Int) -> KuraError {
        KuraError(.unsupportedFormatVersion(path: path, found: found, supported: supported))
    }

    /// The store's model differs from the one given, and the store can't be
    /// migrated: it is read-only, or migration is turned off
    /// (``MigrationOptions/disabled``). Each difference is listed.
    public static func modelMismatch(path: String, differences: [ModelDifference]) -> KuraError {
        KuraError(.modelMismatch(path: path, differences: differences))
    }

    /// A migration failed; the store is as it was. Each reason is listed.
    public static func migrationFailed(path: String, failures: [MigrationFailure]) -> KuraError {
        KuraError(.migrationFailed(path: path, failures: failures))
    }

    /// The model given is older than the one the store holds (an older
    /// build of the app, a rolled-back deploy): migrating the store back
    /// would drop what newer versions added, so it is refused and nothing
    /// changes. `stored` and `given` name both versions (see
    /// ``ManagedObjectModel/versionIdentifier``; the "Changing your model"
    /// article says how the order is told).
    public static func modelOlderThanStore(path: String, stored: String, given: String) -> KuraError {
        KuraError(.modelOlderThanStore(path: path, stored: stored, given: given))
    }

    /// Another process migrated the store to another model since this one
    /// opened it: a save writes nothing, and reading a record the migration
    /// rewrote fails with this. Reopen the store with the newer model.
    public static func storeMigrated(path: String) -> KuraError {
        KuraError(.storeMigrated(path: path))
    }

    /// The store's contents are damaged.
    public static func corruptStore(path: String, reason: String) -> KuraError {
        KuraError(.corruptStore(path: path, reason: reason))
    }

    /// History after this token was purged (``PersistentStore/purgeHistory(through:)``
    /// through `purgedThrough`): what those saves changed can't be told.
    /// Refetch what you show, and go on from ``PersistentStore/lastHistoryToken()``.
    public static func historyTokenExpired(_ token: HistoryToken, purgedThrough: HistoryToken) -> KuraError {
        KuraError(.historyTokenExpired(token, purgedThrough: purgedThrough))
    }

    /// The store was closed.
    public static func storeClosed(path: String) -> KuraError {
        KuraError(.storeClosed(path: path))
    }

    /// The store was opened read-only.
    public static func storeReadOnly(path: String) -> KuraError {
        KuraError(.storeReadOnly(path: path))
    }

    /// The storage under the store failed: a full disk, a missing
    /// permission, a file that isn't a store file, an engine error. Match
    /// the ``StorageFailure`` to tell them apart.
    public static func storage(path: String, failure: StorageFailure) -> KuraError {
        KuraError(.storage(path: path, failure: failure))
    }
}
