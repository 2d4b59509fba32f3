// What only some engines can do, each a protocol an engine adopts besides
// `StorageEngine`. The store asks for an ability with `as?` on the
// protocol (never on an engine's type), so an engine from another product
// gains `PersistentStore/backup(to:compacting:)` or
// `PersistentStore/statistics()` by adopting one; on an engine without
// it, the store's method throws `StorageFailure/notSupported(_:)` or, for
// `PersistentStore/check(problemLimit:)`, checks the objects alone.
//
// Kura's LMDB engine adopts all four; the memory engine reports statistics.

/// An engine whose pages can be checked in the file, below what it lends:
/// ``PersistentStore/check(problemLimit:)`` checks them before the objects.
public protocol StructureCheckingEngine: StorageEngine {
    /// Checks the structure of one snapshot's pages, then runs `body` in a
    /// read transaction on the same snapshot with what was found. `body`
    /// reads only the spaces ``StoreFileStructure/isIntact(space:)`` says
    /// are sound.
    func performStructureCheckedRead(
        problemLimit: Int, _ body: (any StorageTransaction, StoreFileStructure) throws -> Void
    ) throws
}

/// What a check of an engine's file found, below the objects.
public struct StoreFileStructure: Sendable {
    /// The size of a page, in bytes.
    public var pageSize: Int
    /// Every page of the snapshot checked.
    public var totalPages: Int
    /// Pages holding data.
    public var usedPages: Int
    /// Pages free for reuse.
    public var freePages: Int
    /// What is wrong with the file, one line each (at most the limit asked for).
    public var problems: [String]
    /// How many problems there are in all, listed or not.
    public var problemCount: Int
    /// Whether the table naming the spaces is sound.
    public var isSpaceTableIntact: Bool
    /// The spaces whose pages are sound.
    public var intactSpaces: Set<String>

    public init(pageSize: Int, totalPages: Int, usedPages: Int, freePages: Int, problems: [String], problemCount: Int,
                isSpaceTableIntact: Bool, intactSpaces: Set<String>) {
        self.pageSize = pageSize
        self.totalPages = totalPages
        self.usedPages = usedPages
        self.freePages = freePages
        self.problems = problems
        self.problemCount = problemCount
        self.isSpaceTableIntact = isSpaceTableIntact
        self.intactSpaces = intactSpaces
    }

    /// True when reading `space` can't meet a damaged page.
    public func isIntact(space: String) -> Bool {
        isSpaceTableIntact && intactSpaces.contains(space)
    }
}

/// An engine that can copy its store to a new file while readers and the
/// writer carry on: ``PersistentStore/backup(to:compacting:)``.
public protocol StoreCopyingEngine: StorageEngine {
    /// Writes a consistent copy of the store to a new file at `path`; with
    /// `compacting`, free pages are left out.
    func copyStore(to path: String, compacting: Bool) throws
}

/// An engine that can describe its store and spaces:
/// ``PersistentStore/statistics()``.
public protocol StatisticsReportingEngine: StorageEngine {
    /// The engine's figures, each space under its own name (kind `other`,
    /// ``StoreStatistics/Space/part`` the space's name): the store says
    /// which are records, indexes and relationships. An engine of pages
    /// adds ``StoreStatistics/pages`` and each space's ``StoreStatistics/Space/tree``.
    func storeStatistics() throws -> StoreStatistics
}

/// An engine that keeps a slot per reader (LMDB's lock file), which a
/// process that died holding a snapshot leaves taken.
public protocol ReaderSlotEngine: StorageEngine {
    /// True when the engine reads without its lock (see
    /// LMDB's `allowsReadingWithoutLock`).
    var isReadingWithoutLock: Bool { get }
    /// Clears the slots of processes that died, and returns how many.
    func clearStaleReaders() throws -> Int
}
