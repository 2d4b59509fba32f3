// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import NIOCore
import PostgresNIO
import Synchronization

/// A transaction of a ``PostgresEngine`` on one connection: reads are
/// statements of its snapshot; writes wait in a buffer, one entry per key
/// (the last change wins), until a read or the commit sends them.
final class PostgresTransaction: RequestingStorageTransaction {
    let engine: PostgresEngine
    let pooled: PooledConnection
    var connection: PostgresConnection { pooled.connection }
    let isReadOnly: Bool
    /// The commit a write makes (the answer of its lock); 0 in a read, and
    /// in a write that checks what it expects (``expectations``) until it commits.
    var id: Int {
        if knownID == nil, let lockAnswer {
            // Answered by now: the store asks once its changes are sent.
            knownID = (try? wait(lockAnswer).first.flatMap(RowColumns.integer(of:))).flatMap { $0 }.map(Int.init) ?? 0
        }
        return knownID ?? 0
    }
    var knownID: Int?
    private var lockAnswer: EventLoopFuture<PostgresQueryResult>?

    /// A key's change waiting to be sent.
    struct Pending {
        /// The value it will have, or `nil` when it goes.
        var value: ByteBuffer?
        /// It must not exist before this transaction (a `.noOverwrite` put).
        var mustBeNew: Bool
        /// It is removed first, then (if `value`) stored anew.
        var removedFirst: Bool
    }

    struct PendingKey: Hashable {
        let space: UInt32
        let key: [UInt8]

        // The bytes at once (the synthesized hash combines them one by one).
        func hash(into hasher: inout Hasher) {
            hasher.combine(space)
            key.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    var pending: [PendingKey: Pending] = [:]
    /// New keys put in order with `.append`, by space (see ``AppendedRun``).
    var appended: [UInt32: AppendedRun] = [:]
    /// The rows whose bytes were lent: kept until the transaction ends, as
    /// an LMDB snapshot keeps its pages (a fetch holds views of its records).
    var lent: [ByteBuffer] = []
    /// Values read ahead (``prefetch(keys:in:)``), `nil` for absent keys:
    /// what is stored, which no other writer changes while this one holds
    /// the lock (and a read's snapshot never changes).
    var prefetched: [PendingKey: ByteBuffer?] = [:]
    /// The entries of ranges read ahead (``prefetch(ranges:in:)``), in key
    /// order, by range: a read transaction's only.
    var prefetchedRanges: [RangeKey: [(key: ByteBuffer, value: ByteBuffer)]] = [:]

    /// A read of one request outside a transaction: a second request
    /// throws ``SecondRequest`` (the engine runs the read again in a transaction).
    private let singleRequest: Bool
    private var requests = 0

    /// A single-request read made a second request.
    struct SecondRequest: Error {}

    /// A write that may check values instead of reading them
    /// (``beginRewriting(_:)``).
    let mayExpect: Bool
    /// What a write that checks instead of reading expects stored: while
    /// set, it sends nothing, and its commit is one statement.
    var expectations: Expectations?
    /// Records an earlier attempt of the same write found other than expected.
    var corrections: [PendingKey: ByteBuffer?] = [:]

    init(engine: PostgresEngine, connection: PooledConnection, isReadOnly: Bool, singleRequest: Bool = false, mayExpect: Bool = false) {
        self.engine = engine
        pooled = connection
        self.isReadOnly = isReadOnly
        knownID = isReadOnly ? 0 : nil
        self.singleRequest = singleRequest
        self.mayExpect = mayExpect
    }

    /// The `BEGIN` sent ahead of the first statement, until it is answered.
    private var begin: EventLoopFuture<PostgresQueryResult>?
    /// Statements sent and not yet answered, in the order sent. The
    /// connection runs its statements in order, so the first statement
    /// waited for after them also waits for them, in the same round trip:
    /// their failure is its failure.
    private var unanswered: [EventLoopFuture<PostgresQueryResult>] = []
    /// Each space's count of entries in a read's snapshot, asked for with
    /// its `BEGIN` (the planner asks for a count in nearly every read).
    private var snapshotCounts: EventLoopFuture<PostgresQueryResult>?
    private var knownCounts: [UInt32: Int]?

    /// Sends, ahead of the commit, the statement that marks this write's
    /// number in its connection's row of `kura_saves` (answered with the
    /// commit; see ``markSaveFunction``).
    func sendWriteNumber() throws {
        pooled.writes += 1
        unanswered.append(try sendPrepared("SELECT kura_mark_save($1, $2)", [.bytes(pooled.writer), .integer(Int(pooled.writes))]))
    }

    /// `kura_mark_save(writer, number)`: a write's last statement before its
    /// commit stores its number in its writer's row of `kura_saves`, unless
    /// a connection asking whether it committed fenced it
    /// (``fenceSaveFunction``): then it fails (SQLSTATE `KR002`), and the
    /// write never commits. The row stays locked until the write ends.
    static let markSaveFunction = """
        CREATE OR REPLACE FUNCTION kura_mark_save(save_writer bytea, save_number int8) RETURNS void
        LANGUAGE plpgsql AS $kura$
        BEGIN
            INSERT INTO kura_saves AS saves (writer, save) VALUES (save_writer, save_number)
                ON CONFLICT (writer) DO UPDATE SET save = EXCLUDED.save, at = now() WHERE saves.fence < EXCLUDED.save;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'this save was given up for lost by its process' USING ERRCODE = 'KR002';
            END IF;
        END
        $kura$
        """

    /// `kura_fence_save(writer, number, wait)`: after a lost commit answer,
    /// fences the write's number (``markSaveFunction``) and answers the last
    /// number the writer committed. A write that marked holds the row: the
    /// fence waits for it to end, for at most `wait` milliseconds
    /// (SQLSTATE 55P03 then).
    static let fenceSaveFunction = """
        CREATE OR REPLACE FUNCTION kura_fence_save(save_writer bytea, save_number int8, wait int8) RETURNS TABLE (committed int8)
        LANGUAGE plpgsql AS $kura$
        BEGIN
            PERFORM set_config('lock_timeout', wait::text, true);
            RETURN QUERY INSERT INTO kura_saves AS saves (writer, save, fence) VALUES (save_writer, 0, save_number)
                ON CONFLICT (writer) DO UPDATE SET fence = greatest(saves.fence, EXCLUDED.fence), at = now()
                RETURNING saves.save;
        END
        $kura$
        """

    /// Waits for `answer`, which fails within a couple of seconds once the
    /// connection is seen closed (see ``EventLoopFuture/waitForAnswer(within:unlessClosed:)``).
    func wait<Value>(_ answer: EventLoopFuture<Value>) throws -> Value {
        let value = try answer.waitForAnswer(unlessClosed: { [connection] in connection.isClosed })
        wasAnswered = true
        return value
    }

    /// Whether the server answered a statement of this transaction: once it
    /// has, the connection was alive when the transaction began, and its
    /// loss is the transaction's, not a connection ended while idle.
    private(set) var wasAnswered = false

    /// Sends one statement and returns its answer to come. Its errors stay
    /// PostgreSQL's: the engine turns them into Kura's where the
    /// transaction ends, and there tells a lost connection from an SQL error.
    func sendQuery(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> EventLoopFuture<PostgresQueryResult> {
        try beforeSending()
        return connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: engine.logger)
    }

    /// Sends `sql` as a statement the connection keeps prepared
    /// (``PooledConnection``): `EXECUTE` of it, with `arguments` written
    /// into the `EXECUTE` (which can't take parameters of its own).
    func sendPrepared(_ sql: String, _ arguments: [SQLLiteral] = []) throws -> EventLoopFuture<PostgresQueryResult> {
        try sendPrepared(.text(sql), sql: { sql }, arguments)
    }

    /// Sends the statement `sql` makes, prepared under `key` (which
    /// stands for that statement: its text is made only to prepare it).
    func sendPrepared(
        _ key: PooledConnection.Key, sql: () -> String, _ arguments: [SQLLiteral]
    ) throws -> EventLoopFuture<PostgresQueryResult> {
        try beforeSending()
        guard pooled.preparesStatements else {
            // Through a pooler in transaction mode: unnamed, parsed each time.
            return connection.query(PostgresQuery(unsafeSQL: sql(), binds: SQLLiteral.bindings(arguments)), logger: engine.logger)
        }
        let name = try pooled.prepare(key) {
            let sql = sql()
            // The first time on this connection: prepared after what was
            // sent before (whose failure, a failed BEGIN, comes first).
            let preparing = connection.query(PostgresQuery(unsafeSQL: "PREPARE \($0) AS \(sql)"), logger: engine.logger)
            try waitForSent()
            _ = try wait(preparing)
        }
        return connection.query(PostgresQuery(unsafeSQL: SQLLiteral.execute(name, arguments)), logger: engine.logger)
    }

    /// Runs a statement the connection keeps prepared (see ``sendPrepared(_:_:)``).
    func executePrepared(_ sql: String, _ arguments: [SQLLiteral] = []) throws -> PostgresQueryResult {
        try executePrepared(.text(sql), sql: { sql }, arguments)
    }

    /// Runs the statement `sql` makes, prepared under `key` (see ``sendPrepared(_:sql:_:)``).
    func executePrepared(
        _ key: PooledConnection.Key, sql: () -> String, _ arguments: [SQLLiteral]
    ) throws -> PostgresQueryResult {
        let answer = try sendPrepared(key, sql: sql, arguments)
        try waitForSent()
        return try wait(answer)
    }

    /// What goes before any statement: a check that one may go, the
    /// transaction's `BEGIN` and lock when not sent yet, the count.
    func beforeSending() throws {
        if expectations != nil { throw Unexpected() }
        hasSent = true
        if needsBegin {
            needsBegin = false
            engine.statementsSent.add(1, ordering: .relaxed)
            begin = connection.query(PostgresQuery(unsafeSQL: "BEGIN"), logger: engine.logger)
            sendPlannerSettings()
        }
        if needsLock { try sendLock(notifying(Self.writersLock(shared: false))) }
        requests += 1
        if singleRequest && requests > 1 { throw SecondRequest() }
        engine.statementsSent.add(1, ordering: .relaxed)
    }

    /// Runs one statement: sends it, then waits for what was sent before
    /// it and for its own answer.
    @discardableResult
    func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> PostgresQueryResult {
        let answer = try sendQuery(sql, binds)
        try waitForSent()
        return try wait(answer)
    }

    /// Sends one statement whose answer the next ``execute(_:_:)`` waits for.
    func send(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws {
        unanswered.append(try sendQuery(sql, binds))
    }

    /// Sends the transaction's `BEGIN` without waiting: its failure (a
    /// connection lost while idle) is a ``PostgresEngine/NothingKept``
    /// when the first statement waits for it. A read's `BEGIN` comes with a
    /// statement reading every space's count of entries, which then takes
    /// the read's snapshot.
    func sendBegin(_ sql: String, readingCounts: Bool) throws {
        begin = try sendQuery(sql)
        sendPlannerSettings()
        if readingCounts {
            let counts = try sendPrepared("SELECT number, entries FROM kura_spaces")
            snapshotCounts = counts
            unanswered.append(counts)
        }
    }

    /// Through a pooler in transaction mode, the planner's settings the
    /// session would have (``PostgresEngine/plannerSettings(local:)``), for
    /// this transaction: sent after its `BEGIN`, answered with what follows.
    private func sendPlannerSettings() {
        guard !pooled.preparesStatements else { return }
        unanswered.append(connection.query(
            PostgresQuery(unsafeSQL: "SELECT \(PostgresEngine.plannerSettings(local: true))"), logger: engine.logger))
    }

    /// Waits for the statements sent ahead, `BEGIN` first.
    func waitForSent() throws {
        if let begin {
            self.begin = nil
            do {
                _ = try wait(begin)
            } catch {
                throw PostgresEngine.NothingKept(error: error)
            }
        }
        while !unanswered.isEmpty {
            _ = try wait(unanswered.removeFirst())
        }
    }

    /// Waits for the statements sent ahead, whatever their answers: before
    /// a rollback, which undoes them.
    func discardUnanswered() {
        begin = nil
        for answer in unanswered { _ = try? wait(answer) }
        unanswered.removeAll()
    }

    /// Whether a statement went out (a transaction that sent none needs no `ROLLBACK`).
    private(set) var hasSent = false

    /// A write whose `BEGIN` and lock aren't sent yet: its first statement sends them.
    private var needsBegin = false
    private var needsLock = false

    /// Makes the write's first statement go after a `BEGIN` and take the
    /// writers' lock for the whole store, alone, unless
    /// the transaction declares first that it only rewrites records
    /// (``beginRewriting(_:)``).
    func beginBeforeFirstStatement() {
        needsBegin = true
        needsLock = true
    }

    /// No `BEGIN` and no lock: the commit is one statement (``expect(_:locking:)``).
    func sendsNothingBeforeCommit() {
        needsBegin = false
        needsLock = false
    }

    /// Sends `sql`, which takes the writers' lock and answers the commit's
    /// number, answered with the next statement: the server runs what
    /// follows once the lock is held.
    private func sendLock(_ sql: String) throws {
        needsLock = false
        let answer = try sendQuery(sql)
        lockAnswer = answer
        unanswered.append(answer)
    }

    /// A statement that takes the writers' lock (a transaction-level
    /// advisory lock: in the server's memory, no row written), shared or
    /// alone, then answers the commit's number as `id`.
    static func writersLock(shared: Bool) -> String {
        let lock = shared ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"
        return "SELECT nextval('kura_commit_ids') AS id FROM (SELECT \(lock)(\(PostgresEngine.writersLock))) AS locked"
    }

    /// `lock` (which answers the commit's number as `id`) made to also
    /// send `NOTIFY kura_commit` with it and the engine's mark, which
    /// PostgreSQL delivers when (and only if) the transaction commits: one
    /// statement less per save.
    private func notifying(_ lock: String) -> String {
        """
        WITH commit AS (\(lock)) SELECT commit.id FROM commit,
        LATERAL (SELECT pg_notify('kura_commit', commit.id::text || ' \(engine.commitMark)')) AS notified
        """
    }

    /// Writes that only rewrite records share the writers' lock (any
    /// number at once, none beside a write that holds it alone) and lock
    /// their records (`FOR UPDATE`, in
    /// the order given), whose values they read ahead: the values are then
    /// what the last commit of each record wrote, so a save's row-version
    /// check sees every earlier commit of what it changes.
    ///
    /// A write that may (the first attempt of a save) and is given every
    /// record's value checks them instead (``expect(_:locking:)``).
    func beginRewriting(_ rewrite: () throws -> RewritePlan) throws {
        let plan = try rewrite()
        guard needsLock else {
            for (space, keys) in plan.keys { try prefetch(keys: keys, in: space) }
            return
        }
        if mayExpect, try expect(plan.expected, locking: plan.keys) { return }
        try sendLock(notifying(Self.writersLock(shared: true)))
        for (space, keys) in plan.keys { try prefetch(keys: keys, in: space, lockingThem: true) }
    }

    /// Sends the plan's key reads (one statement per space, all with the
    /// transaction's next request) and reads its ranges.
    func readAhead(_ plan: ReadPlan) throws {
        for (space, keys) in plan.keys { try prefetch(keys: keys, in: space) }
        for (space, ranges) in plan.ranges { try prefetch(ranges: ranges, in: space) }
    }

    // MARK: Spaces

    func openSpace(named name: String) throws -> StorageSpace? {
        try flush()
        if engine.isReadOnly, try !tablesExist() { return nil }
        var binds = PostgresBindings()
        binds.append(name)
        return try execute("SELECT number FROM kura_spaces WHERE name = $1", binds).first
            .map { StorageSpace(number: UInt32(try $0.decode(Int32.self))) }
    }

    func createSpace(named name: String) throws -> StorageSpace {
        if let space = try openSpace(named: name) { return space }
        try checkWritable()
        var binds = PostgresBindings()
        binds.append(name)
        let number = try execute("INSERT INTO kura_spaces (name) VALUES ($1) RETURNING number", binds).first?.decode(Int32.self) ?? 0
        return StorageSpace(number: UInt32(number))
    }

    func isEmpty() throws -> Bool {
        try flush()
        if engine.isReadOnly, try !tablesExist() { return true }
        return try execute("SELECT NOT EXISTS (SELECT 1 FROM kura_spaces)").first?.decode(Bool.self) ?? true
    }

    /// Whether Kura's tables are in the database: a read-only engine makes
    /// none, and finds a database without them empty.
    private func tablesExist() throws -> Bool {
        try execute("SELECT to_regclass('kura_spaces') IS NOT NULL").first?.decode(Bool.self) ?? false
    }

    func count(in space: StorageSpace) throws -> Int {
        if let snapshotCounts {
            if knownCounts == nil {
                try waitForSent()
                var counts: [UInt32: Int] = [:]
                for row in try wait(snapshotCounts) {
                    var columns = RowColumns(row)
                    let number = try columns.requiredInteger()
                    counts[UInt32(truncatingIfNeeded: number)] = Int(try columns.requiredInteger())
                }
                knownCounts = counts
                engine.recentCounts.remember(counts)
            }
            return knownCounts?[space.number] ?? 0
        }
        try flush()
        let row = try executePrepared("SELECT entries FROM kura_spaces WHERE number = $1", [.space(space)]).first
        return Int(try row.map(RowColumns.requiredInteger(of:)) ?? 0)
    }

    /// A read of one request plans with the counts a recent read saw (so
    /// planning costs no request), or, when none is recent, runs as a
    /// transaction, which reads them; other transactions count.
    func estimatedCount(in space: StorageSpace) throws -> Int {
        guard singleRequest else { return try count(in: space) }
        guard let counts = engine.recentCounts.counts() else { throw SecondRequest() }
        return counts[space.number] ?? 0
    }

    // MARK: Reading

    /// Read-aheads sent and not yet taken into ``prefetched``.
    var readAheads: [(space: UInt32, keys: [[UInt8]], answer: EventLoopFuture<PostgresQueryResult>)] = []
    /// Savepoints used so far for inserting keys unchecked (see ``flush()``).
    var savepoints = 0

    /// Takes the answers of the read-aheads sent into ``prefetched``.
    func takeReadAheads() throws {
        guard !readAheads.isEmpty else { return }
        let sent = readAheads
        readAheads.removeAll()
        try waitForSent()
        for (space, keys, answer) in sent {
            for row in try wait(answer) {
                var columns = RowColumns(row)
                let position = try columns.requiredInteger()
                let value = try columns.requiredBytes()
                guard position >= 1 && position <= keys.count else { continue }
                prefetched[PendingKey(space: space, key: keys[Int(position) - 1])] = value
            }
        }
    }

    func prefetch(keys: [[UInt8]], in space: StorageSpace) throws {
        try prefetch(keys: keys, in: space, lockingThem: false)
    }

    private func prefetch(keys: [[UInt8]], in space: StorageSpace, lockingThem: Bool) throws {
        // Keys known already aren't asked for again (unless to lock them).
        let keys = lockingThem ? keys : keys.filter { prefetched[PendingKey(space: space.number, key: $0)] == nil }
        guard !keys.isEmpty else { return }
        try flush()
        var array = BinaryArray.bytea()
        for key in keys {
            array.append(key)
            prefetched[PendingKey(space: space.number, key: key)] = .some(nil)
        }
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        binds.append(array)
        // Each key's position comes back, not the key. Answered when a
        // read needs what is known (with the next statement waited for).
        let answer = try sendQuery("""
            SELECT wanted.position, kura_kv.value FROM unnest($2::bytea[]) WITH ORDINALITY AS wanted(key, position)
            JOIN kura_kv ON kura_kv.space = $1 AND kura_kv.key = wanted.key
            """ + (lockingThem ? " ORDER BY wanted.position FOR UPDATE OF kura_kv" : ""), binds)
        unanswered.append(answer)
        readAheads.append((space.number, keys, answer))
    }

    func visitValue(
        forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        // A key this transaction changed, or read ahead, is known here.
        try takeReadAheads()
        // (A key of a run of appended keys is in neither: the flush below sends it.)
        if !pending.isEmpty || !prefetched.isEmpty {
            let known = PendingKey(space: space.number, key: Array(key))
            if let change = pending[known] {
                guard let value = change.value else { return false }
                lent.append(value)
                try value.withUnsafeReadableBytes(body)
                return true
            }
            if let stored = prefetched[known] {
                guard let value = stored else { return false }
                lent.append(value)
                try value.withUnsafeReadableBytes(body)
                return true
            }
        }
        try flush()
        let arguments: [SQLLiteral] = [.space(space), .bytes(Array(key))]
        let found = try executePrepared("SELECT value FROM kura_kv WHERE space = $1 AND key = $2", arguments).first
            .map(RowColumns.requiredBytes(of:))
        // A read's snapshot answers a key the same way to its end: a key
        // read again (a destination many records share) isn't asked again.
        if isReadOnly { prefetched[PendingKey(space: space.number, key: Array(key))] = .some(found) }
        guard let value = found else { return false }
        lent.append(value)
        try value.withUnsafeReadableBytes(body)
        return true
    }

    func visitJoined(
        forKey key: UnsafeRawBufferPointer, in index: StorageSpace, records: StorageSpace,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Void
    ) throws -> Bool {
        try flush()
        let arguments: [SQLLiteral] = [.space(index), .bytes(Array(key)), .space(records)]
        let sql = """
            SELECT i.value, r.value FROM kura_kv i LEFT JOIN kura_kv r ON r.space = $3 AND r.key = i.value
            WHERE i.space = $1 AND i.key = $2
            """
        guard let row = try executePrepared(sql, arguments).first else { return false }
        var columns = RowColumns(row)
        let value = try columns.requiredBytes()
        let record = try columns.bytes()
        lent.append(value)
        if let record { lent.append(record) }
        try value.withUnsafeReadableBytes { value in
            if let record {
                try record.withUnsafeReadableBytes { try body(value, $0) }
            } else {
                try body(value, nil)
            }
        }
        return true
    }

    func forEach(in space: StorageSpace, range: KeyRange, direction: IterationDirection, _ body: (StorageEntry) throws -> Bool) throws {
        try forEach(in: space, range: range, direction: direction, readAhead: nil, body)
    }

    func forEach(
        in space: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?,
        _ body: (StorageEntry) throws -> Bool
    ) throws {
        if try walkReadAhead(space, range, direction, body) { return }
        try pages(.entries, spaces: [space], range: range, direction: direction, readAhead: readAhead) { key, value, _ in
            try body(StorageEntry(key: key, value: value))
        }
    }

    func forEachJoined(
        in index: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?, records: StorageSpace,
        _ body: (StorageEntry, UnsafeRawBufferPointer?) throws -> Bool
    ) throws {
        try pages(.joined, spaces: [index, records], range: range, direction: direction, readAhead: readAhead) { key, value, record in
            try body(StorageEntry(key: key, value: value), record)
        }
    }

    /// The most rows one page of a walk asks for: a walk of a whole large
    /// space is a few requests, not one answer held in memory at once.
    static let largestPage = 65_536
    /// The most rows a prepared walk reads (see ``pages(_:spaces:range:direction:readAhead:_:)``).
    static let largestPreparedWalk = 1_024

    /// Reads the rows of `source` (from the `spaces`) over `range` in
    /// pages until `body` returns false. The first page is `readAhead` rows
    /// (128 when the caller can't tell: a few more than the limits apps use
    /// most), then each is twice the last, so a walk that needs a few rows
    /// past its guess fetches few more.
    private func pages(
        _ source: PageStatement.Source, spaces: [StorageSpace], range: KeyRange, direction: IterationDirection,
        readAhead: Int?, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Bool
    ) throws {
        try flush()
        if singleRequest && readAhead == .max,
           spaces.first.flatMap({ engine.recentCounts.counts()?[$0.number] }).map({ $0 >= Self.largestPage }) ?? true {
            // A whole range that may not fit one page: a transaction from the start.
            throw SecondRequest()
        }
        var after: [UInt8]?
        var limit = min(max(readAhead ?? 128, 1), Self.largestPage)
        // A walk of a small space, or a page of a few rows, is prepared
        // (planned once per connection: most of a short walk's time on the
        // server is planning it). Others are planned for the bounds and the
        // limit at hand: a generic plan read large ranges slower.
        let entries = spaces.first.flatMap { knownCounts?[$0.number] ?? engine.recentCounts.counts()?[$0.number] }
        if let entries, entries < Self.largestPreparedWalk { limit = min(limit, Self.largestPreparedWalk) }
        while true {
            let statement = PageStatement(source: source, range: range, resuming: after != nil, direction: direction)
            // The keys bounding the page, in the statement's order.
            let bounds = [range.lower?.key, range.upper?.key, after].compactMap { $0 }
            let rows: PostgresQueryResult
            if limit <= Self.largestPreparedWalk {
                var arguments: [SQLLiteral] = []
                arguments.reserveCapacity(spaces.count + bounds.count + 1)
                for space in spaces { arguments.append(.space(space)) }
                for bound in bounds { arguments.append(.bytes(bound)) }
                arguments.append(.integer(limit))
                rows = try executePrepared(.page(statement), sql: { statement.sql + " LIMIT $\(arguments.count)" }, arguments)
            } else {
                var binds = PostgresBindings()
                for space in spaces { binds.append(Int32(bitPattern: space.number)) }
                for bound in bounds { binds.append(ByteBuffer(bytes: bound)) }
                rows = try execute(statement.sql + " LIMIT \(limit)", binds)
            }
            var count = 0
            var last: ByteBuffer?
            for row in rows {
                count += 1
                var columns = RowColumns(row)
                let key = try columns.requiredBytes()
                let value = try columns.requiredBytes()
                let record = try columns.bytes()
                lent.append(key)
                lent.append(value)
                if let record {
                    lent.append(record)
                    // A writer holds the lock: what it read stays what is stored (its own
                    // writes update it), so the batch that walked an index range to find
                    // its records doesn't ask for them again.
                    if !isReadOnly { prefetched[PendingKey(space: spaces[1].number, key: Array(value.readableBytesView))] = .some(record) }
                }
                let goOn = try key.withUnsafeReadableBytes { key in
                    try value.withUnsafeReadableBytes { value in
                        if let record {
                            return try record.withUnsafeReadableBytes { try body(key, value, $0) }
                        }
                        return try body(key, value, nil)
                    }
                }
                guard goOn else { return }
                last = key
            }
            if count < limit { return }
            after = last.map { Array($0.readableBytesView) }
            limit = min(limit * 2, Self.largestPage)
        }
    }

    func visitCursor(in space: StorageSpace, _ body: (any StorageCursor) throws -> Void) throws {
        try body(KeyedCursor(transaction: self, space: space))
    }
}
#endif
