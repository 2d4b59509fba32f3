extension ManagedObject {
    /// Ensures every non-optional attribute has a value; the default
    /// implementation of ``validateForInsert()`` and ``validateForUpdate()``.
    ///
    /// - Throws: ``KuraError/validationFailed(_:)`` listing each attribute
    ///   without a value.
    public func validateRequiredAttributes() throws {
        try loadValues()
        var failures: [ValidationFailure] = []
        for (number, attribute) in entity.attributes.enumerated() where !attribute.isOptional && values[number] == nil {
            failures.append(ValidationFailure(objectID: objectID, key: attribute.name, message: "a required attribute has no value"))
        }
        if !failures.isEmpty { throw KuraError.validationFailed(failures) }
    }

    /// Runs `hook` with change tracking off, as ``awakeFromFetch()`` requires.
    func withoutTrackingChanges(_ hook: () -> Void) {
        isTrackingChanges = false
        hook()
        isTrackingChanges = true
    }
}
