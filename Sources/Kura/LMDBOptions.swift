import KuraCore

/// How the LMDB engine opens a store file: its map, its readers, what a
/// commit waits for. Set them on a `StoreOptions` (`options.lmdb`), or
/// through the shorthand properties below (`options.maximumSize`).
///
/// ```swift
/// var options = StoreOptions()
/// options.lmdb.maximumSize = 1 << 30       // 1 GiB at most
/// options.lmdb.durability = .noMetaSync    // faster commits; see the case's risk
/// ```
public struct LMDBOptions: EngineOptions {
    /// The memory map to start with, in bytes (default 64 MiB). The file only
    /// holds what is used; the map doubles when a save needs more room.
    public var initialSize = 64 << 20
    /// The largest the store may grow, in bytes (default 64 GiB). A save that
    /// would need more throws `KuraError.storeFull(maximumBytes:)` and writes nothing.
    public var maximumSize = 64 << 30
    /// How many processes' and threads' read transactions may be open at once.
    public var maxReaders = 126
    /// For a read-only store in a directory this user can't write, and where
    /// no lock file exists: read it without LMDB's lock file instead of
    /// failing with `StorageFailure.permissionDenied(_:)`. Default false;
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

    /// The defaults: 64 MiB growing to 64 GiB, 126 readers, full durability.
    public init() {}
}

extension StoreOptions {
    /// The LMDB engine's options.
    public var lmdb: LMDBOptions {
        get { self[engine: LMDBOptions.self] }
        set { self[engine: LMDBOptions.self] = newValue }
    }

    /// What a commit waits for (`LMDBOptions/Durability`).
    public typealias Durability = LMDBOptions.Durability

    /// `LMDBOptions/initialSize` of `lmdb`.
    public var initialSize: Int {
        get { lmdb.initialSize }
        set { lmdb.initialSize = newValue }
    }

    /// `LMDBOptions/maximumSize` of `lmdb`.
    public var maximumSize: Int {
        get { lmdb.maximumSize }
        set { lmdb.maximumSize = newValue }
    }

    /// `LMDBOptions/maxReaders` of `lmdb`.
    public var maxReaders: Int {
        get { lmdb.maxReaders }
        set { lmdb.maxReaders = newValue }
    }

    /// `LMDBOptions/allowsReadingWithoutLock` of `lmdb`.
    public var allowsReadingWithoutLock: Bool {
        get { lmdb.allowsReadingWithoutLock }
        set { lmdb.allowsReadingWithoutLock = newValue }
    }

    /// `LMDBOptions/durability` of `lmdb`.
    public var durability: Durability {
        get { lmdb.durability }
        set { lmdb.durability = newValue }
    }
}
