import Foundation
import KuraCore
import KuraLMDB

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

/// Runs `body`, turning LMDB's errors into ``KuraError``s that name the store.
func storageErrors<Result>(_ path: String, _ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch {
        throw KuraError.storage(error, path: path)
    }
}
