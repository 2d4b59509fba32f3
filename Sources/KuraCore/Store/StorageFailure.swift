import Foundation

/// Why the storage under a store failed, as a value you can match: the disk
/// is full, a permission is missing, the engine reported an error.
///
/// ```swift
/// do {
///     try context.save()
/// } catch KuraError.storage(_, .diskFull) {
///     print("free some disk space and save again: nothing was lost")
/// } catch KuraError.storage(let path, let failure) {
///     print("\(path): \(failure)")
/// }
/// ```
///
/// A save that fails this way has written nothing and kept every change in
/// the context.
public enum StorageFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file system has no room left for the store's pages. LMDB reports
    /// a write cut short by a full disk as an I/O error; Kura tells the two
    /// apart by asking the file system how much room is left.
    case diskFull
    /// The process's file-size limit (`ulimit -f`, `RLIMIT_FSIZE`) stopped
    /// the store file from growing.
    case fileSizeLimitReached
    /// Access was refused; the text says to what and why (a directory that
    /// isn't writable, so LMDB can't create its lock file; a store file that
    /// isn't readable).
    case permissionDenied(String)
    /// The path names a directory, a FIFO, a device or a socket; the text
    /// says which.
    case notARegularFile(String)
    /// The store file has this many hard links: processes opening it under
    /// different names would not share a lock, so it is refused.
    case hardLinked(links: Int)
    /// This process has the store open already; share that container.
    case alreadyOpen
    /// The map had to change size while this thread was inside another
    /// transaction on the same store (a save from inside a fetch's hook, for
    /// example). Finish the outer work first.
    case mapChangeInsideTransaction
    /// Every reader slot of the store is taken (``StoreOptions/maxReaders``).
    case tooManyReaders
    /// The operating system refused an operation: its `errno` and text.
    case system(errno: Int32, message: String)
    /// The engine reported an error: its result code and text.
    case engine(code: Int32, message: String)
    /// The database server can't be reached, or the connection to it was
    /// lost; the text says why. A save that meets it has written nothing
    /// (the server rolls an unfinished transaction back) and the context
    /// keeps its changes; the store connects again on its next use.
    case serverUnavailable(String)
    /// The store's engine can't do what was asked (a file-level operation
    /// on an engine that has no file, for instance); the text says what.
    case notSupported(String)

    public var description: String {
        switch self {
        case .diskFull: "the disk is full"
        case .fileSizeLimitReached: "the process's file size limit (ulimit -f) was reached"
        case .permissionDenied(let reason): "permission denied: \(reason)"
        case .notARegularFile(let kind): "it is \(kind), not a store file"
        case .hardLinked(let links):
            "the file has \(links) hard links, so processes opening it by different names would not share one lock; "
                + "remove the extra links (symbolic links are fine)"
        case .alreadyOpen: "the store is already open in this process; share its container"
        case .mapChangeInsideTransaction:
            "the store's map must change size, which can't happen while this thread is inside another transaction on it"
        case .tooManyReaders: "every reader slot of the store is taken"
        case .system(_, let message): message
        case .engine(_, let message): message
        case .serverUnavailable(let reason): "the database server is unavailable: \(reason)"
        case .notSupported(let what): "\(what) is not supported by this store's engine"
        }
    }
}
