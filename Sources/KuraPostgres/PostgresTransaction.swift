import Kura
import NIOCore
import PostgresNIO

/// A transaction of a ``PostgresEngine`` on one connection: reads are
/// statements of its snapshot; writes wait in a buffer, one entry per key
/// (the last change wins), until a read or the commit sends them.
final class PostgresTransaction: StorageTransaction, @unchecked Sendable {
    // @unchecked: used only by the thread it was lent to, as every
    // transaction the seam lends.
    let engine: PostgresEngine
    let connection: PostgresConnection
    let isReadOnly: Bool
    let id: Int

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
    }

    private var pending: [PendingKey: Pending] = [:]
    /// The rows whose bytes were lent: kept until the transaction ends, as
    /// an LMDB snapshot keeps its pages (a fetch holds views of its records).
    private var lent: [ByteBuffer] = []
    /// Values read ahead (``prefetch(keys:in:)``), `nil` for absent keys:
    /// what is stored, which no other writer changes while this one holds
    /// the lock (and a read's snapshot never changes).
    private var prefetched: [PendingKey: ByteBuffer?] = [:]

    var readsAreRequests: Bool { true }

    /// A read of one request outside a transaction: a second request
    /// throws ``SecondRequest`` (the engine runs the read again in a transaction).
    private let singleRequest: Bool
    private var requests = 0

    /// A single-request read made a second request.
    struct SecondRequest: Error {}

    init(engine: PostgresEngine, connection: PostgresConnection, isReadOnly: Bool, id: Int, singleRequest: Bool = false) {
        self.engine = engine
        self.connection = connection
        self.isReadOnly = isReadOnly
        self.id = id
        self.singleRequest = singleRequest
    }

    /// Runs one statement. Its errors stay PostgreSQL's: the engine turns
    /// them into Kura's where the transaction ends, and there tells a lost
    /// connection from an SQL error.
    @discardableResult
    func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> PostgresQueryResult {
        requests += 1
        if singleRequest && requests > 1 { throw SecondRequest() }
        return try connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: engine.logger).waitForAnswer()
    }

    /// Sends one statement without waiting for its answer.
    func send(_ sql: String) {
        connection.query(PostgresQuery(unsafeSQL: sql), logger: engine.logger).whenComplete { _ in }
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
        try flush()
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        return Int(try execute("SELECT entries FROM kura_spaces WHERE number = $1", binds).first?.decode(Int64.self) ?? 0)
    }

    // MARK: Reading

    func prefetch(keys: [[UInt8]], in space: StorageSpace) throws {
        try flush()
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        binds.append(keys.map { ByteBuffer(bytes: $0) })
        for key in keys { prefetched[PendingKey(space: space.number, key: key)] = .some(nil) }
        for row in try execute("SELECT key, value FROM kura_kv WHERE space = $1 AND key = ANY($2::bytea[])", binds) {
            let (key, value) = try row.decode((ByteBuffer, ByteBuffer).self)
            prefetched[PendingKey(space: space.number, key: Array(key.readableBytesView))] = value
        }
    }

    func visitValue(
        forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Bool {
        // A key this transaction changed, or read ahead, is known here.
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
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: space.number))
        binds.append(ByteBuffer(bytes: key))
        guard let row = try execute("SELECT value FROM kura_kv WHERE space = $1 AND key = $2", binds).first else { return false }
        let value = try row.decode(ByteBuffer.self)
        lent.append(value)
        try value.withUnsafeReadableBytes(body)
        return true
    }

    func visitJoined(
        forKey key: UnsafeRawBufferPointer, in index: StorageSpace, records: StorageSpace,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Void
    ) throws -> Bool {
        try flush()
        var binds = PostgresBindings()
        binds.append(Int32(bitPattern: index.number))
        binds.append(ByteBuffer(bytes: key))
        binds.append(Int32(bitPattern: records.number))
        let sql = """
            SELECT i.value, r.value FROM kura_kv i LEFT JOIN kura_kv r ON r.space = $3 AND r.key = i.value
            WHERE i.space = $1 AND i.key = $2
            """
        guard let row = try execute(sql, binds).first else { return false }
        let (value, record) = try row.decode((ByteBuffer, ByteBuffer?).self)
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

    func forEach(
        in space: StorageSpace, range: KeyRange, direction: IterationDirection, _ body: (StorageEntry) throws -> Bool
    ) throws {
        try pages(
            select: "SELECT key, value, NULL::bytea FROM kura_kv WHERE space = $1", column: "key",
            spaces: [space], range: range, direction: direction
        ) { key, value, _ in
            try body(StorageEntry(key: key, value: value))
        }
    }

    func forEachJoined(
        in index: StorageSpace, range: KeyRange, direction: IterationDirection, records: StorageSpace,
        _ body: (StorageEntry, UnsafeRawBufferPointer?) throws -> Bool
    ) throws {
        try pages(
            select: "SELECT i.key, i.value, r.value FROM kura_kv i LEFT JOIN kura_kv r ON r.space = $2 AND r.key = i.value WHERE i.space = $1",
            column: "i.key", spaces: [index, records], range: range, direction: direction
        ) { key, value, record in
            try body(StorageEntry(key: key, value: value), record)
        }
    }

    /// Runs `select` (which binds the `spaces` from `$1`) over `range` in
    /// pages that grow (128 rows, a few more than the limits apps use most,
    /// then twice as many each time, so a walk
    /// that needs a few rows past a limit fetches few more), until `body` returns false.
    private func pages(
        select: String, column: String, spaces: [StorageSpace], range: KeyRange, direction: IterationDirection,
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Bool
    ) throws {
        try flush()
        var after: [UInt8]?
        var limit = 128
        while true {
            var binds = PostgresBindings()
            for space in spaces { binds.append(Int32(bitPattern: space.number)) }
            var sql = select
            func bound(_ comparison: String, _ key: [UInt8]) {
                binds.append(ByteBuffer(bytes: key))
                sql += " AND \(column) \(comparison) $\(binds.count)"
            }
            if let lower = range.lower { bound(lower.isInclusive ? ">=" : ">", lower.key) }
            if let upper = range.upper { bound(upper.isInclusive ? "<=" : "<", upper.key) }
            if let after { bound(direction == .forward ? ">" : "<", after) }
            sql += " ORDER BY \(column) \(direction == .forward ? "ASC" : "DESC") LIMIT \(limit)"
            var count = 0
            for row in try execute(sql, binds) {
                count += 1
                let (key, value, record) = try row.decode((ByteBuffer, ByteBuffer, ByteBuffer?).self)
                lent.append(contentsOf: [key, value])
                if let record { lent.append(record) }
                let goOn = try key.withUnsafeReadableBytes { key in
                    try value.withUnsafeReadableBytes { value in
                        if let record {
                            return try record.withUnsafeReadableBytes { try body(key, value, $0) }
                        }
                        return try body(key, value, nil)
                    }
                }
                guard goOn else { return }
                after = Array(key.readableBytesView)
            }
            if count < limit { return }
            limit = min(limit * 2, 20_000)
        }
    }

    func visitCursor(in space: StorageSpace, _ body: (any StorageCursor) throws -> Void) throws {
        try body(KeyedCursor(transaction: self, space: space))
    }

    // MARK: Writing

    func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: StorageSpace, flags: PutFlags) throws {
        try checkWritable()
        if key.count > 511 { throw StorageEngineError.keyTooLong }
        let pendingKey = PendingKey(space: space.number, key: Array(key))
        let mustBeNew = flags.contains(.noOverwrite) || flags.contains(.append)
        var entry = pending[pendingKey] ?? Pending(value: nil, mustBeNew: false, removedFirst: false)
        if mustBeNew && entry.value != nil { throw StorageEngineError.keyExists }
        if pending[pendingKey] != nil && entry.value == nil && !entry.removedFirst {
            // Removed earlier in this transaction: what was stored is gone.
            entry.removedFirst = true
        }
        entry.value = ByteBuffer(bytes: value)
        if mustBeNew && !entry.removedFirst { entry.mustBeNew = true }
        pending[pendingKey] = entry
    }

    func delete(_ key: UnsafeRawBufferPointer, in space: StorageSpace) throws {
        try checkWritable()
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
            prefetched.removeAll()
            if !engine.isConnectionFailure(error) { _ = try? execute("ROLLBACK TO SAVEPOINT kura_nested") }
            throw error
        }
    }

    /// Sends the buffered changes: removals, then new keys (checked), then
    /// the rest, then each space's count of entries, in at most four statements.
    func flush() throws {
        guard !pending.isEmpty else { return }
        let changes = pending
        pending.removeAll()
        for (key, change) in changes where prefetched[key] != nil { prefetched[key] = .some(change.value) }
        var removed: (spaces: [Int32], keys: [ByteBuffer]) = ([], [])
        var new: (spaces: [Int32], keys: [ByteBuffer], values: [ByteBuffer]) = ([], [], [])
        var stored: (spaces: [Int32], keys: [ByteBuffer], values: [ByteBuffer]) = ([], [], [])
        for (key, change) in changes {
            let space = Int32(bitPattern: key.space)
            if change.value == nil || change.removedFirst {
                removed.spaces.append(space)
                removed.keys.append(ByteBuffer(bytes: key.key))
            }
            guard let value = change.value else { continue }
            if change.mustBeNew || change.removedFirst {
                new.spaces.append(space); new.keys.append(ByteBuffer(bytes: key.key)); new.values.append(value)
            } else {
                stored.spaces.append(space); stored.keys.append(ByteBuffer(bytes: key.key)); stored.values.append(value)
            }
        }
        var delta: [Int32: Int64] = [:]
        // A taken key is reported once every other change is sent: the
        // transaction is then as if the put that met it had not happened.
        var taken: PendingKey?
        if !removed.spaces.isEmpty {
            var binds = PostgresBindings()
            binds.append(removed.spaces)
            binds.append(removed.keys)
            for row in try execute("""
                DELETE FROM kura_kv USING unnest($1::int4[], $2::bytea[]) AS gone(space, key)
                WHERE kura_kv.space = gone.space AND kura_kv.key = gone.key RETURNING kura_kv.space
                """, binds) {
                delta[try row.decode(Int32.self), default: 0] -= 1
            }
        }
        if !new.spaces.isEmpty {
            var binds = PostgresBindings()
            binds.append(new.spaces)
            binds.append(new.keys)
            binds.append(new.values)
            var inserted = Set<PendingKey>()
            for row in try execute("""
                INSERT INTO kura_kv (space, key, value) SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])
                ON CONFLICT (space, key) DO NOTHING RETURNING space, key
                """, binds) {
                let (space, key) = try row.decode((Int32, ByteBuffer).self)
                delta[space, default: 0] += 1
                inserted.insert(PendingKey(space: UInt32(bitPattern: space), key: Array(key.readableBytesView)))
            }
            if inserted.count < new.spaces.count {
                for (space, key) in zip(new.spaces, new.keys) {
                    let pendingKey = PendingKey(space: UInt32(bitPattern: space), key: Array(key.readableBytesView))
                    if !inserted.contains(pendingKey) { taken = taken ?? pendingKey }
                }
            }
        }
        if !stored.spaces.isEmpty {
            var binds = PostgresBindings()
            binds.append(stored.spaces)
            binds.append(stored.keys)
            binds.append(stored.values)
            for row in try execute("""
                INSERT INTO kura_kv (space, key, value) SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])
                ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value RETURNING space, (xmax = 0)
                """, binds) {
                let (space, isNew) = try row.decode((Int32, Bool).self)
                if isNew { delta[space, default: 0] += 1 }
            }
        }
        let counted = delta.filter { $0.value != 0 }
        if !counted.isEmpty {
            var binds = PostgresBindings()
            binds.append(Array(counted.keys))
            binds.append(Array(counted.values))
            try execute("""
                UPDATE kura_spaces SET entries = entries + change.delta FROM unnest($1::int4[], $2::int8[]) AS change(number, delta)
                WHERE kura_spaces.number = change.number
                """, binds)
        }
        if let taken { throw StorageEngineError.keyExistsInSpace(StorageSpace(number: taken.space), key: taken.key) }
    }

    private func checkWritable() throws {
        if isReadOnly {
            throw KuraError.storage(path: engine.location, failure: .engine(code: 0, message: "a write in a read transaction"))
        }
    }
}
