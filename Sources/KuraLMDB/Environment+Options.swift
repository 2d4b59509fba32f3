import CLMDB

extension Environment {
    /// How an environment is opened: its map sizes, limits, and durability.
    ///
    /// ```swift
    /// var options = Environment.Options()
    /// options.mapSize = 1 << 20            // start with a 1 MiB map
    /// options.maxMapSize = 1 << 30         // never grow past 1 GiB
    /// options.flags = [.noMetaSync]        // faster commits, see the flag's risk
    /// let environment = try Environment(path: "data.lmdb", options: options)
    /// ```
    public struct Options: Sendable, Hashable {
        /// The size of the memory map to start with, in bytes. Default 64 MiB.
        ///
        /// The file on disk only holds the pages in use, so a large map costs
        /// address space, not disk. A write that needs more room than the map
        /// has grows it by doubling, up to ``maxMapSize``.
        public var mapSize: Int = 64 << 20

        /// The largest the map may grow to, in bytes. Default 64 GiB.
        ///
        /// A write that would need more throws ``LMDBError/mapFull`` and writes nothing.
        public var maxMapSize: Int = 64 << 30

        /// How many named databases the environment can hold. Default 128.
        public var maxDatabases: Int = 128

        /// How many read transactions may be open at once across every process
        /// using the file. Default 126 (LMDB's default).
        public var maxReaders: Int = 126

        /// Read-only access and durability trade-offs.
        public var flags: Flags = []

        /// The permissions of a newly created file. Default `0o644`.
        public var fileMode: UInt32 = 0o644

        /// Options with every default.
        public init() {}

        /// Options with the given values; the rest keep their defaults.
        public init(
            mapSize: Int = 64 << 20,
            maxMapSize: Int = 64 << 30,
            maxDatabases: Int = 128,
            maxReaders: Int = 126,
            flags: Flags = []
        ) {
            self.mapSize = mapSize
            self.maxMapSize = maxMapSize
            self.maxDatabases = maxDatabases
            self.maxReaders = maxReaders
            self.flags = flags
        }
    }

    /// Flags that change how an environment is opened. Each durability flag
    /// trades safety for speed; its documentation says what it risks.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// Open for reading only (`MDB_RDONLY`). Writes throw
        /// ``EnvironmentError/readOnly(path:)``; the file is never changed, and
        /// readers never block a writer in another process.
        public static let readOnly = Flags(rawValue: UInt32(MDB_RDONLY))

        /// Don't flush to disk on commit (`MDB_NOSYNC`).
        ///
        /// **Risk:** a system crash (power loss, kernel panic; not a process
        /// crash) can lose the last transactions, and, on file systems that
        /// reorder writes, corrupt the file. Call ``Environment/sync(force:)``
        /// at points that must be durable.
        public static let noSync = Flags(rawValue: UInt32(MDB_NOSYNC))

        /// Flush data on commit but not the meta page (`MDB_NOMETASYNC`).
        ///
        /// **Risk:** a system crash can lose the last transaction, but keeps the
        /// file consistent (ACI without D for that one commit).
        public static let noMetaSync = Flags(rawValue: UInt32(MDB_NOMETASYNC))

        /// Turn off the operating system's read-ahead (`MDB_NORDAHEAD`). Helps
        /// random reads of a store larger than memory; hurts sequential scans.
        /// No durability risk.
        public static let noReadAhead = Flags(rawValue: UInt32(MDB_NORDAHEAD))

        /// Don't use the lock file at all (`MDB_NOLOCK`): no reader table, no
        /// writer lock. Only for a read-only environment that nothing writes
        /// while it is open, such as a store in a directory no one can write
        /// (where LMDB could not make its lock file).
        ///
        /// **Risk:** a writer in another process would not know of this
        /// process's readers and could reuse pages they are reading.
        public static let noLock = Flags(rawValue: UInt32(MDB_NOLOCK))
    }
}
