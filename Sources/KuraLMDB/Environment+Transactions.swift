import CLMDB

extension Environment {
    /// Runs `body` in a read-only transaction: one consistent snapshot, which
    /// no writer (in this process or another) can change or block.
    ///
    /// ```swift
    /// let count = try environment.read { txn in try names.count(in: txn) }
    /// ```
    ///
    /// The closure is synchronous, so it cannot `await` while holding a
    /// snapshot. Bytes read inside it stay valid until it returns.
    ///
    /// - Throws: what `body` throws, an ``LMDBError`` from LMDB, or
    ///   ``EnvironmentError/closed(path:)``.
    /// - Complexity: O(1) to begin; reset read transactions are kept and reused.
    public func read<Result>(_ body: (borrowing Transaction) throws -> Result) throws -> Result {
        while true {
            mapLock.lockShared()
            var isLocked = true
            defer { if isLocked { mapLock.unlockShared() } }
            try checkOpen()
            switch readerPool.withLock({ $0.begin(in: handle) }) {
            case .success(let pointer):
                noteSnapshot(Int(mdb_txn_id(pointer)))
                let outer = mapLock.currentRead
                mapLock.currentRead = pointer
                defer {
                    mapLock.currentRead = outer
                    let finished = ReaderPool.Idle(pointer: pointer)
                    readerPool.withLock { $0.end(finished) }
                }
                return try body(Transaction(pointer: pointer, isReadOnly: true, mapFull: nil))
            case .failure(.mapResized):
                // Another process grew the map past this process's mapping.
                // The new size can only be adopted while no transaction of
                // this process is open, and this thread's own lock must be
                // let go first: adopting under it could never succeed.
                if mapLock.depth > 1 {
                    // Nested in another transaction of this thread: read the
                    // enclosing read's snapshot, which the map still covers,
                    // unless a read of this process saw a newer one since
                    // (going back to the older would lose what it saw).
                    guard let outer = mapLock.currentRead, Int(mdb_txn_id(outer)) >= newestSnapshot.load(ordering: .relaxed) else {
                        throw EnvironmentError.cannotGrowWithOpenTransaction(path: path)
                    }
                    return try body(Transaction(pointer: outer, isReadOnly: true, mapFull: nil))
                }
                mapLock.unlockShared()
                isLocked = false
                try adoptMapSize()
            case .failure(let error):
                throw error
            }
        }
    }

    /// Runs `body` in a write transaction and commits it; a throw aborts it and
    /// nothing is written.
    ///
    /// ```swift
    /// try environment.write { txn in
    ///     try names.put(Array("Grace".utf8), forKey: [0, 2], in: txn)
    /// }
    /// ```
    ///
    /// **The closure may run more than once.** When the map is full, the
    /// transaction is aborted, the map doubles (up to
    /// ``Options/maxMapSize``) and `body` runs again from the start; likewise
    /// when another process has grown the map. Keep side effects outside the
    /// closure, or make them safe to repeat.
    ///
    /// Only one write transaction runs at a time, across every process using
    /// the file; a second writer waits for the first.
    ///
    /// - Throws: what `body` throws; ``LMDBError/mapFull`` when the data would
    ///   not fit in ``Options/maxMapSize``; ``EnvironmentError/readOnly(path:)``;
    ///   ``EnvironmentError/cannotGrowWithOpenTransaction(path:)`` when the map
    ///   must grow while this thread holds another transaction.
    public func write<Result>(_ body: (borrowing Transaction) throws -> Result) throws -> Result {
        if isReadOnly { throw EnvironmentError.readOnly(path: path) }
        while true {
            let outcome = try attemptWrite(body)
            switch outcome {
            case .committed(let result):
                return result
            case .mapFull(let observedSize):
                try growMap(from: observedSize)
            case .mapResized:
                try adoptMapSize()
            }
        }
    }

    private enum WriteOutcome<Result> {
        case committed(Result)
        case mapFull(observedSize: Int)
        case mapResized
    }

    private func attemptWrite<Result>(
        _ body: (borrowing Transaction) throws -> Result
    ) throws -> WriteOutcome<Result> {
        mapLock.lockShared()
        defer { mapLock.unlockShared() }
        try checkOpen()
        let observedSize = currentMapSize
        var transaction: OpaquePointer?
        let code = mdb_txn_begin(handle, nil, 0, &transaction)
        if code == MDB_MAP_RESIZED { return .mapResized }
        try LMDBError.check(code)
        guard let transaction else { throw LMDBError.badTransaction }

        var mapFull = false
        let result: Swift.Result<Result, Error> = withUnsafeMutablePointer(to: &mapFull) { flag in
            Swift.Result { try body(Transaction(pointer: transaction, isReadOnly: false, mapFull: flag)) }
        }
        if mapFull {
            mdb_txn_abort(transaction)
            return .mapFull(observedSize: observedSize)
        }
        switch result {
        case .failure(let error):
            mdb_txn_abort(transaction)
            throw error
        case .success(let value):
            let commit = mdb_txn_commit(transaction)
            if commit == MDB_MAP_FULL { return .mapFull(observedSize: observedSize) }
            try LMDBError.check(commit)
            return .committed(value)
        }
    }

    /// Records that a read began on snapshot `id`.
    private func noteSnapshot(_ id: Int) {
        var known = newestSnapshot.load(ordering: .relaxed)
        while id > known {
            let (exchanged, original) = newestSnapshot.compareExchange(expected: known, desired: id, ordering: .relaxed)
            if exchanged { return }
            known = original
        }
    }

    /// The size of this process's map, in bytes.
    var currentMapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    /// Doubles the map, unless another thread already grew it past
    /// `observedSize`. Throws `mapFull` at the configured maximum.
    private func growMap(from observedSize: Int) throws {
        guard mapLock.lockExclusive() else {
            throw EnvironmentError.cannotGrowWithOpenTransaction(path: path)
        }
        defer { mapLock.unlockExclusive() }
        try checkOpen()
        let current = currentMapSize
        if current > observedSize { return }
        guard current < options.maxMapSize else { throw LMDBError.mapFull }
        let next = min(current.multipliedReportingOverflow(by: 2).partialValue, options.maxMapSize)
        readerPool.withLock { $0.drain() }
        try LMDBError.check(mdb_env_set_mapsize(handle, max(next, current)))
    }

    /// Adopts the size another process gave the map (`MDB_MAP_RESIZED`).
    /// Call it without holding ``mapLock``.
    func adoptMapSize() throws {
        guard mapLock.lockExclusive() else {
            throw EnvironmentError.cannotGrowWithOpenTransaction(path: path)
        }
        defer { mapLock.unlockExclusive() }
        try checkOpen()
        readerPool.withLock { $0.drain() }
        try LMDBError.check(mdb_env_set_mapsize(handle, 0))
    }
}

/// Read transactions that were reset rather than freed, so the next read
/// renews one (keeping its reader slot) instead of allocating and registering.
struct ReaderPool: ~Copyable {
    /// At most this many are kept; each holds a reader slot of the lock file.
    static let capacity = 8
    private var idle: [Idle] = []

    /// A reset read transaction. `@unchecked Sendable`: with `MDB_NOTLS` a
    /// transaction may be renewed on any thread, and only the pool touches it
    /// while it is idle.
    struct Idle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    mutating func begin(in environment: OpaquePointer) -> Result<OpaquePointer, LMDBError> {
        if let transaction = idle.popLast()?.pointer {
            let code = mdb_txn_renew(transaction)
            if code == 0 { return .success(transaction) }
            mdb_txn_abort(transaction)
            return .failure(LMDBError(code: code))
        }
        var transaction: OpaquePointer?
        let code = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &transaction)
        guard code == 0, let transaction else { return .failure(LMDBError(code: code)) }
        return .success(transaction)
    }

    mutating func end(_ transaction: Idle) {
        if idle.count < Self.capacity {
            mdb_txn_reset(transaction.pointer)
            idle.append(transaction)
        } else {
            mdb_txn_abort(transaction.pointer)
        }
    }

    mutating func drain() {
        for transaction in idle { mdb_txn_abort(transaction.pointer) }
        idle.removeAll()
    }
}
