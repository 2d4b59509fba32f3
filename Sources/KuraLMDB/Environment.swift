import CLMDB
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An LMDB environment: one memory-mapped file holding any number of named
/// databases, read and written through scoped transactions.
///
/// The environment is opened with `MDB_NOSUBDIR` (the store is the file at
/// `path`, with a lock file at `path-lock`) and `MDB_NOTLS` (transactions are
/// not tied to threads, because Swift tasks move between threads).
///
/// ```swift
/// let environment = try Environment(path: "/tmp/example.lmdb")
/// let names = try environment.createDatabase(named: "names")
/// try environment.write { txn in
///     try names.put(Array("Ada".utf8), forKey: [0, 1], in: txn)
/// }
/// let name = try environment.read { txn in try names.value(forKey: [0, 1], in: txn) }
/// ```
///
/// The environment is `Sendable`: any thread or task may start transactions on
/// it at once. LMDB allows one writer at a time (across processes) and any
/// number of readers, which never block the writer and see a consistent
/// snapshot. Open a file once per process: a second ``init(path:options:)`` of
/// the same file throws ``EnvironmentError/alreadyOpen(path:)``.
public final class Environment: @unchecked Sendable {
    // @unchecked: `handle` is only used under `mapLock` (shared for transactions,
    // exclusive for map changes and close), `isClosed` is written only under the
    // exclusive lock, and the reader pool is behind a Mutex. LMDB's MDB_env is
    // safe to share between threads when MDB_NOTLS is set.

    /// The path of the store file.
    public let path: String

    /// The options the environment was opened with.
    public let options: Options

    let handle: OpaquePointer
    let mapLock = MapLock()
    /// The newest snapshot (transaction ID) a read of this process began
    /// on: a nested read that can't begin its own (the map must grow) falls
    /// back on the enclosing read's only when that is no older, so reads
    /// never go back in time.
    let newestSnapshot = Atomic<Int>(0)
    private let fileIdentity: FileIdentity
    private var isClosed = false
    let readerPool = Mutex(ReaderPool())

    /// Opens (or creates, unless read-only) the environment in the file at `path`.
    ///
    /// - Parameters:
    ///   - path: The store file. Its directory must exist. The lock file is `path-lock`.
    ///   - options: Map sizes, limits and flags.
    /// - Throws: ``EnvironmentError/cannotOpen(path:reason:)`` when LMDB refuses the
    ///   file (missing directory, not an LMDB file, no permission),
    ///   ``EnvironmentError/emptyFile(path:)``, ``EnvironmentError/truncated(path:expectedBytes:actualBytes:)``,
    ///   or ``EnvironmentError/alreadyOpen(path:)``.
    public init(path: String, options: Options = Options()) throws {
        self.path = path
        self.options = options
        (handle, fileIdentity) = try openEnvironments.withLock { registry in
            try Self.open(path: path, options: options, registry: &registry)
        }
    }

    deinit {
        closeHandle()
    }

    /// Closes the environment. Waits for transactions of this process to end;
    /// later transactions throw ``EnvironmentError/closed(path:)``. Closing is
    /// also done when the last reference goes away.
    public func close() {
        guard mapLock.lockExclusive() else {
            preconditionFailure("Environment.close() called inside a transaction on \(path)")
        }
        defer { mapLock.unlockExclusive() }
        closeHandle()
    }

    private func closeHandle() {
        guard !isClosed else { return }
        isClosed = true
        readerPool.withLock { $0.drain() }
        // Close and forget the file in one step: once closed, a deleted
        // store's inode can be reused by a new file, which must not then be
        // taken for this one.
        openEnvironments.withLock { registry in
            mdb_env_close(handle)
            _ = registry.removeValue(forKey: fileIdentity)
        }
    }

    /// Throws when the environment is closed; call with the lock held.
    func checkOpen() throws {
        if isClosed { throw EnvironmentError.closed(path: path) }
    }

    /// True when opened with ``Flags/readOnly``.
    public var isReadOnly: Bool { options.flags.contains(.readOnly) }

    /// Flushes buffered writes to disk; needed only with ``Flags/noSync`` or
    /// ``Flags/noMetaSync``, or to force a flush with `force`.
    public func sync(force: Bool = true) throws {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        try LMDBError.check(mdb_env_sync(handle, force ? 1 : 0))
    }

    // MARK: Opening

    private static func open(
        path: String, options: Options, registry: inout [FileIdentity: String]
    ) throws -> (OpaquePointer, FileIdentity) {
        // One store must have one lock file, however it is named: LMDB names
        // the lock after the path it is given, so give it the real path
        // (symbolic links resolved). Hard links can't be resolved to one
        // name, so a store with more than one is refused.
        let realPath = try resolvedPath(path)
        var existing = stat()
        if stat(realPath, &existing) == 0 {
            try checkIsStoreFile(existing, path: path)
            let identity = FileIdentity(existing)
            if registry[identity] != nil { throw EnvironmentError.alreadyOpen(path: path) }
            // An empty file that no LMDB process is creating right now (no lock
            // file) was made by someone else; LMDB would quietly initialize it.
            if existing.st_size == 0 && access(realPath + "-lock", F_OK) != 0 {
                throw EnvironmentError.emptyFile(path: path)
            }
        }
        var lockStatus = stat()
        if lstat(realPath + "-lock", &lockStatus) == 0 && (lockStatus.st_mode & S_IFMT) != S_IFREG {
            throw EnvironmentError.notARegularFile(path: realPath + "-lock", kind: FileKind(lockStatus).description)
        }

        // LMDB makes the lock file before it reads the data file: when the
        // open fails (random bytes, a truncated file), a lock file made now
        // is removed, so a failed open leaves nothing behind.
        let lockPath = realPath + "-lock"
        let lockExisted = access(lockPath, F_OK) == 0
        var environment: OpaquePointer?
        try LMDBError.check(mdb_env_create(&environment))
        guard let environment else { throw LMDBError.system(ENOMEM) }
        func close() {
            mdb_env_close(environment)
            if !lockExisted { unlink(lockPath) }
        }
        func fail(_ code: Int32) -> Error {
            close()
            return EnvironmentError.cannotOpen(path: path, reason: LMDBError(code: code))
        }
        // LMDB writes its lock file's header and reader table through a
        // memory map of the file it just sized with ftruncate: on a full file
        // system the kernel can't give the map pages, and the write kills
        // the process (SIGBUS). The space is reserved first instead, so a
        // full disk is an error here.
        if !options.flags.contains(.noLock) {
            let code = reserveLockFile(lockPath, readers: max(options.maxReaders, 1), mode: mode_t(options.fileMode))
            if code != 0 { throw fail(code) }
        }
        var code = mdb_env_set_mapsize(environment, max(options.mapSize, 4096))
        if code == 0 { code = mdb_env_set_maxdbs(environment, MDB_dbi(max(options.maxDatabases, 0))) }
        if code == 0 { code = mdb_env_set_maxreaders(environment, UInt32(max(options.maxReaders, 1))) }
        if code == 0 {
            let flags = options.flags.rawValue | UInt32(MDB_NOSUBDIR) | UInt32(MDB_NOTLS)
            code = mdb_env_open(environment, realPath, flags, mdb_mode_t(options.fileMode))
        }
        guard code == 0 else { throw fail(code) }

        var descriptor: Int32 = -1
        var opened = stat()
        code = mdb_env_get_fd(environment, &descriptor)
        if code == 0 && fstat(descriptor, &opened) != 0 { code = errno }
        guard code == 0 else { throw fail(code) }
        let identity = FileIdentity(opened)
        if registry[identity] != nil {
            mdb_env_close(environment)
            throw EnvironmentError.alreadyOpen(path: path)
        }
        if opened.st_nlink > 1 {
            close()
            throw EnvironmentError.hardLinked(path: path, links: Int(opened.st_nlink))
        }

        // A truncated file maps pages that are not there: touching them would
        // kill the process with SIGBUS. Compare the file with its own header.
        var info = MDB_envinfo()
        var statistics = MDB_stat()
        code = mdb_env_info(environment, &info)
        if code == 0 { code = mdb_env_stat(environment, &statistics) }
        guard code == 0 else { throw fail(code) }
        let needed = (Int(info.me_last_pgno) + 1) * Int(statistics.ms_psize)
        // The size is read after the header: a writer in another process
        // writes its pages before the header that names them, so a file read
        // this way is never smaller than its header says unless it was cut.
        var current = stat()
        if fstat(descriptor, &current) != 0 { throw fail(errno) }
        if Int(current.st_size) < needed {
            close()
            throw EnvironmentError.truncated(path: path, expectedBytes: needed, actualBytes: Int(current.st_size))
        }

        registry[identity] = path
        return (environment, identity)
    }
}

/// Allocates the blocks of the lock file at `path` that LMDB is about to
/// write through a map: the size LMDB gives a new lock file for `readers`
/// reader slots, or the file's own size when it is larger (LMDB then uses
/// that). Returns 0, or the `errno` of a failure that means LMDB couldn't
/// work either (no room: `ENOSPC`, `EDQUOT`). A lock file this process
/// can't write is left for LMDB to open or refuse.
private func reserveLockFile(_ path: String, readers: Int, mode: mode_t) -> Int32 {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return 0 }
    let size = max(Int(status.st_size), LockFileLayout.size(readers: readers))
    #if canImport(Glibc)
    let code = posix_fallocate(descriptor, 0, off_t(size))
    #else
    let code = ftruncate(descriptor, off_t(size)) == 0 ? 0 : errno
    #endif
    return code == ENOSPC || code == EDQUOT || code == EFBIG ? code : 0
}

/// The size of a new LMDB lock file (`mdb_env_setup_locks`): a header of
/// two cache lines' worth of fields (one holding the readers' mutex), one
/// for the writers' mutex, then a cache line per reader slot.
enum LockFileLayout {
    static let cacheLine = 64

    static func size(readers: Int) -> Int {
        let mutex = MemoryLayout<pthread_mutex_t>.size
        // magic, format (4 bytes each), the readers' mutex, the last
        // transaction ID, the reader count.
        let header = roundUp(roundUp(8, to: MemoryLayout<pthread_mutex_t>.alignment) + mutex + 8 + 4, to: 8)
        let info = roundUp(header, to: cacheLine) + roundUp(mutex, to: cacheLine) + cacheLine
        return (readers - 1) * cacheLine + info
    }

    private static func roundUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }
}

extension Environment {
    /// `path` with every symbolic link resolved: of the file when it exists,
    /// else of its directory (the file is about to be created there).
    static func resolvedPath(_ path: String) throws -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let missing = errno
        var link = stat()
        if lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK {
            throw EnvironmentError.cannotOpen(path: path, reason: .system(missing))
        }
        guard missing == ENOENT else { throw EnvironmentError.cannotOpen(path: path, reason: .system(missing)) }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let resolved = realpath(directory, nil) else {
            throw EnvironmentError.cannotOpen(path: path, reason: .system(errno))
        }
        defer { free(resolved) }
        let base = String(cString: resolved)
        return (base.hasSuffix("/") ? base : base + "/") + name
    }

    /// Throws unless `status` is a regular file: LMDB would block forever
    /// opening a FIFO, and fail obscurely on anything else.
    static func checkIsStoreFile(_ status: stat, path: String) throws {
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw EnvironmentError.notARegularFile(path: path, kind: FileKind(status).description)
        }
    }
}

/// What kind of file a path names, for messages.
struct FileKind: CustomStringConvertible {
    let mode: mode_t

    init(_ status: stat) { mode = status.st_mode & S_IFMT }

    var description: String {
        switch mode {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}

/// A file's device and inode: what makes two paths the same environment.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// Every environment this process has open, so none is opened twice.
let openEnvironments = Mutex<[FileIdentity: String]>([:])
