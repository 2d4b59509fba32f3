// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore

/// Appending: the new records of a save, put with `.append` in ascending
/// key order, skip ``PostgresTransaction/pending``. Each space's run is
/// written straight into the arrays its insert statement binds: no
/// dictionary entry, no buffer per value, no sort (they are in order
/// already). A save of 100,000 new objects puts 100,000 records this way,
/// beside its 200,000 index entries.
///
/// A run is kept only while nothing else touches its space: it starts when
/// the space has no other change pending and nothing read ahead, and any
/// other use of the space (a read, a removal, a put without `.append`, a key
/// out of order) sends it first (``PostgresTransaction/flush()``).
extension PostgresTransaction {
    /// One space's run of appended keys.
    struct AppendedRun {
        var batches = KeyBatches()
        /// The keys, one after another (for the rare case where one turns
        /// out to be taken: ``PostgresTransaction/SortedChanges/newKeys``).
        var keyBytes: [UInt8] = []
        var keyEnds: [Int] = []

        var lastKey: ArraySlice<UInt8>? {
            keyEnds.last.map { keyBytes[(keyEnds.count > 1 ? keyEnds[keyEnds.count - 2] : 0)..<$0] }
        }

        func keys(in space: UInt32) -> [PendingKey] {
            var start = 0
            return keyEnds.map { end in
                defer { start = end }
                return PendingKey(space: space, key: Array(keyBytes[start..<end]))
            }
        }
    }

    /// Adds an `.append` put to its space's run; false when it can't go
    /// there (the space has other changes or keys read ahead, or the key
    /// doesn't come after the run's last), after sending the run if it had one.
    func appendToRun(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: UInt32) throws -> Bool {
        if let last = appended[space]?.lastKey {
            let inOrder = last.withUnsafeBytes { compareKeys($0, key) < 0 }
            guard inOrder else {
                try flush()
                return false
            }
        } else {
            guard !pending.keys.contains(where: { $0.space == space }),
                  !prefetched.keys.contains(where: { $0.space == space })
            else { return false }
            appended[space] = AppendedRun()
        }
        appended[space]!.batches.append(space: space, key: key, value: value)
        appended[space]!.keyBytes.append(contentsOf: key)
        appended[space]!.keyEnds.append(appended[space]!.keyBytes.count)
        return true
    }

    /// Sends the run of `space`, if there is one, before another use of the space.
    func sendRun(of space: UInt32) throws {
        if appended[space] != nil { try flush() }
    }
}
#endif
