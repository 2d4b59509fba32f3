extension ManagedObject {
    /// Ensures every non-optional attribute has a value; part of the default
    /// ``validateForInsert()`` and ``validateForUpdate()``.
    ///
    /// - Throws: ``KuraError/validationFailed(_:)`` listing each attribute
    ///   without a value.
    public func validateRequiredAttributes() throws {
        let missing = try requiredAttributesWithoutValue()
        guard !missing.isEmpty else { return }
        throw KuraError.validationFailed(missing.map { number in
            ValidationFailure(objectID: objectID, key: entity.attributes[number].name, message: "a required attribute has no value")
        })
    }

    /// Ensures every required to-one has a destination and every to-many
    /// has between its minimum and maximum count of members; part of the
    /// default ``validateForInsert()`` and ``validateForUpdate()``.
    ///
    /// - Throws: ``KuraError/validationFailed(_:)`` listing each relationship
    ///   that doesn't hold.
    public func validateRelationships() throws {
        try validateRelationships(onlyChanged: false)
    }

    /// What the default ``validateForInsert()`` and ``validateForUpdate()``
    /// check. For an update, only what changed is checked again (what is
    /// stored passed when it was saved), so an object whose only change is
    /// a membership needs no read of its record.
    func validateProperties() throws {
        var failures: [ValidationFailure] = []
        if state == .inserted || !changedAttributes.isEmpty {
            do { try validateRequiredAttributes() } catch let error as KuraError where error.code == .validationFailed {
                failures += error.validationFailures
            }
        }
        do {
            try validateRelationships(onlyChanged: state != .inserted)
        } catch let error as KuraError where error.code == .validationFailed {
            failures += error.validationFailures
        }
        if !failures.isEmpty { throw KuraError.validationFailed(failures) }
    }

    private func validateRelationships(onlyChanged: Bool) throws {
        var failures: [ValidationFailure] = []
        for link in entity.links {
            if onlyChanged && !changedRelationships.contains(link.number) { continue }
            let description = link.description
            if link.isToMany {
                guard description.minimumCount > 0 || description.maximumCount != nil else { continue }
                let count = try members(link).count
                if count < description.minimumCount {
                    failures.append(ValidationFailure(
                        objectID: objectID, key: link.name, message: "has \(count) members; at least \(description.minimumCount) are required"))
                }
                if let maximum = description.maximumCount, count > maximum {
                    failures.append(ValidationFailure(
                        objectID: objectID, key: link.name, message: "has \(count) members; at most \(maximum) are allowed"))
                }
            } else if !description.isOptional, try destination(link) == nil {
                failures.append(ValidationFailure(objectID: objectID, key: link.name, message: "a required relationship has no destination"))
            }
        }
        if !failures.isEmpty { throw KuraError.validationFailed(failures) }
    }

    /// Fails for each relationship whose delete rule is `deny` and that still
    /// points to objects; the default ``validateForDelete()``.
    ///
    /// - Throws: ``KuraError/validationFailed(_:)`` naming the objects.
    public func validateDenyRules() throws {
        var failures: [ValidationFailure] = []
        for link in entity.links where link.description.deleteRule == .deny {
            let related = link.isToMany ? try members(link) : (try destination(link)).map { [$0] } ?? []
            let remaining = related.filter { $0.state != .deleted && $0.state != .removed && $0.state != .detached }
            guard !remaining.isEmpty else { continue }
            let names = remaining.prefix(5).map(\.objectID.description).joined(separator: ", ")
            failures.append(ValidationFailure(
                objectID: objectID, key: link.name,
                message: "can't be deleted: its delete rule is deny and it still refers to \(names)\(remaining.count > 5 ? " and \(remaining.count - 5) more" : "")"))
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

extension ManagedObject {
    /// A failure for each JSON attribute about to be saved whose value
    /// couldn't be encoded (see ``JSONAttributeCoding/encode(_:)``): checked
    /// by every save, whatever `validateFor…` an app overrides.
    func appendUnstorableValues(to failures: inout [ValidationFailure]) {
        let numbers = entity.jsonAttributeNumbers
        guard !numbers.isEmpty, state == .inserted || state == .persisted, !values.isEmpty else { return }
        for number in numbers where state == .inserted || changedAttributes.contains(number) {
            guard let reason = JSONAttributeCoding.unstorableReason(peekValue(number)) else { continue }
            failures.append(ValidationFailure(objectID: objectID, key: entity.attributes[number].name, message: "can't be stored: \(reason)"))
        }
    }
}
