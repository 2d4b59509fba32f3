import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error reported by LMDB: one case per `MDB_*` result code, plus the
/// operating system's `errno` values.
///
/// Match the cases you care about and let the rest propagate:
///
/// ```swift
/// do {
///     try environment.write { txn in try db.put(key, value, in: txn, flags: .noOverwrite) }
/// } catch LMDBError.keyExists {
///     print("already there")
/// }
/// ```
///
/// A missing key is never an error in this library (`get` returns `nil`);
/// ``notFound`` only appears where LMDB's own API has no other way to say it.
public enum LMDBError: Error, Hashable, Sendable {
    /// `MDB_KEYEXIST`: the key/data pair already exists (a put with ``PutFlags/noOverwrite``).
    case keyExists
    /// `MDB_NOTFOUND`: no matching key/data pair.
    case notFound
    /// `MDB_PAGE_NOTFOUND`: a requested page was not found; usually a corrupt file.
    case pageNotFound
    /// `MDB_CORRUPTED`: the located page is of the wrong type; the file is corrupt.
    case corrupted
    /// `MDB_PANIC`: an earlier fatal error; the environment must be closed.
    case panic
    /// `MDB_VERSION_MISMATCH`: the file was written by an incompatible LMDB version.
    case versionMismatch
    /// `MDB_INVALID`: the file is not an LMDB file.
    case invalid
    /// `MDB_MAP_FULL`: the map reached its maximum size. ``Environment`` grows the
    /// map by itself; you only see this when the configured maximum is reached.
    case mapFull
    /// `MDB_DBS_FULL`: more named databases than ``Environment/Options/maxDatabases``.
    case databasesFull
    /// `MDB_READERS_FULL`: every reader slot is taken (``Environment/Options/maxReaders``).
    case readersFull
    /// `MDB_TLS_FULL`: too many thread-local slots (not used with `MDB_NOTLS`).
    case threadLocalStorageFull
    /// `MDB_TXN_FULL`: the transaction has too many dirty pages.
    case transactionFull
    /// `MDB_CURSOR_FULL`: the cursor stack is too deep; the file is corrupt.
    case cursorFull
    /// `MDB_PAGE_FULL`: a page has no more space; an internal error.
    case pageFull
    /// `MDB_MAP_RESIZED`: another process grew the map. ``Environment`` adopts the
    /// new size and retries by itself.
    case mapResized
    /// `MDB_INCOMPATIBLE`: the operation or database flags are incompatible with the database.
    case incompatible
    /// `MDB_BAD_RSLOT`: a reader slot was used in the wrong way.
    case badReaderSlot
    /// `MDB_BAD_TXN`: the transaction must be aborted: it had an error or belongs to a finished parent.
    case badTransaction
    /// `MDB_BAD_VALSIZE`: a key or value has an unsupported size (keys are 1 to 511 bytes).
    case badValueSize
    /// `MDB_BAD_DBI`: the database handle was changed unexpectedly.
    case badDatabase
    /// An operating-system error (`errno`), such as `ENOENT`, `EACCES` or `ENOSPC`.
    case system(Int32)

    /// Maps an LMDB result code onto an error; `code` must not be `MDB_SUCCESS`.
    public init(code: Int32) {
        switch code {
        case MDB_KEYEXIST: self = .keyExists
        case MDB_NOTFOUND: self = .notFound
        case MDB_PAGE_NOTFOUND: self = .pageNotFound
        case MDB_CORRUPTED: self = .corrupted
        case MDB_PANIC: self = .panic
        case MDB_VERSION_MISMATCH: self = .versionMismatch
        case MDB_INVALID: self = .invalid
        case MDB_MAP_FULL: self = .mapFull
        case MDB_DBS_FULL: self = .databasesFull
        case MDB_READERS_FULL: self = .readersFull
        case MDB_TLS_FULL: self = .threadLocalStorageFull
        case MDB_TXN_FULL: self = .transactionFull
        case MDB_CURSOR_FULL: self = .cursorFull
        case MDB_PAGE_FULL: self = .pageFull
        case MDB_MAP_RESIZED: self = .mapResized
        case MDB_INCOMPATIBLE: self = .incompatible
        case MDB_BAD_RSLOT: self = .badReaderSlot
        case MDB_BAD_TXN: self = .badTransaction
        case MDB_BAD_VALSIZE: self = .badValueSize
        case MDB_BAD_DBI: self = .badDatabase
        default: self = .system(code)
        }
    }

    /// The result code this error stands for.
    public var code: Int32 {
        switch self {
        case .keyExists: MDB_KEYEXIST
        case .notFound: MDB_NOTFOUND
        case .pageNotFound: MDB_PAGE_NOTFOUND
        case .corrupted: MDB_CORRUPTED
        case .panic: MDB_PANIC
        case .versionMismatch: MDB_VERSION_MISMATCH
        case .invalid: MDB_INVALID
        case .mapFull: MDB_MAP_FULL
        case .databasesFull: MDB_DBS_FULL
        case .readersFull: MDB_READERS_FULL
        case .threadLocalStorageFull: MDB_TLS_FULL
        case .transactionFull: MDB_TXN_FULL
        case .cursorFull: MDB_CURSOR_FULL
        case .pageFull: MDB_PAGE_FULL
        case .mapResized: MDB_MAP_RESIZED
        case .incompatible: MDB_INCOMPATIBLE
        case .badReaderSlot: MDB_BAD_RSLOT
        case .badTransaction: MDB_BAD_TXN
        case .badValueSize: MDB_BAD_VALSIZE
        case .badDatabase: MDB_BAD_DBI
        case .system(let errno): errno
        }
    }

    /// True for `ENOSPC` (disk full) and `EFBIG` (file size limit).
    public var isOutOfSpace: Bool {
        self == .system(ENOSPC) || self == .system(EFBIG)
    }

    /// Throws the error for `code` unless it is `MDB_SUCCESS`.
    @inlinable
    public static func check(_ code: Int32) throws(LMDBError) {
        if code != 0 { throw LMDBError(code: code) }
    }
}

extension LMDBError: CustomStringConvertible {
    /// LMDB's own description (`mdb_strerror`), which covers `errno` values too.
    public var description: String {
        String(cString: mdb_strerror(code))
    }
}
