/// How a store is opened.
///
/// ```swift
/// var options = StoreOptions()
/// options.maximumSize = 1 << 30           // 1 GiB at most
/// options.durability = .noMetaSync        // faster commits; see the case's risk
/// let container = try PersistentContainer(path: "news.kura", model: model, options: options)
/// ```
public struct StoreOptions: Sendable, Hashable {
    /// Open without writing: saves throw ``KuraError/storeReadOnly(path:)``,
    /// the file never changes, and the store's writer is never blocked.
    public var isReadOnly = false
    /// The memory map to start with, in bytes (default 64 MiB). The file only
    /// holds what is used; the map doubles when a save needs more room.
    public var initialSize = 64 << 20
    /// The largest the store may grow, in bytes (default 64 GiB). A save that
    /// would need more throws ``KuraError/storeFull(maximumBytes:)`` and writes nothing.
    public var maximumSize = 64 << 30
    /// How many processes' and threads' read transactions may be open at once.
    public var maxReaders = 126
    /// For a read-only store in a directory this user can't write, and where
    /// no lock file exists: read it without LMDB's lock file instead of
    /// failing with ``StorageFailure/permissionDenied(_:)``. Default false;
    /// `kura` turns it on.
    ///
    /// LMDB must create a lock file beside the store even to read it. When
    /// none exists, no process has the store open, and none can open it to
    /// write without creating one in that directory (which this user can't,
    /// but another user may). Reading without the lock is safe as long as no
    /// process writes the store meanwhile; a writer would not see this
    /// process's readers and could reuse the pages they read.
    public var allowsReadingWithoutLock = false
    /// What a commit waits for.
    public var durability = Durability.full
    /// Whether each save is recorded in the store's history, for other
    /// processes to read and merge (``PersistentStore/history(after:)``):
    /// Core Data's persistent history tracking. Off by default, as there;
    /// every process that saves should turn it on. Default `false`.
    public var tracksHistory = false

    /// When a save's data reaches the disk.
    public enum Durability: Sendable, Hashable {
        /// Every save is flushed before it returns (the default): a crash of
        /// the process or the system loses nothing that saved.
        case full
        /// The data is flushed, the meta page is not: a system crash (not a
        /// process crash) may lose the last save, never corrupt the file.
        case noMetaSync
        /// Nothing is flushed on save: a system crash may lose recent saves
        /// and, on some file systems, corrupt the store. A process crash loses
        /// nothing.
        case noSync
    }

    /// The defaults: read-write, 64 MiB growing to 64 GiB, 126 readers, full durability.
    public init() {}
}
