/// The storage seam: the ordered, transactional key-value store a Kura store
/// keeps its records, indexes, relationships, history and model in.
///
/// Everything above it (the model, contexts, change tracking, hooks,
/// predicates, the planner, and the store's record and index layout) is the
/// same on every engine; an engine only stores bytes under keys in named
/// spaces, in key order, in transactions that see one consistent snapshot.
/// Kura's own engine is LMDB (`StoreDescription.lmdb(path:options:)`, in the `Kura` module);
/// others live in products of their own, so that an app that uses only the
/// embedded store never builds their clients.
///
/// An engine is shared by every context of a container and used from many
/// threads at once: it must be `Sendable`, and a transaction it lends is used
/// only by the thread it was lent to, only until the closure returns.
public protocol StorageEngine: AnyObject, Sendable {
    /// Where the data is, for messages: a file path, a URL without its password.
    var location: String { get }
    /// True when the engine can't write.
    var isReadOnly: Bool { get }

    /// Runs `body` in a read transaction: one snapshot of every space, which
    /// writers never change. Errors are Kura's (``KuraError``).
    ///
    /// The requirements that take a closure return nothing, so that calling
    /// them through `any StorageEngine` makes no generic type at run time;
    /// ``read(_:)`` and its kin return what the closure returns.
    func performRead(_ body: (any StorageTransaction) throws -> Void) throws

    /// Runs `body` in the write transaction, committed when it returns and
    /// undone when it throws: all of it is written or none. `body` may run
    /// more than once (an engine retries after growing its file, for
    /// instance), so it only builds its result and changes nothing outside.
    /// - Throws: what `body` throws, ``KuraError/storeFull(maximumBytes:)``,
    ///   ``KuraError/storage(path:failure:)``.
    func performWrite(_ body: (any StorageTransaction) throws -> Void) throws

    /// Like ``performRead(_:)``, for a read that makes one request of the
    /// engine (one lookup): an engine that pays per request may skip the
    /// transaction around it, and runs `body` again in a whole read
    /// transaction if it makes a second one. `body` must only read.
    func performSingleRequestRead(_ body: (any StorageTransaction) throws -> Void) throws

    /// Like ``performRead(_:)``, after checking that the structure holding the
    /// spaces named `spaces` is sound, so that a damaged store is a clear
    /// error (``KuraError/corruptStore(path:reason:)``) before anything is
    /// decoded. Engines that can't be damaged under their client just read.
    func performCheckedRead(spaces: Set<String>, _ body: (any StorageTransaction) throws -> Void) throws

    /// Makes the engine ready to have the spaces of `model` open, and those
    /// of `other` beside them (a migration has both), before the store
    /// opens them. LMDB sizes its table of named databases here.
    func prepare(toOpen model: ManagedObjectModel, alongside other: ManagedObjectModel?) throws

    /// The space named `name`, or `nil` when there is none, outside any
    /// transaction.
    func space(named name: String) throws -> StorageSpace?

    /// An identifier of the newest committed write transaction, which grows
    /// with every commit by any process.
    func latestCommit() throws -> Int

    /// Calls `onCommit` with ``latestCommit()`` after commits of any
    /// process using the store, this one included, on a thread of the
    /// engine's, until the returned watch stops; several commits in quick
    /// succession may arrive as one (the newest). Waiting costs no CPU.
    func watchCommits(_ onCommit: @escaping @Sendable (ReportedCommit) -> Void) throws -> any CommitWatch

    /// Releases the engine; using the store afterwards throws
    /// ``KuraError/storeClosed(path:)``.
    func close()
}

extension StorageEngine {
    public func prepare(toOpen model: ManagedObjectModel, alongside other: ManagedObjectModel?) throws {}

    public func performSingleRequestRead(_ body: (any StorageTransaction) throws -> Void) throws {
        try performRead(body)
    }

    /// Runs `body` in a read transaction and returns what it returns (see ``performRead(_:)``).
    @inline(__always)
    public func read<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result {
        var result: Result?
        try performRead { result = try body($0) }
        return result!
    }

    /// Runs `body` in the write transaction and returns what it returns (see ``performWrite(_:)``).
    @inline(__always)
    public func write<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result {
        var result: Result?
        try performWrite { result = try body($0) }
        return result!
    }

    /// ``performCheckedRead(spaces:_:)``, returning what `body` returns.
    public func readChecked<Result>(spaces: Set<String>, _ body: (any StorageTransaction) throws -> Result) throws -> Result {
        var result: Result?
        try performCheckedRead(spaces: spaces) { result = try body($0) }
        return result!
    }
}

/// A watch started by ``StorageEngine/watchCommits(_:)``.
/// A commit a ``CommitWatch`` reports.
public struct ReportedCommit: Sendable, Hashable {
    /// The commit's number, as ``StorageEngine/latestCommit()`` gives it.
    public let number: Int
    /// True when the engine knows that it made the commit itself (this
    /// store, this process); false when it can't tell, and then the store
    /// knows its own commits by the ``StorageTransaction/id`` it noted.
    public let isOwn: Bool

    public init(number: Int, isOwn: Bool = false) {
        self.number = number
        self.isOwn = isOwn
    }
}

public protocol CommitWatch: Sendable {
    /// Stops the watch: no call after this one returns.
    func stop()
}

/// What a ``StorageEngine`` lends to the closure of a read or write: reads of
/// one snapshot and, in a write, changes that become visible together.
///
/// Bytes lent to a closure (a value, an entry) stay valid until the
/// transaction ends or writes, as LMDB's pages do: the store keeps views of
/// the records a fetch read until it has made its objects.
///
/// Not `Sendable`: a transaction is used by the thread it was lent to, only
/// inside the closure, so an engine's transaction type needs no locks.
public protocol StorageTransaction {
    /// True in a read transaction.
    var isReadOnly: Bool { get }

    /// In a read, the commit whose snapshot it sees; in a write, the
    /// ``StorageEngine/latestCommit()`` its commit will make current, or 0
    /// when the engine learns it only by committing (its watch then reports
    /// the commit as its own: ``ReportedCommit/isOwn``).
    var id: Int { get }

    /// The space named `name`, or `nil` when there is none.
    func openSpace(named name: String) throws -> StorageSpace?

    /// The space named `name`, created (empty) when there is none; in a write.
    func createSpace(named name: String) throws -> StorageSpace

    /// Calls `body` with the value of `key` and returns true, or returns
    /// false when the key is absent.
    func visitValue(
        forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool

    /// How many keys `space` holds.
    func count(in space: StorageSpace) throws -> Int

    /// True when the store holds no space at all (a new, empty file).
    func isEmpty() throws -> Bool

    /// Calls `body` for each entry of `space` in `range`, in key order or
    /// reversed, until it returns false or the range ends.
    func forEach(
        in space: StorageSpace, range: KeyRange, direction: IterationDirection, _ body: (StorageEntry) throws -> Bool
    ) throws

    /// Calls `body` with a cursor on `space`, for reading and changing entries where they are.
    func visitCursor(in space: StorageSpace, _ body: (any StorageCursor) throws -> Void) throws

    /// Stores `value` under `key`.
    /// - Throws: ``StorageEngineError/keyExists`` (with `.noOverwrite`, or
    ///   `.append` out of order), ``StorageEngineError/keyTooLong``.
    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: StorageSpace, flags: PutFlags) throws

    /// Removes `key`, if there. (Whether it was is not asked: an engine
    /// that sends writes in batches doesn't know yet.)
    func delete(_ key: UnsafeRawBufferPointer, in space: StorageSpace) throws

    /// Removes every key of `space`, keeping the space.
    func removeAll(in space: StorageSpace) throws

    /// Removes `space` and every key in it.
    func drop(_ space: StorageSpace) throws

    /// Runs `body` in a transaction nested in this write transaction: its
    /// changes join this one when `body` returns and are undone alone when it throws.
    func performNested(_ body: (any StorageTransaction) throws -> Void) throws
}

extension StorageTransaction {
    /// Calls `body` with the value of `key`, or returns `nil` when the key is absent.
    @inline(__always)
    public func withValue<Result>(
        forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) throws -> Result? {
        var result: Result?
        _ = try visitValue(forKey: key, in: space) { result = try body($0) }
        return result
    }

    /// Calls `body` with a cursor on `space` and returns what it returns.
    @inline(__always)
    public func withCursor<Result>(in space: StorageSpace, _ body: (any StorageCursor) throws -> Result) throws -> Result {
        var result: Result?
        try visitCursor(in: space) { result = try body($0) }
        return result!
    }

    /// Runs `body` in a nested transaction (see ``performNested(_:)``) and returns what it returns.
    public func withNestedTransaction<Result>(_ body: (any StorageTransaction) throws -> Result) throws -> Result {
        var result: Result?
        try performNested { result = try body($0) }
        return result!
    }
}

/// A position in a ``StorageSpace``, lent by ``StorageTransaction/visitCursor(in:_:)``.
public protocol StorageCursor {
    /// Moves to `key` and returns its entry, or `nil` (the position is then undefined).
    func seek(exactly key: [UInt8]) throws -> StorageEntry?
    /// Removes the entry the cursor is on.
    func deleteCurrent() throws
    /// Replaces the value of the entry the cursor is on; `key` is its key.
    func replaceCurrent(_ value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws
}

/// A named key space of an engine, as a ``StorageTransaction`` opened it:
/// what LMDB calls a named database.
public struct StorageSpace: Hashable, Sendable {
    /// The engine's number for the space.
    public let number: UInt32

    public init(number: UInt32) {
        self.number = number
    }
}

/// A value a write expects `key` of `space` to hold (`nil`: absent), read
/// before the write began: see ``RequestingStorageTransaction/beginRewriting(_:)``.
public struct ExpectedValue: Sendable {
    public let space: StorageSpace
    public let key: [UInt8]
    public let value: [UInt8]?

    public init(space: StorageSpace, key: [UInt8], value: [UInt8]?) {
        self.space = space
        self.key = key
        self.value = value
    }
}

/// The errors of a ``StorageEngine`` that Kura's store turns into its own.
///
/// A struct with a ``Code``, like ``StorageFailure``, so a new kind is a new
/// code that no engine's or caller's `switch` has to handle. A code is a
/// `catch` pattern: `catch StorageEngineError.keyExists`.
public struct StorageEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error this is.
    public let code: Code
    /// The space of the key, for ``Code/keyExistsInSpace``.
    public let space: StorageSpace?
    /// The key, for ``Code/keyExistsInSpace``.
    public let key: [UInt8]?

    /// An error of `code`, about `key` of `space` when it names one.
    public init(code: Code, space: StorageSpace? = nil, key: [UInt8]? = nil) {
        self.code = code
        self.space = space
        self.key = key
    }

    /// Kinds of ``StorageEngineError``.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static property that holds it is named.
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// A put with `.noOverwrite` met an existing key (or `.append` a
        /// key out of order), at the put.
        public static let keyExists = Code(rawValue: "keyExists")
        /// A key longer than the engine allows.
        public static let keyTooLong = Code(rawValue: "keyTooLong")
        /// A cursor changed its entry before it was on one.
        public static let noCurrentEntry = Code(rawValue: "noCurrentEntry")
        /// A put with `.noOverwrite` met an existing key, found later than
        /// the put itself: an engine that sends writes in batches reports
        /// the conflict when it sends them (before a read of the same
        /// transaction, or at commit), with the space and key, so the store
        /// can say which object and values clashed.
        public static let keyExistsInSpace = Code(rawValue: "keyExistsInSpace")

        /// True when `error` is a ``StorageEngineError`` of this code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StorageEngineError)?.code == code
        }
    }

    /// ``Code/keyExists``.
    public static let keyExists = StorageEngineError(code: .keyExists)
    /// ``Code/keyTooLong``.
    public static let keyTooLong = StorageEngineError(code: .keyTooLong)
    /// ``Code/noCurrentEntry``.
    public static let noCurrentEntry = StorageEngineError(code: .noCurrentEntry)
    /// ``Code/keyExistsInSpace``: `key` of `space` existed.
    public static func keyExistsInSpace(_ space: StorageSpace, key: [UInt8]) -> StorageEngineError {
        StorageEngineError(code: .keyExistsInSpace, space: space, key: key)
    }

    /// True when `error` is a ``StorageEngineError`` of `pattern`'s code
    /// (its space and key aside): `catch StorageEngineError.keyExists`.
    public static func ~= (pattern: StorageEngineError, error: any Error) -> Bool {
        (error as? StorageEngineError)?.code == pattern.code
    }

    public var description: String {
        guard let space, let key else { return code.rawValue }
        return "\(code.rawValue) (space \(space.number), key \(key.count) bytes)"
    }
}

/// A key and a value copied into memory of their own, for a cursor that
/// lends an entry it doesn't otherwise keep: valid as long as the copy.
public final class StorageEntryCopy {
    private let bytes: UnsafeMutableRawBufferPointer
    private let keyCount: Int
    private let valueCount: Int

    public init(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, key.count + value.count), alignment: 8)
        keyCount = key.count
        if !key.isEmpty { UnsafeMutableRawBufferPointer(rebasing: bytes[0..<key.count]).copyMemory(from: key) }
        if !value.isEmpty { UnsafeMutableRawBufferPointer(rebasing: bytes[key.count..<(key.count + value.count)]).copyMemory(from: value) }
        valueCount = value.count
    }

    /// The entry, valid while this copy lives.
    public var entry: StorageEntry {
        StorageEntry(key: UnsafeRawBufferPointer(rebasing: bytes[0..<keyCount]),
                     value: UnsafeRawBufferPointer(rebasing: bytes[keyCount..<(keyCount + valueCount)]))
    }

    deinit {
        bytes.deallocate()
    }
}
