/// What a save does when the store no longer holds what the context read:
/// Core Data's merge policies, by their names and meanings.
///
/// Two kinds of conflict meet a policy, and both are settled inside the
/// save's write transaction, so they hold across contexts and processes on
/// every engine:
///
/// - **An object changed or deleted elsewhere** since this context read it.
///   Each stored record carries a row version; the context remembers the
///   one it read and the store compares at save.
/// - **An inserted object whose unique values are already stored** (or
///   belong to an object inserted earlier in the same save): an *upsert*.
///   With every policy but ``error``, the insert becomes an update of the
///   stored object, whose ID and primary key stay; see
///   ``ManagedObjectContext/save()`` for what happens to the inserted object.
///
/// "The object's changes" are the attributes and to-ones the context
/// changed since it read the object; for an inserted object, those it set
/// after ``ManagedObject/awakeFromInsert()`` (what `awakeFromInsert` sets is
/// a default, not a change, so an upsert doesn't clobber the stored
/// `dateCreated` with a new one), including what `willSave` set. "The
/// store's changes" are the attributes and to-ones whose stored values
/// differ from what the context read; for an upsert, every stored property.
///
/// | Policy | Attributes and to-ones | Members added and removed (to-many) |
/// |---|---|---|
/// | ``error`` | the save throws, nothing written | — |
/// | ``rollback`` | the stored object, whole | the object's dropped |
/// | ``overwrite`` | the object's values, whole | kept |
/// | ``mergeByPropertyStoreTrump`` | stored, with the object's changes the store didn't make | kept |
/// | ``mergeByPropertyObjectTrump`` | stored, with all the object's changes on top | kept |
///
/// To-many memberships merge member by member under every policy but
/// ``rollback``: both sides' additions and removals stand. An ordered
/// to-many's order is written whole by the save that changes it.
///
/// After the save, an object whose stored values became something other
/// than its own (a merge or a rollback) is refreshed: it reads the values
/// as stored, with no changes left.
///
/// An update of an object deleted elsewhere: ``rollback`` and
/// ``mergeByPropertyStoreTrump`` let the deletion stand (the object leaves
/// the context after the save, its changes dropped); ``error``,
/// ``overwrite`` and ``mergeByPropertyObjectTrump`` throw
/// ``KuraError/conflict(objectIDs:)``, since there is no stored object to
/// write to. A deletion of an object changed elsewhere goes ahead under
/// every policy but ``error``.
public enum MergePolicy: Sendable, Hashable, CaseIterable {
    /// The save throws ``KuraError/conflict(objectIDs:)``, listing every
    /// object another context or process changed or deleted since this
    /// context read it, and writes nothing; an insert whose unique values are
    /// taken throws
    /// ``KuraError/uniqueConstraintViolated(entity:index:values:objectID:)``.
    /// Refresh those objects (``ManagedObjectContext/refresh(_:mergeChanges:)``)
    /// and save again. Core Data's default (`NSErrorMergePolicy`), and Kura's.
    case error
    /// The store wins, whole: a conflicting object's changes are dropped and
    /// it reads the stored values after the save; an insert whose unique
    /// values are stored leaves the stored object as it is
    /// (`NSRollbackMergePolicy`).
    case rollback
    /// The object wins, whole: its values replace the stored ones whatever
    /// changed them, last writer wins by choice; an insert whose unique
    /// values are stored replaces the stored object's values with its own
    /// (`NSOverwriteMergePolicy`).
    case overwrite
    /// Property by property, the store's changes win: the object's changes
    /// are written only where the store didn't change the property since
    /// the context read it. For an insert whose unique values are stored,
    /// every stored value stays: insert-if-absent
    /// (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrump
    /// Property by property, the object's changes win: each property the
    /// object changed is written, every other keeps its stored value
    /// (another context's change included). For an insert whose unique
    /// values are stored, the inserted object's changes update the stored
    /// object: an upsert (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrump
}
