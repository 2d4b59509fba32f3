// What a KuraError carries, by what it is about: each property is set by the
// codes it names and `nil` (or empty) for the others.
extension KuraError {
    /// The store, for the codes about one (``Code/storeClosed``,
    /// ``Code/corruptStore``, ``Code/storage``, ``Code/modelMismatch``…).
    public var path: String? {
        switch detail {
        case .notAKuraStore(let path), .unsupportedFormatVersion(let path, _, _), .modelMismatch(let path, _),
             .migrationFailed(let path, _), .modelOlderThanStore(let path, _, _), .storeMigrated(let path),
             .corruptStore(let path, _), .storeClosed(let path), .storeReadOnly(let path), .storage(let path, _):
            path
        default: nil
        }
    }

    /// The objects the error is about: those that changed under a
    /// ``Code/conflict``, that `willSave` kept changing, the object not
    /// found, detached or in another context, the object a unique index or
    /// a too-long key stopped (when it has a permanent ID).
    public var objectIDs: [ObjectID] {
        switch detail {
        case .conflict(let objectIDs), .willSaveDidNotSettle(_, let objectIDs): objectIDs
        case .objectNotFound(let objectID), .objectDetached(let objectID), .objectInAnotherContext(let objectID): [objectID]
        case .uniqueConstraintViolated(_, _, _, let objectID?), .indexKeyTooLong(_, _, let objectID?): [objectID]
        default: []
        }
    }

    /// The entity: unknown, or whose attribute, index or class is meant.
    public var entity: String? {
        switch detail {
        case .unknownEntity(let entity), .unknownAttribute(let entity, _), .typeMismatch(let entity, _, _, _),
             .classMismatch(_, let entity, _), .uniqueConstraintViolated(let entity, _, _, _),
             .indexKeyTooLong(let entity, _, _):
            entity
        default: nil
        }
    }

    /// The attribute (``Code/unknownAttribute``, ``Code/typeMismatch``).
    public var key: String? {
        switch detail {
        case .unknownAttribute(_, let key), .typeMismatch(_, let key, _, _): key
        default: nil
        }
    }

    /// The index (``Code/uniqueConstraintViolated``, ``Code/indexKeyTooLong``).
    public var index: String? {
        switch detail {
        case .uniqueConstraintViolated(_, let index, _, _), .indexKeyTooLong(_, let index, _): index
        default: nil
        }
    }

    /// The values a unique index already holds (``Code/uniqueConstraintViolated``).
    public var values: [String] {
        if case .uniqueConstraintViolated(_, _, let values, _) = detail { return values }
        return []
    }

    /// Every failure of every object (``Code/validationFailed``).
    public var validationFailures: [ValidationFailure] {
        if case .validationFailed(let failures) = detail { return failures }
        return []
    }

    /// What failed under the store (``Code/storage``).
    public var storageFailure: StorageFailure? {
        if case .storage(_, let failure) = detail { return failure }
        return nil
    }

    /// How the store's model differs from the one given (``Code/modelMismatch``).
    public var modelDifferences: [ModelDifference] {
        if case .modelMismatch(_, let differences) = detail { return differences }
        return []
    }

    /// Why a migration failed (``Code/migrationFailed``).
    public var migrationFailures: [MigrationFailure] {
        if case .migrationFailed(_, let failures) = detail { return failures }
        return []
    }

    /// What is wrong, in words, for the codes whose detail is a text: an
    /// invalid model, predicate, fetch request, relationship or object ID,
    /// a frozen model, a regular expression's error, a damaged store.
    public var reason: String? {
        switch detail {
        case .invalidModel(let reason), .modelFrozen(let reason), .invalidPredicate(let reason),
             .invalidRegularExpression(_, let reason), .invalidFetchRequest(let reason), .invalidRelationship(let reason),
             .invalidObjectID(let reason), .corruptStore(_, let reason):
            reason
        default: nil
        }
    }

    /// The `$variable` (``Code/missingSubstitutionVariable``,
    /// ``Code/substitutionTypeMismatch``), the template
    /// (``Code/unknownTemplate``), the `MATCHES` pattern
    /// (``Code/invalidRegularExpression``) or the class
    /// (``Code/classNotInModel``, ``Code/classMismatch``) named.
    public var name: String? {
        switch detail {
        case .missingSubstitutionVariable(let name), .substitutionTypeMismatch(let name, _, _), .unknownTemplate(let name),
             .invalidRegularExpression(let name, _), .classNotInModel(let name), .classMismatch(let name, _, _):
            name
        default: nil
        }
    }

    /// What was expected and what was found: the attribute's or variable's
    /// type, and the value's (``Code/typeMismatch``,
    /// ``Code/substitutionTypeMismatch``); the entity's class, and the one
    /// asked for (``Code/classMismatch``); the newest format this build
    /// reads, and the store's (``Code/unsupportedFormatVersion``); the
    /// app's model version, and the store's newer one
    /// (``Code/modelOlderThanStore``).
    public var mismatch: (expected: String, found: String)? {
        switch detail {
        case .typeMismatch(_, _, let expected, let found), .substitutionTypeMismatch(_, let expected, let found):
            (expected.displayName, found)
        case .classMismatch(let requested, _, let entityClass): (entityClass, requested)
        case .unsupportedFormatVersion(_, let found, let supported): ("\(supported)", "\(found)")
        case .modelOlderThanStore(_, let stored, let given): (given, stored)
        default: nil
        }
    }

    /// A figure the error is about: `willSave`'s passes
    /// (``Code/willSaveDidNotSettle``), the store's maximum size in bytes
    /// (``Code/storeFull``).
    public var limit: Int? {
        switch detail {
        case .willSaveDidNotSettle(let passes, _): passes
        case .storeFull(let maximum): maximum
        default: nil
        }
    }

    /// The token read after, and the last purged (``Code/historyTokenExpired``).
    public var historyTokens: (after: HistoryToken, purgedThrough: HistoryToken)? {
        if case .historyTokenExpired(let token, let purged) = detail { return (token, purged) }
        return nil
    }
}
