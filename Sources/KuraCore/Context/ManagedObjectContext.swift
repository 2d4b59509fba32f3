import Foundation

/// A scratchpad of objects: it fetches them from a store, tracks what you
/// insert, change and delete, and writes all of it in one ``save()``.
///
/// ```swift
/// let context = container.newContext()
/// let news = News(context: context)          // inserted; awakeFromInsert ran
/// news.title = "Kura ships"
/// context.insertedObjects.count              // 1
/// try context.save()                         // one write transaction
/// news.objectID.isTemporaryID                // false: kura://News/1
/// ```
///
/// A context holds at most one object per stored record (its identity map):
/// fetching or resolving the same ID again returns the same instance, with
/// whatever unsaved changes it has. It keeps every object it registered
/// until ``reset()`` (like Core Data with `retainsRegisteredObjects`), so
/// prefer short-lived contexts for large jobs.
///
/// A context is not `Sendable`: it and its objects stay in the isolation
/// domain that made them. Use one context per task or thread
/// (``PersistentContainer/newContext()``,
/// ``PersistentContainer/performBackgroundTask(_:)``) and pass
/// ``ObjectID``s between them.
public final class ManagedObjectContext {
    /// The store the context reads from and saves to.
    public let store: PersistentStore
    /// The model of the store.
    public var model: ManagedObjectModel { store.model }

    /// What a save does when another context or process changed an object
    /// since this context read it. Default ``MergePolicy/error``.
    public var mergePolicy = MergePolicy.error

    /// How many rounds of `willSave` a save allows for objects first changed
    /// inside other objects' `willSave` before it gives up with
    /// ``KuraError/willSaveDidNotSettle(passes:objectIDs:)``. Default 100.
    public var maximumWillSavePasses = 100

    /// The name a save of this context records as its author in the store's
    /// history (``HistoryTransaction/author``), such as `"importer"`, so a
    /// reader can tell its own saves from others'. Default `nil`.
    public var transactionAuthor: String?

    /// Whether the objects' own hooks run: `awakeFromInsert`, `willSave`,
    /// `didSave` and the `validateFor…` overrides. Default true.
    ///
    /// Set it to false for bulk loading, the way Core Data's batch inserts
    /// bypass the objects' code (`kura import` does, unless told `--hooks`):
    /// what the model itself requires still holds (required attributes,
    /// relationship counts, deny rules, unique indexes), but no method of
    /// the entity's class runs.
    public var runsObjectHooks = true

    /// Where the context posts its notifications. Default `NotificationCenter.default`.
    public var notificationCenter = NotificationCenter.default

    /// The context's object lists (its registries, inserted objects, and the
    /// objects with changes), in one value: the only unchecked state of the
    /// context (see ``ManagedObject/_state``).
    #if !InternalChecks
    @exclusivity(unchecked)
    #endif
    final var _lists = _Lists()

    /// The fields of ``_lists``, each read through the property of its name.
    struct _Lists {
        var registries: [IdentityKey: EntityRegistry] = [:]
        var temporaries: ObjectTable = ObjectTable()
        var pending: [ManagedObject] = []
        var unprocessed: [ManagedObject] = []
    }

    /// Saved objects by entity, then primary key.
    final var registries: [IdentityKey: EntityRegistry] {
        @inline(__always) _read { yield _lists.registries }
        @inline(__always) _modify { yield &_lists.registries }
    }
    /// Inserted objects by temporary number (an ``ObjectTable``: its keys
    /// hash with one multiply, where `UInt64`'s SipHash runs per insert and
    /// again per removal at the save).
    final var temporaries: ObjectTable {
        @inline(__always) _read { yield _lists.temporaries }
        @inline(__always) _modify { yield &_lists.temporaries }
    }
    /// The next temporary ID number, until the context has a child.
    private var nextTemporaryNumber: UInt64 = 1
    /// Numbers for temporary IDs, shared by a context and its children so
    /// that an object inserted in a child keeps its ID in the parent; made
    /// with the first child (a context alone costs no allocation for it).
    private(set) var sharedTemporaryNumbers: TemporaryNumbers?
    /// The context a child context saves into (``newChildContext()``), or
    /// `nil` for a context that saves to the store.
    public let parent: ManagedObjectContext?
    /// Objects with changes, in the order they first changed (some may have
    /// no changes any more; ``compactPending()`` drops them).
    final var pending: [ManagedObject] {
        @inline(__always) _read { yield _lists.pending }
        @inline(__always) _modify { yield &_lists.pending }
    }
    /// The read transaction a fetch across sub-entities holds open for its
    /// parts (see ``withOneSnapshot(_:)``), else `nil`.
    var snapshot: (StoreTransaction)?
    /// Objects changed since the last objects-did-change notification.
    final var unprocessed: [ManagedObject] {
        @inline(__always) _read { yield _lists.unprocessed }
        @inline(__always) _modify { yield &_lists.unprocessed }
    }
    var isSaving = false
    /// Counts the saves that ran `willSave` passes, from 1 (an object's
    /// ``ManagedObject/willSaveNumber`` starts at 0: never called).
    var saveNumber: UInt32 = 0
    /// Mistakes made where nothing could throw (a typed relationship property
    /// given an object of another context, a deletion whose rules couldn't
    /// read the store): the next save throws the first of them.
    var deferredErrors: [any Error] = []
    /// Saves of other contexts, for ``automaticallyMergesChangesFromParent``
    /// (made when that is first turned on).
    var inbox: MergeInbox?
    var mergesAutomatically = false

    /// A context on `store`. Most code gets one from ``PersistentContainer/newContext()``.
    public init(store: PersistentStore) {
        self.store = store
        self.parent = nil
    }

    /// A child of `parent` (see ``newChildContext()``).
    init(parent: ManagedObjectContext) {
        self.store = parent.store
        self.parent = parent
        self.sharedTemporaryNumbers = parent.shareTemporaryNumbers()
        self.mergePolicy = parent.mergePolicy
        self.notificationCenter = parent.notificationCenter
    }

    deinit {
        for object in temporaries.values { object.leaveContext() }
        for registry in registries.values { registry.objects.detachAll() }
    }

    // MARK: Inserting and deleting

    /// Inserts a new object made with no context
    /// (`News(entity: entity, insertInto: nil)`); objects made with
    /// `News(context:)` are inserted already. ``ManagedObject/awakeFromInsert()`` runs.
    ///
    /// Inserting an object that is already inserted here does nothing. These
    /// are programming errors, and stop the program with a message: an
    /// object that is or was in a context (insert a new one), an entity of
    /// another model, an object whose class isn't its entity's.
    public func insert(_ object: ManagedObject) {
        if object.state == .inserted && object.context === self { return }
        guard object.state == .unregistered else {
            fatalError("insert(_:): \(object.objectID) is or was in a context; it can't be inserted again")
        }
        guard model.entities.contains(where: { $0 === object.entity }) else {
            fatalError("insert(_:): entity \(object.entity.name) of \(type(of: object)) is not part of this context's model")
        }
        guard Self.isKind(type(of: object), of: object.entity.managedObjectClass) else {
            fatalError("insert(_:): \(type(of: object)) is not a \(object.entity.managedObjectClass), the class of entity \(object.entity.name)")
        }
        guard !object.entity.isAbstract else {
            fatalError("insert(_:): entity \(object.entity.name) is abstract; insert an object of one of its sub-entities")
        }
        // A temporary number carries the entity's tag as a key does, so a
        // relationship to a superentity finds an inserted sub-entity's object.
        let number: UInt64
        if let shared = sharedTemporaryNumbers {
            number = shared.take()
        } else {
            number = nextTemporaryNumber
            nextTemporaryNumber += 1
        }
        object.objectID = ObjectID(temporary: number, of: object.entity)
        object.context = self
        object.state = .inserted
        // Values set before the insert are the object's own; what
        // awakeFromInsert sets is a default: an upsert's merge doesn't count
        // it as a change (see MergePolicy).
        let setBeforeInsert = object.changedAttributes
        if object.values.isEmpty { object.values = object.entity.newObjectValues() }
        object.isFullyDecoded = true
        temporaries[object.objectID.number] = object
        noteChange(object)
        if runsObjectHooks { object.awakeFromInsert() }
        object.changedAttributes = setBeforeInsert
    }

    /// The temporary numbers this context and its children share.
    func shareTemporaryNumbers() -> TemporaryNumbers {
        if let shared = sharedTemporaryNumbers { return shared }
        let shared = TemporaryNumbers(next: nextTemporaryNumber)
        sharedTemporaryNumbers = shared
        return shared
    }

    /// True when `type` is `base` or one of its subclasses.
    static func isKind(_ type: AnyClass, of base: AnyClass) -> Bool {
        var current: AnyClass? = type
        while let candidate = current {
            if candidate == base { return true }
            current = _getSuperclass(candidate)
        }
        return false
    }

    /// Inserts a new object of the entity called `name`: an instance of the
    /// entity's class, or a plain ``ManagedObject`` for an entity without one.
    ///
    /// - Throws: ``KuraError/unknownEntity(_:)``; ``KuraError/invalidModel(_:)``
    ///   for an abstract entity (``EntityDescription/isAbstract``).
    @discardableResult
    public func insertNewObject(forEntityName name: String) throws -> ManagedObject {
        let entity = try model.requireEntity(named: name)
        guard !entity.isAbstract else {
            throw KuraError.invalidModel("entity \(name) is abstract: insert an object of one of its sub-entities")
        }
        return entity.managedObjectClass.init(entity: entity, insertInto: self)
    }

    /// Marks `object` for deletion at the next save and calls its
    /// ``ManagedObject/prepareForDeletion()``. Deleting an object inserted
    /// since the last save just forgets it: it is never written, and appears
    /// in neither ``insertedObjects`` nor ``deletedObjects``.
    ///
    /// Deleting an object again, or one that left its context (its deletion
    /// saved, its insertion rolled back, the context reset), does nothing,
    /// as in Core Data. Deleting an object of *another* context is a
    /// programming error and stops the program with a message saying so;
    /// fetch the object in this context with ``object(with:)`` first.
    public func delete(_ object: ManagedObject) {
        if object.context !== self {
            guard object.managedObjectContext == nil else {
                fatalError("delete(_:): \(object.objectID) belongs to another context; "
                    + "delete it there, or get this context's instance with object(with:)")
            }
            return  // not in a context any more, or never inserted: nothing to delete
        }
        switch object.state {
        case .inserted:
            object.prepareForDeletion()
            applyDeleteRules(of: object)
            object.state = .detached
            temporaries[object.objectID.number] = nil
            object.context = nil
        case .persisted:
            object.state = .deleted
            noteChange(object)
            object.prepareForDeletion()
            applyDeleteRules(of: object)
        case .deleted, .unregistered, .removed, .detached:
            break  // deleted already, or not in this context
        }
    }

    /// What deleting `object` does to the objects it is related to: each
    /// relationship's delete rule (cascade deletes them, nullify takes
    /// `object` out of their inverse; deny is checked at save, no action does
    /// nothing), and relationships without an inverse that point to it are
    /// cleared. A store error here (reading members) is thrown by the next save.
    private func applyDeleteRules(of object: ManagedObject) {
        guard !object.entity.links.isEmpty || model.linksWithoutInverseTo[IdentityKey(object.entity)] != nil else { return }
        do {
            for link in object.entity.links {
                let related = link.isToMany ? try object.members(link) : (try object.destination(link)).map { [$0] } ?? []
                switch link.description.deleteRule {
                case .cascade:
                    for destination in related where destination.state == .persisted || destination.state == .inserted {
                        delete(destination)
                    }
                case .nullify:
                    guard let inverse = link.inverse else { continue }
                    for destination in related where destination.state != .removed && destination.state != .detached {
                        try destination.primitiveDetach(object, via: inverse)
                    }
                case .deny, .noAction:
                    continue
                }
            }
            for link in model.linksWithoutInverseTo[IdentityKey(object.entity)] ?? [] {
                for source in try sources(pointingTo: object, through: link) {
                    try source.primitiveDetach(object, via: link)
                }
            }
        } catch {
            deferredErrors.append(error)
        }
    }

    /// The objects whose relationship `link` (which has no inverse) points
    /// to `object`: stored ones, found through the relationship's index, and
    /// changed ones of this context.
    private func sources(pointingTo object: ManagedObject, through link: RelationshipLink) throws -> [ManagedObject] {
        var sources: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        if !object.objectID.isTemporaryID {
            let keys: [UInt64] = try store.read { txn in
                try store.storage(of: link).sourceKeys(
                    pointingTo: [object.objectID.number], cap: .max, store: store, in: txn) ?? []
            }
            for key in keys {
                let source = self.object(of: link.source, primaryKey: key)
                if seen.insert(ObjectIdentifier(source)).inserted { sources.append(source) }
            }
        }
        for candidate in pending where candidate.entity.isKind(of: link.source) && !seen.contains(ObjectIdentifier(candidate)) {
            let points = link.isToMany
                ? try candidate.members(link).contains { $0 === object }
                : try candidate.destination(link) === object
            if points { sources.append(candidate) }
        }
        return sources
    }

    // MARK: Changes

    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> {
        Set(pending.lazy.filter(\.isInserted))
    }

    /// Saved objects with changed attributes.
    public var updatedObjects: Set<ManagedObject> {
        Set(pending.lazy.filter(\.isUpdated))
    }

    /// Saved objects that the next save deletes.
    public var deletedObjects: Set<ManagedObject> {
        Set(pending.lazy.filter(\.isDeleted))
    }

    /// True when the next ``save()`` would write anything.
    public var hasChanges: Bool {
        pending.contains { $0.hasChanges }
    }

    /// Every object the context holds: saved ones it fetched or resolved,
    /// and inserted ones.
    public var registeredObjects: Set<ManagedObject> {
        var objects = Set(temporaries.values)
        for registry in registries.values { objects.formUnion(registry.objects.values) }
        return objects
    }

    /// Records that `object` changed, for the pending list and the next
    /// objects-did-change notification.
    func noteChange(_ object: ManagedObject) {
        if !object.isInPendingList {
            object.isInPendingList = true
            pending.append(object)
        }
        if !object.isInUnprocessedList {
            object.isInUnprocessedList = true
            unprocessed.append(object)
        }
    }

    /// Drops objects without changes from the pending list.
    func compactPending() {
        pending.removeAll { object in
            guard !object.hasChanges else { return false }
            object.isInPendingList = false
            return true
        }
    }

    // MARK: Identity

    /// The registry of saved `entity` objects.
    func registry(for entity: EntityDescription) -> EntityRegistry {
        if let registry = registries[IdentityKey(entity)] { return registry }
        let registry = EntityRegistry()
        registries[IdentityKey(entity)] = registry
        return registry
    }

    /// The object with `objectID` if this context holds it, else `nil`.
    public func registeredObject(for objectID: ObjectID) -> ManagedObject? {
        if objectID.isTemporaryID, let inserted = temporaries[objectID.number] { return inserted }
        return registries[IdentityKey(objectID.entity)]?.objects[objectID.registryKey]
    }

    /// The object with `objectID`: the one this context holds, or a fault
    /// whose values load from the store when first read.
    ///
    /// Reading a typed attribute of a fault whose object no longer exists
    /// stops the program; use ``existingObject(with:)`` when the object may be gone.
    ///
    /// - Throws: ``KuraError/invalidObjectID(_:)`` for an ID of another model,
    ///   or a temporary ID this context doesn't know.
    public func object(with objectID: ObjectID) throws -> ManagedObject {
        let objectID = try adopt(objectID)
        if let registered = registeredObject(for: objectID) { return registered }
        if objectID.isTemporaryID && parent?.registeredObject(for: objectID) == nil {
            throw KuraError.invalidObjectID("\(objectID) is a temporary ID this context didn't make")
        }
        return object(of: objectID.entity, primaryKey: objectID.registryKey)
    }

    /// The object with `objectID`, its values loaded, or an error when the
    /// store doesn't have it.
    ///
    /// - Throws: ``KuraError/objectNotFound(_:)``; ``KuraError/invalidObjectID(_:)``.
    public func existingObject(with objectID: ObjectID) throws -> ManagedObject {
        let object = try object(with: objectID)
        let objectID = object.objectID
        do {
            try object.loadValues()
        } catch {
            if error.code == .objectNotFound, object.state == .persisted, object.values.isEmpty {
                // Don't keep a fault for an object that doesn't exist.
                registries[IdentityKey(objectID.entity)]?.objects[objectID.registryKey] = nil
                object.state = .detached
                object.leaveContext()
            }
            throw error
        }
        return object
    }

    /// The object with `objectID`, its values loaded, as an instance of
    /// `type` (`existingObject(with: id, as: Article.self)`): what a child
    /// context or another task does with an ID it was handed.
    ///
    /// - Throws: as ``existingObject(with:)``, and
    ///   ``KuraError/classMismatch(requested:entity:entityClass:)`` when the
    ///   ID's entity's objects are not `T`s.
    public func existingObject<T: ManagedObject>(with objectID: ObjectID, as type: T.Type) throws -> T {
        let entity = objectID.entity
        guard let typed = try existingObject(with: objectID) as? T else {
            throw KuraError.classMismatch(requested: "\(T.self)", entity: entity.name, entityClass: "\(entity.managedObjectClass)")
        }
        return typed
    }

    /// The object with `objectID` as an instance of `type`, a fault until
    /// its values are read; see ``object(with:)``.
    ///
    /// - Throws: as ``object(with:)``, and ``KuraError/classMismatch(requested:entity:entityClass:)``.
    public func object<T: ManagedObject>(with objectID: ObjectID, as type: T.Type) throws -> T {
        let entity = objectID.entity
        guard let typed = try object(with: objectID) as? T else {
            throw KuraError.classMismatch(requested: "\(T.self)", entity: entity.name, entityClass: "\(entity.managedObjectClass)")
        }
        return typed
    }

    /// The registered object of `entity` with `primaryKey`, or a new fault.
    /// In a child context, the key of an object its parent inserted is its
    /// temporary number with ``ObjectID/temporaryKeyFlag`` set.
    func object(of entity: EntityDescription, primaryKey: UInt64) -> ManagedObject {
        // A relationship to a superentity holds its sub-entities' keys.
        let entity = entity.concreteEntity(forKey: primaryKey)
        let registry = registry(for: entity)
        if let registered = registry.objects[primaryKey] { return registered }
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        object.objectID = ObjectID(entity: entity, registryKey: primaryKey)
        object.context = self
        object.state = .persisted
        registry.objects[primaryKey] = object
        return object
    }

    /// Runs `body` in a read transaction of the store, its errors as ``KuraError``.
    func readStore<Result>(_ body: (StoreTransaction) throws -> Result) throws(KuraError) -> Result {
        do {
            return try store.read { txn in try body(txn) }
        } catch let error as KuraError {
            throw error
        } catch {
            throw KuraError.storage(path: store.path, failure: .system(errno: 0, message: "\(error)"))
        }
    }

    /// The stored members' keys of the to-many `link` of the object `owner`.
    func memberKeys(of link: RelationshipLink, owner: UInt64) throws(KuraError) -> [UInt64] {
        if let parent { return try parent.currentMemberKeys(of: link, owner: ObjectID(entity: link.source, registryKey: owner)) }
        return try readStore { txn in try store.memberKeys(of: link, owner: owner, in: txn) }
    }

    /// How many stored members the to-many `link` of the object `owner` has.
    func memberCount(of link: RelationshipLink, owner: UInt64) throws(KuraError) -> Int {
        if let parent { return try parent.currentMemberKeys(of: link, owner: ObjectID(entity: link.source, registryKey: owner)).count }
        return try readStore { txn in
            var count = 0
            try store.forEachMemberKey(of: link, owner: owner, in: txn) { _ in
                count += 1
                return true
            }
            return count
        }
    }

    /// `objectID` with this model's entity. An ID made with another model
    /// instance of the same schema (the store reopened) names the same object.
    private func adopt(_ objectID: ObjectID) throws -> ObjectID {
        guard let entity = model.entity(named: objectID.entity.name) else {
            throw KuraError.invalidObjectID("\(objectID) names an entity that is not in this model")
        }
        if entity === objectID.entity { return objectID }
        guard entity.hasSameSchema(as: objectID.entity), !objectID.isTemporaryID else {
            throw KuraError.invalidObjectID("\(objectID) belongs to another model")
        }
        return ObjectID(entity: entity, number: objectID.number, isTemporaryID: false)
    }

    /// Reads a fault's record. Runs ``ManagedObject/awakeFromFetch()`` after.
    func loadRecord(of object: ManagedObject) throws(KuraError) -> [UInt8] {
        if let parent { return try parent.currentRecord(of: object.objectID) }
        let record = try readStore { txn in try store.record(of: object.objectID, in: txn) }
        guard let record else { throw KuraError.objectNotFound(object.objectID) }
        return record
    }

    /// The registered object for a stored record read by a fetch, made (and
    /// awoken) if the context doesn't hold it yet. A registered object keeps
    /// its values and changes; a registered fault gets the record.
    func registeredObject(
        for entity: EntityDescription, primaryKey: UInt64, record: UnsafeRawBufferPointer, in registry: EntityRegistry
    ) -> ManagedObject {
        if let existing = registry.objects[primaryKey] {
            if existing.isFault {
                existing.record = Array(record)
                existing.withoutTrackingChanges { existing.awakeFromFetch() }
            }
            return existing
        }
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        object.objectID = ObjectID(entity: entity, number: primaryKey, isTemporaryID: false)
        object.context = self
        object.state = .persisted
        object.record = Array(record)
        registry.objects[primaryKey] = object
        object.withoutTrackingChanges { object.awakeFromFetch() }
        return object
    }
}

/// The saved objects of one entity that a context holds, by primary key.
final class EntityRegistry {
    /// Unchecked for the same reason as ``ManagedObject``'s state: the
    /// context's isolation domain is the only one that touches it.
    #if !InternalChecks
    @exclusivity(unchecked)
    #endif
    var objects = ObjectTable()
}
