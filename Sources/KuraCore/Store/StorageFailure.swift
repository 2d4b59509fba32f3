import Foundation

/// Why the storage under a store failed, as a value you can match: the disk
/// is full, a permission is missing, the engine reported an error.
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as KuraError where error.storageFailure?.code == .diskFull {
///     print("free some disk space and save again: nothing was lost")
/// } catch let error as KuraError where error.code == .storage {
///     print("\(error.path!): \(error.storageFailure!)")
/// }
/// ```
///
/// A struct with a ``Code``, like ``KuraError``: the codes every engine may
/// meet are here; an engine adds its own where it is defined (the LMDB
/// engine's `hardLinked`, `alreadyOpen`, `mapChangeInsideTransaction` and
/// `tooManyReaders` in the `Kura` module; the PostgreSQL engine's
/// `serverUnavailable` in `KuraPostgres`), so a new one breaks no caller.
///
/// A save that fails this way has written nothing and kept every change in
/// the context.
public struct StorageFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public let code: Code
    /// What failed and why, for a person.
    public let message: String
    /// The system's `errno` (``Code/system``), the engine's result code
    /// (``Code/engine``), or another figure its code says; 0 when none.
    public let number: Int

    /// A failure of `code`, described by `message`.
    public init(code: Code, message: String, number: Int = 0) {
        self.code = code
        self.message = message
        self.number = number
    }

    public var description: String { message }

    /// Kinds of ``StorageFailure``, each matched by `==`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as the static property that holds it is named.
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        public var description: String { rawValue }

        /// The file system has no room left for the store.
        public static let diskFull = Code(rawValue: "diskFull")
        /// The process's file-size limit stopped the store file from growing.
        public static let fileSizeLimitReached = Code(rawValue: "fileSizeLimitReached")
        /// Access was refused.
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// The path names something that is not a regular file.
        public static let notARegularFile = Code(rawValue: "notARegularFile")
        /// The operating system refused an operation (``StorageFailure/number`` is its `errno`).
        public static let system = Code(rawValue: "system")
        /// The engine reported an error (``StorageFailure/number`` is its result code).
        public static let engine = Code(rawValue: "engine")
        /// The store's engine can't do what was asked.
        public static let notSupported = Code(rawValue: "notSupported")
    }

    /// The file system has no room left for the store's pages. LMDB reports
    /// a write cut short by a full disk as an I/O error; Kura tells the two
    /// apart by asking the file system how much room is left.
    public static let diskFull = StorageFailure(code: .diskFull, message: "the disk is full")
    /// The process's file-size limit (`ulimit -f`, `RLIMIT_FSIZE`) stopped
    /// the store file from growing.
    public static let fileSizeLimitReached = StorageFailure(
        code: .fileSizeLimitReached, message: "the process's file size limit (ulimit -f) was reached")

    /// Access was refused; `reason` says to what and why (a directory that
    /// isn't writable, so LMDB can't create its lock file; a store file that
    /// isn't readable).
    public static func permissionDenied(_ reason: String) -> StorageFailure {
        StorageFailure(code: .permissionDenied, message: "permission denied: \(reason)")
    }

    /// The path names a directory, a FIFO, a device or a socket; `kind` says which.
    public static func notARegularFile(_ kind: String) -> StorageFailure {
        StorageFailure(code: .notARegularFile, message: "it is \(kind), not a store file")
    }

    /// The operating system refused an operation: its `errno` and text.
    public static func system(errno: Int32, message: String) -> StorageFailure {
        StorageFailure(code: .system, message: message, number: Int(errno))
    }

    /// The engine reported an error: its result code and text.
    public static func engine(code: Int32, message: String) -> StorageFailure {
        StorageFailure(code: .engine, message: message, number: Int(code))
    }

    /// The store's engine can't do what was asked (a file-level operation
    /// on an engine that has no file, for instance); `what` says what.
    public static func notSupported(_ what: String) -> StorageFailure {
        StorageFailure(code: .notSupported, message: "\(what) is not supported by this store's engine")
    }
}
