/// An object of an entity, living in a ``ManagedObjectContext``.
///
/// Subclass it and declare attributes with ``Attribute``; the subclass needs
/// no initializer of its own:
///
/// ```swift
/// final class News: ManagedObject {
///     @Attribute(.unique) var objectId: String = ""
///     @Attribute var title: String = ""
///     @Attribute var dateCreated: Date?
///     @Attribute var dateUpdated: Date?
///
///     override func awakeFromInsert() {
///         super.awakeFromInsert()
///         objectId = UUID().uuidString
///         dateCreated = Date()
///     }
///
///     override func willSave() {
///         super.willSave()
///         if !isDeleted { dateUpdated = Date() }   // joins this save; no loop
///     }
/// }
///
/// let news = News(context: context)
/// news.title = "Kura ships"
/// try context.save()
/// ```
///
/// An entity without a Swift class works the same through the dynamic API,
/// ``value(forKey:)`` and ``setValue(_:forKey:)-(AttributeValue?,_)``.
///
/// Objects are not `Sendable`: each belongs to one context, used in one
/// isolation domain. Pass ``objectID`` to other contexts instead.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// Where an object is in its life.
    enum State {
        /// Made with no context; not yet inserted.
        case unregistered
        /// Inserted and not yet saved.
        case inserted
        /// In the store (its values may not be loaded yet: a fault).
        case persisted
        /// In the store, and deleted in its context; the next save removes it.
        case deleted
        /// Its deletion was saved.
        case removed
        /// No longer in a context: its insertion was rolled back, or the
        /// context was reset.
        case detached
    }

    /// The object's entity.
    public let entity: EntityDescription
    /// The object's identity; temporary until its first save.
    #if !InternalChecks
    @exclusivity(unchecked)
    #endif
    public internal(set) var objectID: ObjectID

    // The per-object state is one value, `_state`, the only stored
    // property here marked `@exclusivity(unchecked)` (besides `objectID`,
    // which other modules read as a stored property): its fields are read
    // and written on every attribute access, and the runtime's dynamic
    // exclusivity check costs more than the access. An object is confined
    // to its context's isolation domain, and Kura's own code never holds an
    // access to its state across a call that could touch it again. The
    // internal-checks build (`--traits InternalChecks`, run by
    // Scripts/test-postgres) leaves the attribute out, so the runtime checks
    // that claim on every suite it runs, and the context reference is a
    // checked `unowned` one there (``_UnownedReference``).

    /// The object's state: every field below, in one value.
    #if !InternalChecks
    @exclusivity(unchecked)
    #endif
    final var _state = _State()

    /// The fields of ``_state``, each read through the property of its name.
    struct _State {
        var context: _UnownedReference<ManagedObjectContext>?
        var state: State = .unregistered
        var record: [UInt8]?
        var values: ContiguousArray<AttributeValue?> = ContiguousArray<AttributeValue?>()
        var decodedAttributes: AttributeMask = AttributeMask()
        var isFullyDecoded: Bool = false
        var changedAttributes: AttributeMask = AttributeMask()
        var relationshipStates: RelationshipStates = RelationshipStates.empty
        var changedRelationships: AttributeMask = AttributeMask()
        var isTrackingChanges: Bool = true
        var isInPendingList: Bool = false
        var isInUnprocessedList: Bool = false
        var hasUntrackedValues: Bool = false
        var willSaveNumber: UInt32 = 0
        var propertyProbe: PropertyProbe?
    }

    /// The context, while the object is in one. Held without a reference
    /// count (an ``_UnownedReference``: `Unmanaged`, checked in the
    /// internal-checks build)
    /// because a weak reference costs two atomic operations per object made
    /// and one per read: safe here because a context holds every object
    /// whose `context` is set (in its registries), and clears the field of
    /// every one of them when it lets go of the object or goes away itself.
    final var context: ManagedObjectContext? {
        @inline(__always) get { _state.context?.object }
        @inline(__always) set { _state.context = newValue.map(_UnownedReference.init) }
    }

    /// Takes the object out of its context (which detaches, resets, rolls
    /// back or goes away) and lets go of the objects its relationships
    /// held: an object and its inverse hold each other, so kept they would
    /// never be freed, nor their entities and model. Its relationships then
    /// read as a detached object's: `nil` or no members from typed
    /// properties, ``KuraError/objectDetached(_:)`` by name.
    final func leaveContext() {
        context = nil
        // (Most objects never used a relationship: theirs are the shared empty states already.)
        if !relationshipStates.isEmpty { relationshipStates = .empty }
    }

    /// Whether the object is in a context (no retain to know it).
    @inline(__always) var hasContext: Bool { _state.context != nil }

    /// Calls `body` with the context, if any, without retaining it for the
    /// call: a property set does this once per set.
    @inline(__always)
    func withContext(_ body: (ManagedObjectContext) -> Void) {
        _state.context?.withObject(body)
    }
    final var state: State {
        @inline(__always) _read { yield _state.state }
        @inline(__always) _modify { yield &_state.state }
    }
    /// The stored record as last read or saved: the committed values. `nil`
    /// for an inserted object, or a fault whose record isn't loaded.
    final var record: [UInt8]? {
        @inline(__always) _read { yield _state.record }
        @inline(__always) _modify { yield &_state.record }
    }
    /// The current values, one per attribute; empty until first needed.
    /// Values decode from the record one at a time, as they are read:
    /// `decodedAttributes` says which are there, unless `isFullyDecoded`.
    final var values: ContiguousArray<AttributeValue?> {
        @inline(__always) _read { yield _state.values }
        @inline(__always) _modify { yield &_state.values }
    }
    final var decodedAttributes: AttributeMask {
        @inline(__always) _read { yield _state.decodedAttributes }
        @inline(__always) _modify { yield &_state.decodedAttributes }
    }
    final var isFullyDecoded: Bool {
        @inline(__always) _read { yield _state.isFullyDecoded }
        @inline(__always) _modify { yield &_state.isFullyDecoded }
    }
    /// Attributes whose current value differs from the committed one.
    final var changedAttributes: AttributeMask {
        @inline(__always) _read { yield _state.changedAttributes }
        @inline(__always) _modify { yield &_state.changedAttributes }
    }
    /// What the object knows of each relationship; empty until first needed.
    final var relationshipStates: RelationshipStates {
        @inline(__always) _read { yield _state.relationshipStates }
        @inline(__always) _modify { yield &_state.relationshipStates }
    }
    /// Relationships whose current destinations differ from the stored ones.
    final var changedRelationships: AttributeMask {
        @inline(__always) _read { yield _state.changedRelationships }
        @inline(__always) _modify { yield &_state.changedRelationships }
    }
    /// False inside ``awakeFromFetch()``: values set there are not changes.
    final var isTrackingChanges: Bool {
        @inline(__always) _read { yield _state.isTrackingChanges }
        @inline(__always) _modify { yield &_state.isTrackingChanges }
    }
    /// True while the object is in its context's list of changed objects.
    final var isInPendingList: Bool {
        @inline(__always) _read { yield _state.isInPendingList }
        @inline(__always) _modify { yield &_state.isInPendingList }
    }
    /// True while the object is in its context's list of changes not yet
    /// announced by ``ManagedObjectContext/processPendingChanges()``.
    final var isInUnprocessedList: Bool {
        @inline(__always) _read { yield _state.isInUnprocessedList }
        @inline(__always) _modify { yield &_state.isInUnprocessedList }
    }
    /// Whether a value was set without tracking (in `awakeFromFetch`) since
    /// the record was last written: then ``changedAttributes`` doesn't say
    /// every way the values differ from the record.
    final var hasUntrackedValues: Bool {
        @inline(__always) _read { yield _state.hasUntrackedValues }
        @inline(__always) _modify { yield &_state.hasUntrackedValues }
    }
    /// The context's ``ManagedObjectContext/saveNumber`` of the save whose
    /// `willSave` passes last called ``willSave()`` on it (a number, not a
    /// flag: no pass clears it after a save).
    final var willSaveNumber: UInt32 {
        @inline(__always) _read { yield _state.willSaveNumber }
        @inline(__always) _modify { yield &_state.willSaveNumber }
    }
    /// Set only on the probe objects that find a key path's properties:
    /// where their typed accessors note the names they read.
    final var propertyProbe: PropertyProbe? {
        @inline(__always) _read { yield _state.propertyProbe }
        @inline(__always) _modify { yield &_state.propertyProbe }
    }

    /// Makes an object of `entity`, inserted into `context` when one is given
    /// (``awakeFromInsert()`` runs then).
    ///
    /// Override this only to set up non-attribute state: attributes can't be
    /// read or written here (the same initializer makes fetched objects).
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.entity = entity
        self.objectID = ObjectID(temporary: 0, of: entity)
        if let context {
            context.insert(self)
        }
    }

    /// Makes a new object of this class's entity in `context`.
    ///
    /// Stops the program with a message when the class is not an entity of
    /// the context's model (a programming error); to handle that as an error,
    /// use ``ManagedObjectContext/insertNewObject(forEntityName:)``.
    public convenience init(context: ManagedObjectContext) {
        guard let entity = context.model.entity(for: Self.self) else {
            fatalError("\(Self.self) is not an entity of the context's model; add it to ManagedObjectModel(...)")
        }
        self.init(entity: entity, insertInto: context)
    }

    /// The entity name a subclass's entity gets. Defaults to the class's name.
    open class var entityName: String {
        String(describing: self)
    }

    /// The entity's name in an earlier model version (Core Data's
    /// `renamingIdentifier`): a store holding an entity of that name keeps
    /// its objects under this class's ``entityName``.
    open class var renamingIdentifier: String? {
        nil
    }

    /// Earlier names of the subclass's properties, by current name: a
    /// migration renames the stored attribute or relationship to the current
    /// one and keeps its values.
    ///
    /// ```swift
    /// final class News: ManagedObject {
    ///     @Attribute var title: String = ""   // was `headline`
    ///     override class var propertyRenamingIdentifiers: [String: String] { ["title": "headline"] }
    /// }
    /// ```
    ///
    /// Declared on the class rather than on `@Attribute` because every
    /// object holds its property wrappers: a name there would cost memory in
    /// each object.
    open class var propertyRenamingIdentifiers: [String: String] {
        [:]
    }

    /// The entity the subclass's entity is a sub-entity of: by default its
    /// superclass's entity, when the superclass is a `ManagedObject`
    /// subclass (`class Video: Media` makes Video a sub-entity of Media,
    /// as SwiftData does). A model without the superclass's entity makes
    /// the entity a root with the inherited properties its own. Override it
    /// to return `nil` to keep a subclass a separate entity (as a store
    /// written before Kura had inheritance holds it: an entity can't become
    /// a sub-entity in place, its keys don't carry a sub-entity's tag).
    open class var superentityName: String? {
        EntityDescription.inferredSuperentityName(of: self)
    }

    /// True for an entity with no objects of its own, only its
    /// sub-entities' (Core Data's abstract entities): override it to return
    /// `true`. Inserting an object of an abstract entity is an error.
    ///
    /// The override makes the class that declares it abstract, not its
    /// subclasses (Swift hands them the override; Kura reads a class as
    /// abstract when it answers true and its superclass doesn't). An
    /// abstract entity under another abstract one is made with
    /// ``EntityDescription/init(name:superentity:isAbstract:attributes:relationships:indexes:managedObjectClass:renamingIdentifier:)``.
    open class var isAbstract: Bool {
        false
    }

    /// Indexes of the subclass's entity beyond those its attributes declare
    /// with `.indexed` and `.unique`: compound ones, or ones with a name.
    open class var indexes: [IndexDescription] {
        []
    }

    /// The context the object belongs to, or `nil` once it left it.
    public var managedObjectContext: ManagedObjectContext? {
        switch state {
        case .inserted, .persisted, .deleted: context
        case .unregistered, .removed, .detached: nil
        }
    }

    /// True when the object was inserted and not yet saved.
    public var isInserted: Bool { state == .inserted }

    /// True when the object will be removed from the store at the next save.
    public var isDeleted: Bool { state == .deleted }

    /// True when a saved object has attributes or relationships that differ
    /// from the stored ones.
    public var isUpdated: Bool { state == .persisted && !(changedAttributes.isEmpty && changedRelationships.isEmpty) }

    /// True when the next save would write this object.
    public var hasChanges: Bool { isInserted || isDeleted || isUpdated }

    /// True when the object's values have not been loaded from the store yet;
    /// reading any attribute loads them.
    public var isFault: Bool {
        (state == .persisted || state == .deleted) && record == nil && values.isEmpty
    }

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    // MARK: Lifecycle hooks (empty by default; call super when overriding)

    /// Called once, when the object is inserted into a context, after its
    /// attributes got their initial values. What it sets are the new object's
    /// starting values (not changes to report). Set a new `UUID`, the
    /// creation date, and the like here.
    open func awakeFromInsert() {}

    /// Called each time the object's values are loaded from the store: when a
    /// fetch or ``ManagedObjectContext/object(with:)`` first brings it into
    /// the context, and again after ``ManagedObjectContext/refresh(_:mergeChanges:)``.
    /// Change tracking is off inside it: values set here are not changes (they
    /// are written only if the object is saved for another reason).
    open func awakeFromFetch() {}

    /// Called once per save for each object the save writes, deletions
    /// included (check ``isDeleted``), before validation.
    ///
    /// Unlike Core Data, setting attributes here is safe: the change joins the
    /// same save, and this method is not called again for it. An object first
    /// changed inside another object's `willSave` gets its own call in the
    /// same save; if that keeps going for more than
    /// ``ManagedObjectContext/maximumWillSavePasses`` rounds, the save throws
    /// ``KuraError/willSaveDidNotSettle(passes:objectIDs:)`` and writes nothing.
    open func willSave() {}

    /// Called after the save that wrote the object committed. The object's
    /// ``objectID`` is permanent by then; a deleted object has left its context.
    open func didSave() {}

    /// Called when the object is deleted from its context with
    /// ``ManagedObjectContext/delete(_:)``, before the deletion is saved.
    open func prepareForDeletion() {}

    /// Checks the object before a save inserts it. By default, that every
    /// non-optional attribute has a value, every required to-one a
    /// destination, and every to-many its minimum to maximum count of
    /// members. Throw ``ValidationFailure`` or
    /// ``KuraError/validationFailed(_:)``; the save collects the failures of
    /// every object into one ``KuraError/validationFailed(_:)`` and writes nothing.
    open func validateForInsert() throws {
        try validateProperties()
    }

    /// Checks the object before a save updates it; see ``validateForInsert()``.
    /// By default only what changed is checked.
    open func validateForUpdate() throws {
        try validateProperties()
    }

    /// Checks the object before a save deletes it. By default, that no
    /// relationship with the `deny` delete rule still points to an object
    /// (``validateDenyRules()``).
    open func validateForDelete() throws {
        try validateDenyRules()
    }

    /// `News kura://News/42 {title: Kura ships, …}`; a fault shows as such.
    open var description: String {
        guard !isFault else { return "\(entity.name) \(objectID) (fault)" }
        let shown = entity.attributes.indices.map { number in
            "\(entity.attributes[number].name): \(peekValue(number).map { "\($0)" } ?? "nil")"
        }
        return "\(entity.name) \(objectID) {\(shown.joined(separator: ", "))}"
    }
}
