import Foundation
import KuraLMDB

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
    /// LMDB reported an error: its result code and text.
    case engine(code: Int32, message: String)

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
        }
    }
}

extension StorageFailure {
    /// The failure an LMDB error stands for, at the store file `path`.
    init(_ error: LMDBError, path: String) {
        switch error {
        case .system(let code) where code == ENOSPC:
            self = .diskFull
        case .system(let code) where code == EFBIG:
            self = .fileSizeLimitReached
        case .system(let code) where code == EIO:
            // LMDB turns a write cut short into EIO: see what stopped it.
            self = Self.writeLimit(at: path) ?? .system(errno: code, message: error.description)
        case .system(let code) where code == EACCES || code == EPERM:
            self = .permissionDenied(Self.explainPermission(at: path, error: error))
        case .system(let code):
            self = .system(errno: code, message: error.description)
        case .readersFull:
            self = .tooManyReaders
        default:
            self = .engine(code: error.code, message: error.description)
        }
    }

    /// The failure an environment error stands for.
    init(_ error: EnvironmentError, path: String) {
        switch error {
        case .cannotOpen(_, let reason): self.init(reason, path: path)
        case .notARegularFile(_, let kind): self = .notARegularFile(kind)
        case .hardLinked(_, let links): self = .hardLinked(links: links)
        case .alreadyOpen: self = .alreadyOpen
        case .cannotGrowWithOpenTransaction: self = .mapChangeInsideTransaction
        default: self = .engine(code: 0, message: error.description)
        }
    }

    /// Whether a full disk or the file-size limit explains a write cut short.
    /// The store's file system is asked how much room is left; less than a
    /// few pages means full.
    static func writeLimit(at path: String) -> StorageFailure? {
        var limit = rlimit()
        var status = stat()
        if getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max,
           stat(path, &status) == 0, UInt64(status.st_size) + (1 << 20) >= UInt64(limit.rlim_cur) {
            return .fileSizeLimitReached
        }
        var fileSystem = statvfs()
        if statvfs(path, &fileSystem) == 0, UInt64(fileSystem.f_bavail) * UInt64(fileSystem.f_frsize) < 1 << 20 {
            return .diskFull
        }
        return nil
    }

    /// What access was refused: LMDB needs to read the store file and to
    /// create (or write) the lock file beside it.
    static func explainPermission(at path: String, error: LMDBError) -> String {
        let lockPath = path + "-lock"
        let directory = (path as NSString).deletingLastPathComponent
        if access(lockPath, F_OK) != 0 && access(directory.isEmpty ? "." : directory, W_OK) != 0 {
            return "the directory '\(directory.isEmpty ? "." : directory)' is not writable, and LMDB must create "
                + "the lock file '\(lockPath)' there, even to read"
        }
        if access(lockPath, F_OK) == 0 && access(lockPath, R_OK | W_OK) != 0 {
            return "the lock file '\(lockPath)' can't be read and written by this user, which LMDB needs even to read"
        }
        if access(path, R_OK) != 0 {
            return "the store file '\(path)' is not readable by this user"
        }
        if access(path, F_OK) == 0 && access(path, W_OK) != 0 {
            return "the store file '\(path)' is not writable by this user; open it read-only"
        }
        return error.description
    }
}

extension KuraError {
    /// The Kura error for an error of the storage engine at the store `path`.
    static func storage(_ error: any Error, path: String) -> any Error {
        switch error {
        case let error as LMDBError:
            switch error {
            case .corrupted, .pageNotFound, .cursorFull, .panic:
                return KuraError.corruptStore(path: path, reason: error.description)
            default:
                return KuraError.storage(path: path, failure: StorageFailure(error, path: path))
            }
        case let error as EnvironmentError:
            switch error {
            case .closed: return KuraError.storeClosed(path: path)
            case .readOnly: return KuraError.storeReadOnly(path: path)
            default: return KuraError.storage(path: path, failure: StorageFailure(error, path: path))
            }
        default:
            return error
        }
    }
}
