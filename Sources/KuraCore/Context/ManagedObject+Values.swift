extension ManagedObject {
    // MARK: Dynamic access

    /// The current value of the attribute called `key` (`nil` when it has none).
    ///
    /// ```swift
    /// let title = try object.value(forKey: "title")       // AttributeValue? such as .string("Kura")
    /// ```
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)``;
    ///   ``KuraError/objectNotFound(_:)`` when the object was a fault whose
    ///   record is gone; ``KuraError/objectDetached(_:)``.
    public func value(forKey key: String) throws -> AttributeValue? {
        try currentValue(entity.requireAttributeNumber(key))
    }

    /// The current value of the attribute called `key`, as a Swift type.
    ///
    /// ```swift
    /// let order = try object.value(forKey: "sortOrder", as: Int.self)
    /// let image = try object.value(forKey: "imageURL", as: String?.self)
    /// ```
    ///
    /// - Throws: as ``value(forKey:)``, and ``KuraError/typeMismatch(entity:key:expected:found:)``
    ///   when the value is not a `T` (or is `nil` and `T` is not optional).
    public func value<T: AttributeValueConvertible>(forKey key: String, as type: T.Type) throws -> T {
        let number = try entity.requireAttributeNumber(key)
        let value = try currentValue(number)
        guard let typed = T(attributeValue: value) else {
            let found: String = switch value {
            case nil: "nil"
            case let value? where T.attributeType == entity.attributes[number].type:
                // The stored type, but no value of T: an enumeration's raw value
                // with no case, JSON that doesn't decode.
                "\(value.jsonText ?? "\(value)"), "
                    + "which is no value of \(T.self) (written by a newer build?)"
            case let value?: "\(T.self) (the value is \(value.kindName))"
            }
            throw KuraError.typeMismatch(entity: entity.name, key: key, expected: entity.attributes[number].type, found: found)
        }
        return typed
    }

    /// Sets the attribute called `key` to `value`, or to no value with `nil`.
    ///
    /// The value is converted as ``AttributeValue/converted(to:)`` describes
    /// (an `.int` fits a `Double` attribute; a number out of an `Int16`'s range
    /// does not). `nil` is accepted for any attribute; a non-optional one
    /// without a value fails validation at save.
    ///
    /// Bytes for a JSON attribute (a `Codable` value, a list) must be one
    /// JSON value, a list's an array of its element type.
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)``,
    ///   ``KuraError/typeMismatch(entity:key:expected:found:)``,
    ///   ``KuraError/objectDetached(_:)``.
    public func setValue(_ value: AttributeValue?, forKey key: String) throws {
        let number = try entity.requireAttributeNumber(key)
        let type = entity.attributes[number].type  // the type only: copying the description retains its strings
        var converted: AttributeValue?
        if let value {
            guard let fitting = value.converted(to: type) else {
                throw KuraError.typeMismatch(entity: entity.name, key: key, expected: type, found: value.kindName)
            }
            if type == .data { try entity.checkJSON(fitting, at: number) }
            converted = fitting
        }
        try setValue(converted, at: number)
    }

    /// Sets the attribute called `key` to a Swift value.
    ///
    /// ```swift
    /// try object.setValue("Kura ships", forKey: "title")
    /// try object.setValue(42, forKey: "sortOrder")
    /// ```
    public func setValue<T: AttributeValueConvertible>(_ value: T, forKey key: String) throws {
        try setValue(value.attributeValue, forKey: key)
    }

    // MARK: Changes

    /// The properties the next save will write, with their new values: for an
    /// inserted object, every attribute with a value and every relationship
    /// with destinations; for a saved one, the changed attributes and
    /// relationships.
    public func changedValues() -> [String: PropertyValue] {
        var changes: [String: PropertyValue] = [:]
        switch state {
        case .inserted:
            for (number, value) in values.enumerated() where value != nil {
                changes[entity.attributes[number].name] = .attribute(value)
            }
            for link in entity.links where !relationshipStates.isEmpty {
                if case .unloaded = relationshipStates[link.number] { continue }
                let value = currentRelationshipValue(link)
                if value != .toOne(nil) && value != .toMany([]) { changes[link.name] = value }
            }
        case .persisted:
            for number in changedAttributes.elements {
                changes[entity.attributes[number].name] = .attribute(values[number])
            }
            for number in changedRelationships.elements {
                changes[entity.links[number].name] = currentRelationshipValue(entity.links[number])
            }
        default:
            break
        }
        return changes
    }

    /// A relationship's current value as IDs, from what is loaded (a to-many
    /// not read yet is read).
    private func currentRelationshipValue(_ link: RelationshipLink) -> PropertyValue {
        if link.isToMany {
            let members = (try? members(link)) ?? []
            let ids = members.map(\.objectID)
            return .toMany(link.isOrdered ? ids : members.sorted(by: Self.creationOrder).map(\.objectID))
        }
        return .toOne((try? destination(link))??.objectID)
    }

    /// The values last read from or saved to the store, for `keys`
    /// (attributes or relationships; every attribute and relationship when
    /// `nil`). Empty for an object never saved.
    ///
    /// - Throws: ``KuraError/unknownAttribute(entity:key:)``; a store error
    ///   when stored members must be read.
    public func committedValues(forKeys keys: [String]?) throws -> [String: PropertyValue] {
        guard state != .inserted && state != .unregistered else { return [:] }
        try loadValues()
        var committed: [String: PropertyValue] = [:]
        for key in keys ?? (entity.attributes.map(\.name) + entity.links.map(\.name)) {
            if let number = entity.attributeNumber(named: key) {
                committed[key] = .attribute(committedValue(number))
            } else if let link = entity.link(named: key) {
                if link.isToMany {
                    guard let context else { throw KuraError.objectDetached(objectID) }
                    let keys = try context.memberKeys(of: link, owner: objectID.registryKey)
                    committed[key] = .toMany(keys.map { ObjectID(entity: link.destination, registryKey: $0) })
                } else {
                    // (A detached object's links may point into a model that is gone.)
                    guard context != nil else { throw KuraError.objectDetached(objectID) }
                    committed[key] = .toOne(committedDestinationKey(link).map { ObjectID(entity: link.destination, registryKey: $0) })
                }
            } else {
                throw KuraError.unknownAttribute(entity: entity.name, key: key)
            }
        }
        return committed
    }

    /// The stored value of attribute `number` (`nil` for a new object).
    func committedValue(_ number: Int) -> AttributeValue? {
        withRecordBytes { RecordView(trusted: $0).value(number, of: entity) } ?? nil
    }

    // MARK: Typed access (used by Attribute)

    /// The position and current value of the attribute whose ``Attribute``
    /// storage is `keyPath`, for a typed property's getter.
    ///
    /// Stops the program with a message (a typed property can't throw) when
    /// there is no value to give: a value never loaded of an object that left
    /// its context, or whose record is gone from the store.
    /// ``value(forKey:)`` throws for the same cases.
    @usableFromInline
    final func attributeValue(forStorage keyPath: AnyKeyPath) -> (Int, AttributeValue?) {
        let number = attributeNumber(forStorage: keyPath)
        do {
            let value = try currentValue(number)
            if let propertyProbe {
                propertyProbe.names.append(entity.attributes[number].name)
                propertyProbe.given = .attribute(value)
            }
            return (number, value)
        } catch {
            fatalError("reading \(entity.name).\(entity.attributes[number].name) of \(objectID): \(error)")
        }
    }

    /// Decodes, with `decode`, the stored bytes of the attribute whose
    /// ``Attribute`` storage is `keyPath`, when a typed getter can read them
    /// itself: the object holds no values of its own (nothing was set or
    /// decoded since its record was read) and its record has the
    /// attribute's field. ``StoredRead/unavailable`` otherwise, or when
    /// `decode` doesn't take the value (it answers `.unavailable`): the getter then goes through
    /// ``attributeValue(forStorage:)``. The field is lent to `decode` inside
    /// the record's bytes and goes no further.
    @inline(__always)
    final func storedRead<Stored>(forStorage keyPath: AnyKeyPath, _ decode: (StoredField) -> StoredRead<Stored>) -> StoredRead<Stored> {
        guard values.isEmpty, !isFullyDecoded, propertyProbe == nil, record != nil else { return .unavailable }
        let number = attributeNumber(forStorage: keyPath)
        var read = StoredRead<Stored>.unavailable
        _ = withRecordBytes { bytes in
            guard let stored = RecordView(trusted: bytes).storedValue(ofAttribute: number, of: entity) else { return }
            let field = StoredField(stored)
            // (Made where it is kept: a decoded string is not copied on its way.)
            read = field.isNull ? .null : decode(field)
        }
        return read
    }

    /// Calls `body` with the bytes of ``record``, or returns `nil` without a
    /// record. The record is read in place: bound to a name (`if let
    /// record`), it is retained and released around the call, about a third
    /// of a typed read (callgrind, reading every field). `body` must not
    /// change ``record``.
    @inline(__always)
    final func withRecordBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard record != nil else { return nil }
        return record.unsafelyUnwrapped.withUnsafeBytes(body)
    }

    /// The initial value of attribute `number`, which a typed property reads
    /// instead of a stored value its type has no value for (an
    /// enumeration's raw value with no case). A probe object's placeholder
    /// is such a value: the probe notes what the property gave instead.
    @usableFromInline
    final func initialValueInstead(at number: Int) -> AttributeValue? {
        let initial = entity.attributes[number].defaultValue
        if let propertyProbe { propertyProbe.given = .attribute(initial) }
        return initial
    }

    /// Stops the program: a typed property was read before it had a value.
    @usableFromInline
    final func missingValue(at number: Int) -> Never {
        fatalError(
            "\(entity.name).\(entity.attributes[number].name) of \(objectID) has no value yet. Set it before reading it "
                + "(for a new object, in awakeFromInsert()), or give the attribute an initial value.")
    }

    /// Sets the attribute whose ``Attribute`` storage is `keyPath`, for a
    /// typed property's setter.
    @usableFromInline
    final func setAttributeValue(_ value: AttributeValue?, forStorage keyPath: AnyKeyPath) {
        setTypedValue(value, at: attributeNumber(forStorage: keyPath))
    }

    /// The attribute a typed property's storage key path stands for. The
    /// entity lives as long as its objects: it is borrowed for the lookup,
    /// not retained (a retain and release on each typed read or write).
    @inline(__always)
    final func attributeNumber(forStorage keyPath: AnyKeyPath) -> Int {
        Unmanaged.passUnretained(entity)._withUnsafeGuaranteedRef { $0.keyPaths.number(for: keyPath, in: $0) }
    }

    /// Sets a typed property. On an object that left its context (its
    /// insertion rolled back, its deletion saved, the context reset), the
    /// value changes in the object only: it is not tracked and never saved,
    /// as ``setValue(_:forKey:)-(AttributeValue?,_)`` says by throwing
    /// ``KuraError/objectDetached(_:)``. Setting a value of a fault whose
    /// record is gone from the store stops the program with a message.
    @inline(__always)
    final func setTypedValue(_ value: AttributeValue?, at number: Int) {
        do {
            try setValue(value, at: number)
        } catch where error.code == .objectDetached {
            setUntrackedValue(value, at: number)
        } catch {
            fatalError("setting \(entity.name).\(entity.attributes[number].name) of \(objectID): \(error)")
        }
    }

    /// `count` unset values. Made from a collection, which Swift specializes
    /// for the element type; `ContiguousArray(repeating:count:)` goes through
    /// a generic metadata lookup on every call.
    static func unsetValues(count: Int) -> ContiguousArray<AttributeValue?> {
        // Appended one by one, like ``EntityDescription/newObjectValues()``:
        // the bulk initializers allocate through the runtime's generic path.
        var values = ContiguousArray<AttributeValue?>()
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(nil) }
        return values
    }

    /// Sets a value of an object outside any context, without tracking.
    private final func setUntrackedValue(_ value: AttributeValue?, at number: Int) {
        if values.isEmpty {
            values = Self.unsetValues(count: entity.attributes.count)
            decodedAttributes.removeAll()
        }
        values[number] = value
        if !isFullyDecoded { decodedAttributes.insert(number) }
    }

    // MARK: Storage

    /// Sets attribute `number`, recording the change unless it sets the value
    /// already there or change tracking is off.
    final func setValue(_ value: AttributeValue?, at number: Int) throws(KuraError) {
        switch state {
        case .inserted, .persisted, .deleted:
            guard hasContext else { throw KuraError.objectDetached(objectID) }
        case .unregistered:
            break
        case .removed, .detached:
            throw KuraError.objectDetached(objectID)
        }
        let isChanged: Bool
        let oldIsCommitted: Bool
        if let isSame = try storedValueIsSame(number, as: value) {
            // Told from the record's bytes: the committed value, not decoded
            // (a string's would be made only to be compared and dropped).
            oldIsCommitted = true
            isChanged = !isSame
            if isChanged {
                values.withUnsafeMutableBufferPointer { $0[number] = value }
                decodedAttributes.insert(number)
            }
        } else {
            // A value decoded just now is the stored one: no need to decode it
            // again to tell whether the set changes the committed value.
            oldIsCommitted = try loadValue(number)
            // Compared and replaced in place: reading `values[number]` out of
            // the array would copy the old value first.
            isChanged = values.withUnsafeMutableBufferPointer { slots in
                if AttributeValue.same(slots[number], value) { return false }
                slots[number] = value
                return true
            }
        }
        guard isChanged else {
            // An assignment to a new object is its own value even when it
            // equals the default: an upsert's merge writes it (see
            // MergePolicy); awakeFromInsert's assignments are reset after it.
            if isTrackingChanges {
                if state == .inserted || state == .unregistered { changedAttributes.insert(number) }
            }
            return
        }
        guard isTrackingChanges else {
            hasUntrackedValues = true
            return
        }
        if state == .inserted || state == .unregistered {
            // Kept after awakeFromInsert (see ManagedObjectContext.insert(_:)).
            changedAttributes.insert(number)
        } else if state == .persisted || state == .deleted {
            if oldIsCommitted {
                changedAttributes.insert(number)
            } else if committedValue(number) == value {
                changedAttributes.remove(number)
            } else {
                changedAttributes.insert(number)
            }
        }
        withContext { $0.noteChange(self) }
    }

    /// Makes ``values`` hold every attribute's current value: the defaults
    /// for a new object, else decoded from the record (loading it first for
    /// a fault).
    final func loadValues() throws(KuraError) {
        if isFullyDecoded { return }
        try prepareValues()
        if isFullyDecoded { return }
        guard record != nil else { throw KuraError.objectDetached(objectID) }
        _ = withRecordBytes { bytes in
            let view = RecordView(trusted: bytes)
            for number in entity.attributes.indices where !decodedAttributes.contains(number) {
                values[number] = view.value(number, of: entity)
            }
        }
        isFullyDecoded = true
    }

    /// The current value of attribute `number`. An object that holds no
    /// values of its own (nothing was set since its record was read) decodes
    /// it straight from the record each time, so reading never builds
    /// ``values``: a fetched object that is only read costs its record and
    /// nothing per attribute. A fault's record is read first.
    @inline(__always)
    final func currentValue(_ number: Int) throws(KuraError) -> AttributeValue? {
        if isFullyDecoded { return values[number] }
        if values.isEmpty {
            if record == nil && (state == .persisted || state == .deleted) { try fireFault() }
            if values.isEmpty, let value = withRecordBytes({ RecordView(trusted: $0).value(number, of: entity) }) {
                return value
            }
        }
        try loadValue(number)
        return values[number]
    }

    /// The required attributes that have no value. One still in the record
    /// is not decoded: its tag says (a save validating a changed object
    /// checks every required attribute this way, without decoding the
    /// unchanged ones), and the record is looked at once for all of them.
    final func requiredAttributesWithoutValue() throws(KuraError) -> [Int] {
        let required = entity.requiredAttributeNumbers
        if !isFullyDecoded && values.isEmpty && record == nil && (state == .persisted || state == .deleted) { try fireFault() }
        if isFullyDecoded { return required.filter { !holdsValue($0) } }
        guard let record else {
            var missing: [Int] = []
            for number in required where try currentValue(number) == nil { missing.append(number) }
            return missing
        }
        let hasDecoded = !values.isEmpty
        return record.withUnsafeBytes { bytes in
            let view = RecordView(trusted: bytes)
            return required.filter { number in
                hasDecoded && decodedAttributes.contains(number) ? !holdsValue(number) : !view.hasValue(number, of: entity)
            }
        }
    }

    /// Whether ``values`` holds a value at `number`, looked at in place: a
    /// copy would retain the value's storage (a string's, cold by the time
    /// a save validates).
    @inline(__always)
    final func holdsValue(_ number: Int) -> Bool {
        values.withUnsafeBufferPointer { slots in
            if case .none = slots[number] { return false }
            return true
        }
    }

    /// Readies what a save of this stored object writes: the values decoded
    /// or set, the others left in the record, whose bytes the store copies
    /// as they are (decoding only the indexed ones whose keys it must make:
    /// ``ChangeSet/Update/value(_:)``). Returns that record and which values
    /// are decoded, or `nil` when ``values`` holds them all.
    final func valuesForSave() throws(KuraError) -> ChangeSet.Unloaded? {
        try prepareValues()
        guard !isFullyDecoded, let record else { return nil }
        return ChangeSet.Unloaded(record: record, loaded: decodedAttributes)
    }

    /// Reads a fault's record, then runs ``awakeFromFetch()`` (which may set
    /// values: they are not changes).
    private final func fireFault() throws(KuraError) {
        guard let context else { throw KuraError.objectDetached(objectID) }
        record = try context.loadRecord(of: self)
        withoutTrackingChanges { awakeFromFetch() }
    }

    /// For a set of attribute `number`: whether the stored value is `value`,
    /// told from the record's bytes (``RecordView/storedValue(_:of:isSameAs:)``)
    /// when the object holds no decoded value for it; `nil` when it does,
    /// when there is no record (a new object), or when only decoding can tell.
    /// Readies ``values`` (firing a fault) first, as a set needs it.
    @inline(__always)
    private final func storedValueIsSame(_ number: Int, as value: AttributeValue?) throws(KuraError) -> Bool? {
        if isFullyDecoded { return nil }
        try prepareValues()
        if isFullyDecoded || decodedAttributes.contains(number) { return nil }
        return withRecordBytes { RecordView(trusted: $0).storedValue(number, of: entity, isSameAs: value) } ?? nil
    }

    /// Makes ``values`` hold attribute `number`, decoding only that one;
    /// true when it was decoded just now (so it is the committed value).
    @inline(__always)
    @discardableResult
    final func loadValue(_ number: Int) throws(KuraError) -> Bool {
        if isFullyDecoded { return false }
        try prepareValues()
        if isFullyDecoded || decodedAttributes.contains(number) { return false }
        // A detached fault's values were never loaded.
        guard let value = withRecordBytes({ RecordView(trusted: $0).value(number, of: entity) }) else {
            throw KuraError.objectDetached(objectID)
        }
        values[number] = value
        decodedAttributes.insert(number)
        return true
    }

    /// Makes room in ``values`` before a value is set: the defaults for a new
    /// object; for a stored one, empty slots to decode into (firing a fault
    /// first).
    final func prepareValues() throws(KuraError) {
        guard values.isEmpty else { return }
        guard !entity.attributes.isEmpty else {
            isFullyDecoded = true
            return
        }
        if record == nil {
            switch state {
            case .unregistered, .inserted:
                values = entity.newObjectValues()
                isFullyDecoded = true
                return
            case .persisted, .deleted:
                try fireFault()
                guard values.isEmpty else { return }  // awakeFromFetch set a value: the slots are made
            case .removed, .detached:
                throw KuraError.objectDetached(objectID)
            }
        }
        values = Self.unsetValues(count: entity.attributes.count)
        decodedAttributes.removeAll()
    }

    /// The value of attribute `number` without loading a fault; `nil` if not loaded.
    func peekValue(_ number: Int) -> AttributeValue? {
        if isFullyDecoded || decodedAttributes.contains(number) { return values[number] }
        return committedValue(number)
    }

    /// Forgets the current values and changes; the record stays as the
    /// committed state (or, if `record` is cleared too, the object is a fault).
    func discardChanges() {
        values = []
        decodedAttributes.removeAll()
        isFullyDecoded = false
        changedAttributes.removeAll()
        hasUntrackedValues = false
        relationshipStates = .empty
        changedRelationships.removeAll()
    }
}
