import CLMDB

#if canImport(Glibc)
import Glibc
#endif

extension Environment {
    /// Writes a consistent copy of the environment to a new file at `path`
    /// (`mdb_env_copy2`), while readers and writers carry on.
    ///
    /// - Parameters:
    ///   - path: The new file; it must not exist.
    ///   - compacting: Leave out free pages and renumber the rest
    ///     (`MDB_CP_COMPACT`), so the copy is as small as the data. Default true.
    /// - Throws: ``LMDBError`` (`EEXIST` when `path` exists).
    public func copy(to path: String, compacting: Bool = true) throws {
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
}
