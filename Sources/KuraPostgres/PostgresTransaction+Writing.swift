// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore
import PostgresNIO

/// Writing: changes wait in ``PostgresTransaction/pending``, one entry per
/// key, until a read or the commit sends them (``flush()``).
extension PostgresTransaction {
    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: StorageSpace, flags: PutFlags) throws {
        try checkWritable()
        if key.count > 511 { throw StorageEngineError.keyTooLong }
        if flags.contains(.append), try appendToRun(value, forKey: key, in: space.number) { return }
        try sendRun(of: space.number)
        let pendingKey = PendingKey(space: space.number, key: Array(key))
        let mustBeNew = flags.contains(.noOverwrite) || flags.contains(.append)
        let put = Pending(value: ByteBuffer(bytes: value), mustBeNew: mustBeNew, removedFirst: false)
        // A key this transaction hasn't changed yet (most puts): one lookup.
        guard var entry = pending.updateValue(put, forKey: pendingKey) else { return }
        if mustBeNew && entry.value != nil {
            pending[pendingKey] = entry
            throw StorageEngineError.keyExists
        }
        if entry.value == nil && !entry.removedFirst {
            // Removed earlier in this transaction: what was stored is gone.
            entry.removedFirst = true
        }
        entry.value = put.value
        if mustBeNew && !entry.removedFirst { entry.mustBeNew = true }
        pending[pendingKey] = entry
    }

    func reserveCapacity(forPuts count: Int) {
        pending.reserveCapacity(pending.count + count)
    }

    func delete(_ key: UnsafeRawBufferPointer, in space: StorageSpace) throws {
        try checkWritable()
        try sendRun(of: space.number)
        let pendingKey = PendingKey(space: space.number, key: Array(key))
        if let entry = pending[pendingKey], entry.mustBeNew {
            // Its check against what is stored can't wait past its removal.
            try flush()
        }
        var entry = pending[pendingKey] ?? Pending(value: nil, mustBeNew: false, removedFirst: false)
        entry.value = nil
        entry.removedFirst = false
        entry.mustBeNew = false
        pending[pendingKey] = entry
    }

    func removeAll(in space: StorageSpace) throws {
        try checkWritable()
        try flush()
        prefetched.removeAll()
        readAheads.removeAll()
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        try execute("DELETE FROM kura_kv WHERE space = $1", binds)
        try execute("UPDATE kura_spaces SET entries = 0 WHERE number = $1", binds)
    }

    func drop(_ space: StorageSpace) throws {
        try removeAll(in: space)
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        try execute("DELETE FROM kura_spaces WHERE number = $1", binds)
    }

    func performNested(_ body: (any StorageTransaction) throws -> Void) throws {
        try checkWritable()
        try flush()
        try execute("SAVEPOINT kura_nested")
        do {
            try body(self)
            try flush()
            try execute("RELEASE SAVEPOINT kura_nested")
        } catch {
            pending.removeAll()
            appended.removeAll()
            prefetched.removeAll()
            readAheads.removeAll()
            if !engine.isConnectionFailure(error) {
                discardUnanswered()
                _ = try? execute("ROLLBACK TO SAVEPOINT kura_nested")
            }
            throw error
        }
    }

    /// Sends the buffered changes in one round trip: removals, then
    /// rewrites of keys known to be stored, then other stores, then new
    /// keys (checked). Each statement keeps its spaces' counts of entries
    /// itself, on the server.
    /// The buffered changes, taken out of ``PostgresTransaction/pending``
    /// and sorted by the statement that sends them.
    struct SortedChanges {
        /// Keys removed (then stored anew, when also in `new`).
        var removed = KeyBatches()
        /// Keys that must not be stored yet, and their values.
        var new = KeyBatches()
        var newKeys: [PendingKey] = []
        /// Runs of appended keys, whose keys come after ``newKeys`` in ``new``.
        var appendedRuns: [(space: UInt32, run: AppendedRun)] = []
        /// Every key of ``new``, in its order (made only when one was taken).
        var allNewKeys: [PendingKey] { newKeys + appendedRuns.flatMap { $0.run.keys(in: $0.space) } }
        /// Keys that may or may not be stored yet, and their values.
        var stored = KeyBatches()
        /// Keys known to be stored (read ahead, or sent), and their new values.
        var existing = KeyBatches()
    }

    /// Empties ``PostgresTransaction/pending`` into its statements' batches,
    /// in key order; what the transaction read ahead becomes what it wrote.
    /// (Keys inserted in order cost the server about half as much as the
    /// same keys in a dictionary's order: each lands next to the one before
    /// in the table's index, the records' ascending keys at its end.)
    func takePending() -> SortedChanges {
        var sorted = SortedChanges()
        let pending = self.pending  // a local: no exclusivity check per access
        // Sorted as small entries (a save of 100,000 objects buffers
        // 300,000 keys): by space, then by a key's first 8 bytes read as a
        // number, whole keys compared only when those are the same.
        // (Sorting the entries themselves with a comparison of whole keys
        // took a fifth of such an insert.)
        var order = pending.indices.map { index in
            let key = pending.keys[index]
            return SortEntry(space: key.space, prefix: SortEntry.prefix(of: key.key), index: index)
        }
        order.sort { a, b in
            if a.space != b.space { return a.space < b.space }
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            return pending.keys[a.index].key.withUnsafeBytes { x in
                pending.keys[b.index].key.withUnsafeBytes { y in compareKeys(x, y) < 0 }
            }
        }
        // Only keys of a space something was read ahead in can be known.
        let readAheadSpaces = Set(prefetched.keys.lazy.map(\.space))
        for entry in order {
            let (key, change) = pending[entry.index]
            let known = readAheadSpaces.contains(key.space) ? prefetched[key] : nil
            if known != nil { prefetched[key] = .some(change.value) }
            if change.value == nil || change.removedFirst { sorted.removed.append(space: key.space, key: key.key) }
            guard let value = change.value else { continue }
            if change.mustBeNew || change.removedFirst {
                sorted.new.append(space: key.space, key: key.key, value: value)
                sorted.newKeys.append(key)
            } else if case .some(.some) = known {
                sorted.existing.append(space: key.space, key: key.key, value: value)
            } else {
                sorted.stored.append(space: key.space, key: key.key, value: value)
            }
        }
        self.pending.removeAll()
        for (space, run) in appended.sorted(by: { $0.key < $1.key }) {
            sorted.new.append(contentsOf: run.batches)
            sorted.appendedRuns.append((space, run))
        }
        appended.removeAll()
        return sorted
    }

    /// A buffered key's place in ``takePending()``'s order.
    struct SortEntry {
        let space: UInt32
        /// The key's first 8 bytes, big-endian, zeros past its end: keys
        /// whose prefixes differ are in the prefixes' order (a shorter key
        /// that is the start of a longer one has the smaller or the same
        /// prefix), and only keys with the same prefix need comparing.
        let prefix: UInt64
        let index: Dictionary<PendingKey, Pending>.Index

        static func prefix(of key: [UInt8]) -> UInt64 {
            key.withUnsafeBytes { bytes in
                var prefix: UInt64 = 0
                for offset in 0..<min(8, bytes.count) { prefix |= UInt64(bytes[offset]) << (56 - 8 * UInt64(offset)) }
                return prefix
            }
        }
    }

    func flush() throws {
        guard !pending.isEmpty || !appended.isEmpty else { return }
        try takeReadAheads()
        let changes = takePending()
        for batch in changes.removed.batches {
            try send(Self.counting("""
                DELETE FROM kura_kv USING unnest($1::int4[], $2::bytea[]) AS gone(space, key)
                WHERE kura_kv.space = gone.space AND kura_kv.key = gone.key RETURNING kura_kv.space, -1 AS change
                """), batch.keyBindings)
        }
        let rewrites = try changes.existing.batches.map { batch in
            try sendQuery("""
                UPDATE kura_kv SET value = changed.value FROM unnest($1::int4[], $2::bytea[], $3::bytea[]) AS changed(space, key, value)
                WHERE kura_kv.space = changed.space AND kura_kv.key = changed.key
                """, batch.entryBindings)
        }
        // Keys not known to be stored (new ones, and puts of keys not read
        // ahead: mostly index and relationship entries of new objects) are
        // inserted as they are, which costs the server about two thirds of
        // an insert that checks each key, inside a savepoint: when one is
        // taken, the insert is undone and done again key by key. (Savepoints
        // are counted: past a few dozen in one transaction, PostgreSQL's
        // snapshots of every session slow down.)
        let plainInsert = !(changes.new.isEmpty && changes.stored.isEmpty) && savepoints < Self.mostSavepoints
        var insertions: [EventLoopFuture<PostgresQueryResult>] = []
        if plainInsert {
            savepoints += 1
            try send("SAVEPOINT kura_flush")
            insertions = try (changes.new.batches + changes.stored.batches).map { batch in
                try sendQuery("""
                    INSERT INTO kura_kv (space, key, value) SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])
                    """, batch.entryBindings)
            }
            // Each statement inserts every key or fails: the counts are
            // known here, and added in one statement (counting the rows on
            // the server made the inserts about a tenth slower).
            // (In the spaces' order, as every writer locks their rows.)
            let added = changes.new.countsBySpace.merging(changes.stored.countsBySpace, uniquingKeysWith: +).sorted { $0.key < $1.key }
            var binds = PostgresBindings()
            binds.append(added.map { Int32(bitPattern: $0.key) })
            binds.append(added.map { Int64($0.value) })
            insertions.append(try sendQuery("""
                UPDATE kura_spaces SET entries = entries + added.count
                FROM unnest($1::int4[], $2::int8[]) AS added(space, count) WHERE kura_spaces.number = added.space
                """, binds))
        } else {
            try sendUpserts(changes.stored)
            insertions = try changes.new.batches.map(sendNewKeysInsert)
        }
        try waitForSent()
        var rewritten = 0
        for rewrite in rewrites { rewritten += try wait(rewrite).metadata.rows ?? 0 }
        if rewritten != changes.existing.count {
            throw KuraError.storage(
                path: engine.location, failure: .engine(code: 0, message: "a key read in this transaction was gone when rewritten"))
        }
        // A taken key is reported once every other change is sent: the
        // transaction is then as if the put that met it had not happened.
        var taken: PendingKey?
        if plainInsert {
            do {
                // The first to fail is the one that met a taken key (those
                // after it fail because the transaction has).
                for insertion in insertions { _ = try wait(insertion) }
                try send("RELEASE SAVEPOINT kura_flush")
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                // A key was taken (unique_violation): undo the insert, find which.
                try send("ROLLBACK TO SAVEPOINT kura_flush")
                try send("RELEASE SAVEPOINT kura_flush")
                try sendUpserts(changes.stored)
                taken = try insertNewKeys(changes.allNewKeys, answers: try changes.new.batches.map(sendNewKeysInsert))
            }
        } else if !insertions.isEmpty {
            taken = try insertNewKeys(changes.allNewKeys, answers: insertions)
        }
        if let taken { throw StorageEngineError.keyExistsInSpace(StorageSpace(number: taken.space), key: taken.key) }
    }

    /// The savepoints a transaction may use for inserting new keys.
    static let mostSavepoints = 32

    /// Sends the puts of `stored`: each key inserted or its value replaced.
    private func sendUpserts(_ stored: KeyBatches) throws {
        for batch in stored.batches {
            try send(Self.counting("""
                INSERT INTO kura_kv (space, key, value) SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])
                ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value RETURNING space, (xmax = 0)::int4 AS change
                """), batch.entryBindings)
        }
    }

    /// Sends the insert of keys that must be new, each checked: one taken
    /// is left as it is, and not in the answer.
    private func sendNewKeysInsert(_ new: KeyBatch) throws -> EventLoopFuture<PostgresQueryResult> {
        try sendQuery(Self.counting("""
            INSERT INTO kura_kv (space, key, value) SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])
            ON CONFLICT (space, key) DO NOTHING RETURNING space, 1 AS change, key
            """, returningKeys: true), new.entryBindings)
    }

    /// Waits for the answers of ``sendNewKeysInsert(_:)``, and returns the
    /// first of `new` they didn't insert.
    private func insertNewKeys(_ new: [PendingKey], answers: [EventLoopFuture<PostgresQueryResult>]) throws -> PendingKey? {
        try waitForSent()
        var inserted = Set<PendingKey>()
        for answer in answers {
            for row in try wait(answer) {
                var columns = RowColumns(row)
                let space = UInt32(truncatingIfNeeded: try columns.requiredInteger())
                inserted.insert(PendingKey(space: space, key: Array(try columns.requiredBytes().readableBytesView)))
            }
        }
        return inserted.count < new.count ? new.first { !inserted.contains($0) } : nil
    }

    /// `change` (a statement returning `space` and `change` of each row)
    /// made to also add each space's changes to its count of entries in
    /// `kura_spaces`, on the server; it answers nothing, or with
    /// `returningKeys` each row's space and key.
    private static func counting(_ change: String, returningKeys: Bool = false) -> String {
        """
        WITH changed AS (\(change)),
        counted AS (
            UPDATE kura_spaces SET entries = entries + total.change
            FROM (SELECT space, sum(change) AS change FROM changed GROUP BY space) AS total
            WHERE kura_spaces.number = total.space AND total.change <> 0
        )
        \(returningKeys ? "SELECT space, key FROM changed" : "SELECT")
        """
    }

    func checkWritable() throws {
        if isReadOnly {
            throw KuraError.storage(path: engine.location, failure: .engine(code: 0, message: "a write in a read transaction"))
        }
    }
}
#endif
