import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Environment {
    /// Writes a consistent copy of the environment to a new file at `path`
    /// (`mdb_env_copy2`), while readers and writers carry on.
    ///
    /// The copy is written under a temporary name in the same directory,
    /// flushed to disk, and only then given its name: a file at `path` is
    /// always a whole copy. A copy that fails (a full disk, say) leaves
    /// nothing behind.
    ///
    /// - Parameters:
    ///   - path: The new file; it must not exist (a copy never replaces a file).
    ///   - compacting: Leave out free pages and renumber the rest
    ///     (`MDB_CP_COMPACT`), so the copy is as small as the data. Default true.
    /// - Throws: ``LMDBError`` (`EEXIST` when `path` exists).
    public func copy(to path: String, compacting: Bool = true) throws {
        let temporary = Self.temporaryName(beside: path)
        do {
            try copyUnnamed(to: temporary, compacting: compacting)
            try Self.syncFile(temporary)
            try Self.giveName(path, to: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    private func copyUnnamed(to path: String, compacting: Bool) throws {
        while true {
            let code: Int32 = try {
                mapLock.lockShared()
                defer { mapLock.unlockShared() }
                try checkOpen()
                return mdb_env_copy2(handle, path, compacting ? UInt32(MDB_CP_COMPACT) : 0)
            }()
            // The copy reads in a transaction of its own, which finds the map
            // resized when another process grew it: adopt the size, copy again.
            if code == MDB_MAP_RESIZED && mapLock.depth == 0 {
                unlink(path)
                try adoptMapSize()
                continue
            }
            try LMDBError.check(code)
            return
        }
    }

    /// A name for a file beside `path` that no file has yet.
    static func temporaryName(beside path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return directory + ".\(name).kura-copy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Flushes the file at `path` to disk.
    static func syncFile(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LMDBError.system(errno) }
        defer { closeFile(descriptor) }
        guard fsync(descriptor) == 0 else { throw LMDBError.system(errno) }
    }

    /// Gives the complete file at `temporary` the name `path`, unless a
    /// file has that name: a hard link made and the temporary name removed,
    /// which can't replace a file (a rename where links aren't supported,
    /// after checking that none is there), then the directory flushed.
    static func giveName(_ path: String, to temporary: String) throws {
        if link(temporary, path) == 0 {
            unlink(temporary)
        } else {
            let code = errno
            guard code == EPERM || code == EOPNOTSUPP || code == EXDEV || code == EMLINK else { throw LMDBError.system(code) }
            guard access(path, F_OK) != 0 else { throw LMDBError.system(EEXIST) }
            guard rename(temporary, path) == 0 else { throw LMDBError.system(errno) }
        }
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            closeFile(descriptor)
        }
    }
}

/// `close(2)`, named apart from ``Environment/close()``.
private func closeFile(_ descriptor: Int32) {
    close(descriptor)
}
