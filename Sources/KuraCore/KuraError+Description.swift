import Foundation

extension KuraError: CustomStringConvertible {
    public var description: String {
        switch detail {
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
            "the values of index \(entity).\(index) are too long for an index key (511 bytes on every engine)"
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
                + "give it a versionIdentifier that is a later version than the store's)"
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

extension StorageFailure: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
