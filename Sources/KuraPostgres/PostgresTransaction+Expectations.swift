// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore
import PostgresNIO

/// A save that rewrites records its context read: it checks, at commit,
/// that what it read is still stored, instead of reading it again. The
/// transaction sends nothing until then, and commits in one statement
/// (`kura_rewrite`, a function the engine installs) outside `BEGIN` and
/// `COMMIT`: a fetch, a change and a save cost two statements, as they do
/// written by hand.
extension PostgresTransaction {
    /// What a write expects stored, by the check that makes sure of it.
    struct Expectations {
        /// The records it rewrites, locked `FOR UPDATE` in this order.
        var locked = KeyBatch()
        var lockedKeys: [PendingKey] = []
        /// Other values, which only a write holding the store alone changes.
        var present = KeyBatch()
        /// Keys that must be absent.
        var absent = KeyBatch()
    }

    /// The transaction needed the server before its commit, or what it
    /// expected is not what is stored: nothing of it was written. The body
    /// runs again, expecting what is stored instead (`found`: the records
    /// that differ, `nil` for one gone), or in a transaction that reads
    /// (`found` is `nil`).
    struct Unexpected: Error {
        var found: [PendingKey: ByteBuffer?]? = nil
    }

    /// The most records a save checks instead of reading: one statement
    /// carries each record twice (as read and as written).
    static let mostExpectedRecords = KeyBatches.size

    /// Takes `expected` as what is stored (with what an earlier attempt
    /// found instead, ``corrections``), when it holds a value for each of
    /// the records `locking` lists (and there aren't too many): returns
    /// false, changing nothing, otherwise.
    func expect(_ expected: [ExpectedValue], locking records: [(space: StorageSpace, keys: [[UInt8]])]) throws -> Bool {
        let count = records.reduce(0) { $0 + $1.keys.count }
        guard !expected.isEmpty, count <= Self.mostExpectedRecords else { return false }
        var values: [PendingKey: ByteBuffer?] = [:]
        values.reserveCapacity(expected.count)
        for value in expected {
            // (updateValue: an absent key's `nil` is kept, not a removal.)
            values.updateValue(value.value.map { ByteBuffer(bytes: $0) }, forKey: PendingKey(space: value.space.number, key: value.key))
        }
        for (key, found) in corrections where values[key] != nil { values.updateValue(found, forKey: key) }
        var expectations = Expectations()
        var lockedKeys = Set<PendingKey>()
        for (space, keys) in records {
            for key in keys {
                let pendingKey = PendingKey(space: space.number, key: key)
                guard case .some(.some(let value)) = values[pendingKey] else { return false }
                expectations.locked.append(space: space.number, key: key, value: value)
                expectations.lockedKeys.append(pendingKey)
                lockedKeys.insert(pendingKey)
            }
        }
        for (key, value) in values where !lockedKeys.contains(key) {
            if let value {
                expectations.present.append(space: key.space, key: key.key, value: value)
            } else {
                expectations.absent.append(space: key.space, key: key.key)
            }
        }
        prefetched.merge(values) { _, expected in expected }
        self.expectations = expectations
        sendsNothingBeforeCommit()
        return true
    }

    /// Commits a write that checks what it expects: one statement, in a
    /// transaction of its own, which also stores the write's number in the
    /// connection's row of `kura_saves`; `sending` hears of the write just
    /// before the statement goes. Throws ``Unexpected`` when the server
    /// found records other than the ones expected (with them), or another
    /// value, a taken key, or no `kura_rewrite` (its other errors, too, are
    /// met again by a run of the body that reads).
    func commitExpected(sending: (PostgresEngine.WriteInDoubt) -> Void) throws {
        guard let expectations else { return }
        self.expectations = nil
        let changes = takePending()
        var inserted = changes.new.all
        inserted.append(contentsOf: changes.stored.all)
        let removed = changes.removed.all
        let rewritten = changes.existing.all
        var arrays: [BinaryArray] = []
        arrays.reserveCapacity(16)
        let arguments = [
            (expectations.locked, true), (expectations.present, true), (expectations.absent, false),
            (removed, false), (rewritten, true), (inserted, true),
        ]
        for (batch, withValues) in arguments {
            arrays.append(batch.spaces)
            arrays.append(batch.keys)
            if withValues { arrays.append(batch.values) }
        }
        pooled.writes += 1
        let binds = [PostgresData(string: engine.commitMark), PostgresData(bytes: pooled.writer), PostgresData(int64: pooled.writes)]
            + BinaryArray.postgresData(arrays)
        let rows: [PostgresRow]
        do {
            guard pooled.preparesStatements else {
                // Through a pooler in transaction mode: unnamed, parsed each time.
                try beforeSending()
                sending(PostgresEngine.WriteInDoubt(connection: pooled, isOneStatement: true))
                rows = try wait(connection.query(Self.rewriteCall, binds)).rows
                return try answer(rows, expectations)
            }
            let call = try preparedRewrite()
            try beforeSending()
            sending(PostgresEngine.WriteInDoubt(connection: pooled, isOneStatement: true))
            rows = try wait(call.execute(binds))
        } catch let error as PSQLError where error.code == .server {
            pooled.rewrite = nil
            throw Unexpected()
        } catch PostgresError.server {
            // (PostgresNIO's prepared queries report PostgreSQL's errors so.)
            pooled.rewrite = nil
            throw Unexpected()
        }
        try answer(rows, expectations)
    }

    /// Reads `kura_rewrite`'s answer: the commit's number, or what differed.
    private func answer(_ rows: [PostgresRow], _ expectations: Expectations) throws {
        var found: [PendingKey: ByteBuffer?] = [:]
        for row in rows {
            var columns = RowColumns(row)
            let commit = try columns.integer()
            let position = try columns.integer()
            let stored = try columns.bytes()
            if let commit {
                knownID = Int(commit)
                return
            }
            guard let position, position >= 1 && position <= expectations.locked.count else { continue }
            found.updateValue(stored, forKey: expectations.lockedKeys[Int(position) - 1])
        }
        throw Unexpected(found: found)
    }

    /// `SELECT * FROM kura_rewrite($1, …, $19)`: the mark, the write's
    /// connection and number, then each batch's arrays (``commitExpected(sending:)`` binds them).
    static let rewriteCall = "SELECT * FROM kura_rewrite(" + (1...19).map { "$\($0)" }.joined(separator: ", ") + ")"

    /// ``rewriteCall``, prepared on the connection the first time it is
    /// used there: the server parses and plans the call once instead of at
    /// every save (about 30 µs of the server's time a save, measured with
    /// `pgbench -M prepared` against `-M extended`).
    private func preparedRewrite() throws -> PreparedQuery {
        if let prepared = pooled.rewrite { return prepared }
        let prepared = try wait(connection.prepare(query: Self.rewriteCall))
        pooled.rewrite = prepared
        return prepared
    }

    /// `kura_rewrite`: the commit of a write that checks what it expects.
    /// It takes the writers' lock shared, locks the records in the order
    /// given and checks that each holds the value expected (`FOR UPDATE`
    /// sees the last commit of a row), checks the other values, then
    /// removes, rewrites and inserts (a taken key fails the statement),
    /// keeps the spaces' counts, marks the write's number in its
    /// connection's row of `kura_saves` (``markSaveFunction``), and notifies as every commit does;
    /// it answers the commit's number. When records differ from the ones
    /// expected it writes nothing and answers what they are instead (their
    /// positions, and values, `NULL` when gone). SQLSTATE `KR001`: another
    /// value was not the one expected.
    static let rewriteFunction = """
        CREATE OR REPLACE FUNCTION kura_rewrite(
            mark text, save_writer bytea, save_number int8,
            locked_spaces int4[], locked_keys bytea[], locked_values bytea[],
            present_spaces int4[], present_keys bytea[], present_values bytea[],
            absent_spaces int4[], absent_keys bytea[],
            removed_spaces int4[], removed_keys bytea[],
            rewritten_spaces int4[], rewritten_keys bytea[], rewritten_values bytea[],
            inserted_spaces int4[], inserted_keys bytea[], inserted_values bytea[]
        ) RETURNS TABLE (commit_number int8, mismatched int8, stored_value bytea)
        LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan
            SET enable_hashjoin = off SET enable_mergejoin = off SET enable_bitmapscan = off SET enable_memoize = off AS $kura$
        DECLARE
            commit_id int8;
            matching int8;
            removed_from int4[];
            inserted_into int4[];
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(\(PostgresEngine.writersLock));
            commit_id := nextval('kura_commit_ids');
            SELECT count(*) INTO matching FROM (
                SELECT FROM unnest(locked_spaces, locked_keys, locked_values) WITH ORDINALITY AS e(space, key, value, position)
                JOIN kura_kv ON kura_kv.space = e.space AND kura_kv.key = e.key AND kura_kv.value = e.value
                ORDER BY e.position FOR UPDATE OF kura_kv) AS locked;
            IF matching <> cardinality(locked_keys) THEN
                RETURN QUERY SELECT NULL::int8, e.position, kura_kv.value
                    FROM unnest(locked_spaces, locked_keys, locked_values) WITH ORDINALITY AS e(space, key, value, position)
                    LEFT JOIN kura_kv ON kura_kv.space = e.space AND kura_kv.key = e.key
                    WHERE kura_kv.value IS DISTINCT FROM e.value;
                RETURN;
            END IF;
            IF cardinality(present_keys) > 0 THEN
                SELECT count(*) INTO matching FROM unnest(present_spaces, present_keys, present_values) AS e(space, key, value)
                    JOIN kura_kv ON kura_kv.space = e.space AND kura_kv.key = e.key AND kura_kv.value = e.value;
                IF matching <> cardinality(present_keys) THEN
                    RAISE EXCEPTION 'a value changed since it was read' USING ERRCODE = 'KR001';
                END IF;
            END IF;
            IF cardinality(absent_keys) > 0 THEN
                IF EXISTS (SELECT FROM unnest(absent_spaces, absent_keys) AS e(space, key)
                           JOIN kura_kv ON kura_kv.space = e.space AND kura_kv.key = e.key) THEN
                    RAISE EXCEPTION 'a value changed since it was read' USING ERRCODE = 'KR001';
                END IF;
            END IF;
            IF cardinality(removed_keys) > 0 THEN
                WITH gone AS (
                    DELETE FROM kura_kv USING unnest(removed_spaces, removed_keys) AS e(space, key)
                    WHERE kura_kv.space = e.space AND kura_kv.key = e.key RETURNING kura_kv.space)
                SELECT array_agg(space) INTO removed_from FROM gone;
            END IF;
            IF cardinality(rewritten_keys) > 0 THEN
                UPDATE kura_kv SET value = e.value FROM unnest(rewritten_spaces, rewritten_keys, rewritten_values) AS e(space, key, value)
                    WHERE kura_kv.space = e.space AND kura_kv.key = e.key;
                GET DIAGNOSTICS matching = ROW_COUNT;
                IF matching <> cardinality(rewritten_keys) THEN
                    RAISE EXCEPTION 'a record was gone when rewritten' USING ERRCODE = 'KR001';
                END IF;
            END IF;
            IF cardinality(inserted_keys) > 0 THEN
                WITH added AS (
                    INSERT INTO kura_kv (space, key, value) SELECT * FROM unnest(inserted_spaces, inserted_keys, inserted_values)
                    RETURNING space)
                SELECT array_agg(space) INTO inserted_into FROM added;
            END IF;
            IF removed_from IS NOT NULL OR inserted_into IS NOT NULL THEN
                UPDATE kura_spaces SET entries = entries + total.change
                    FROM (SELECT space, sum(change) AS change FROM (
                        SELECT unnest(removed_from) AS space, -1 AS change
                        UNION ALL SELECT unnest(inserted_into), 1) AS changes GROUP BY space) AS total
                    WHERE kura_spaces.number = total.space AND total.change <> 0;
            END IF;
            PERFORM kura_mark_save(save_writer, save_number);
            PERFORM pg_notify('kura_commit', commit_id::text || ' ' || mark);
            RETURN QUERY SELECT commit_id, NULL::int8, NULL::bytea;
        END
        $kura$
        """
}
#endif
