import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PersistentStore {
    /// Appends the transaction of a save to the store's history, in the
    /// save's own write transaction (with ``StoreOptions/tracksHistory``).
    func recordHistory(
        _ draft: ChangeSet.History, of changes: ChangeSet, result: SaveResult, in txn: StoreTransaction
    ) throws {
        var record = HistoryRecord(date: Date(), processIdentifier: getpid(), author: draft.author)
        func object(_ id: ObjectID, _ key: UInt64) -> HistoryRecord.Object {
            HistoryRecord.Object(entity: id.entity.name, primaryKey: key)
        }
        for (position, (insert, key)) in zip(changes.inserts, result.insertedKeys).enumerated() {
            switch result.mergedInserts[position] {
            case nil: record.inserted.append(object(insert.objectID, key))
            case .intoStored?: record.updated.append((object(insert.objectID, key), upsertedKeys(of: insert, policy: changes.mergePolicy)))
            case .intoInsert?: break  // part of the insert or update it merged into
            }
        }
        for (update, keys) in zip(changes.updates, draft.updatedKeys) where !result.droppedOwners.contains(update.objectID) {
            record.updated.append((object(update.objectID, update.objectID.number), keys))
        }
        record.deleted = changes.deletes.map { object($0.objectID, $0.objectID.number) }
        let history = try txn.createSpace(named: StoreLayout.historySpaceName)
        let sequence = try meta.value(forKey: StoreLayout.historySequenceKey, in: txn)
            .flatMap { StoreLayout.littleEndian($0, as: UInt64.self) } ?? 1
        try history.put(record.encoded(), forKey: StoreLayout.key(sequence), in: txn, flags: .append)
        try meta.put(StoreLayout.littleEndianBytes(sequence + 1), forKey: StoreLayout.historySequenceKey, in: txn)
    }

    /// The attributes an insert merged into a stored object may have changed there.
    private func upsertedKeys(of insert: ChangeSet.Insert, policy: MergePolicy) -> [String] {
        let attributes = insert.objectID.entity.attributes
        switch policy {
        case .overwrite: return attributes.map(\.name)
        case .mergeByPropertyObjectTrump: return insert.changedAttributes.elements.map { attributes[$0].name }
        case .error, .rollback, .mergeByPropertyStoreTrump: return []
        }
    }

    /// The saves recorded after `token` (all of them without one), oldest
    /// first: Core Data's persistent history. Any process can read them;
    /// merge them into a context with ``ManagedObjectContext/mergeChanges(_:)``
    /// and keep the last token.
    ///
    /// Saves are recorded when the store is opened with
    /// ``StoreOptions/tracksHistory`` (by every process that saves).
    ///
    /// - Throws: ``KuraError/historyTokenExpired(_:purgedThrough:)`` when
    ///   saves after `token` were purged (``purgeHistory(through:)``): what
    ///   they changed can't be told, so refetch what you show and start again
    ///   from ``lastHistoryToken()``, as Core Data's
    ///   `NSPersistentHistoryTokenExpiredError` says to.
    ///   ``KuraError/corruptStore(path:reason:)`` for a damaged entry.
    public func history(after token: HistoryToken? = nil) throws -> [HistoryTransaction] {
        try read { txn in
            if let token {
                let purged = try Self.purgedThrough(meta, in: txn)
                if token.sequence < purged {
                    throw KuraError.historyTokenExpired(token, purgedThrough: HistoryToken(sequence: purged))
                }
            }
            guard let history = try txn.openSpace(named: StoreLayout.historySpaceName) else { return [] }
            // (A token past every sequence number reads nothing: no wrap-around.)
            let (first, overflow) = (token?.sequence ?? 0).addingReportingOverflow(1)
            if overflow { return [] }
            var transactions: [HistoryTransaction] = []
            let start = StoreLayout.key(first)
            try history.forEach(in: txn, range: KeyRange(lower: .init(start, isInclusive: true), upper: nil), readAhead: .max) { entry in
                guard entry.key.count == 8, let record = HistoryRecord(decoding: entry.value) else {
                    throw KuraError.corruptStore(path: path, reason: "a history entry is damaged")
                }
                transactions.append(transaction(record, sequence: StoreLayout.primaryKey(fromSuffixOf: entry.key)))
                return true
            }
            return transactions
        }
    }

    /// The sequence number history was purged through (0: never).
    static func purgedThrough(_ meta: StorageSpace, in txn: StoreTransaction) throws -> UInt64 {
        try meta.value(forKey: StoreLayout.historyPurgedKey, in: txn).flatMap { StoreLayout.littleEndian($0, as: UInt64.self) } ?? 0
    }

    /// The newest recorded save's token, or `nil` when none is recorded.
    ///
    /// To read later what is saved after this point, keep the token, or
    /// `HistoryToken(sequence: 0)` when there is none: `history(after: nil)`
    /// reads every save kept, and can't tell that some were purged before
    /// they were read (after a token, that is ``KuraError/historyTokenExpired(_:purgedThrough:)``).
    public func lastHistoryToken() throws -> HistoryToken? {
        try read { txn in
            let next = try meta.value(forKey: StoreLayout.historySequenceKey, in: txn)
                .flatMap { StoreLayout.littleEndian($0, as: UInt64.self) } ?? 1
            return next > 1 ? HistoryToken(sequence: next - 1) : nil
        }
    }

    /// Drops the recorded saves up to and including `token`; returns how
    /// many. Sequence numbers go on from where they were. The store keeps
    /// the mark: reading history after a token older than it then throws
    /// ``KuraError/historyTokenExpired(_:purgedThrough:)`` instead of
    /// skipping what was purged without a word.
    @discardableResult
    public func purgeHistory(through token: HistoryToken) throws -> Int {
        if isReadOnly { throw KuraError.storeReadOnly(path: path) }
        return try engine.storeWrite { txn in
            guard let history = try txn.openSpace(named: StoreLayout.historySpaceName) else { return 0 }
            var keys: [[UInt8]] = []
            try history.forEach(
                in: txn, range: KeyRange(lower: nil, upper: .init(StoreLayout.key(token.sequence), isInclusive: true)), readAhead: .max
            ) { entry in
                keys.append(Array(entry.key))
                return true
            }
            for key in keys { try history.delete(key, in: txn) }
            // Through the token, or the last save recorded when the token is past it.
            let recorded = (try meta.value(forKey: StoreLayout.historySequenceKey, in: txn)
                .flatMap { StoreLayout.littleEndian($0, as: UInt64.self) } ?? 1) - 1
            let mark = max(try Self.purgedThrough(meta, in: txn), min(token.sequence, recorded))
            try meta.put(StoreLayout.littleEndianBytes(mark), forKey: StoreLayout.historyPurgedKey, in: txn)
            return keys.count
        }
    }

    private func transaction(_ record: HistoryRecord, sequence: UInt64) -> HistoryTransaction {
        var changes = ContextChanges()
        var changedKeys: [ObjectID: Set<String>] = [:]
        func id(_ object: HistoryRecord.Object) -> ObjectID? {
            model.entity(named: object.entity).map { ObjectID(entity: $0, number: object.primaryKey, isTemporaryID: false) }
        }
        changes.inserted = record.inserted.compactMap(id)
        for (object, keys) in record.updated {
            guard let id = id(object) else { continue }
            changes.updated.append(id)
            changedKeys[id] = Set(keys)
        }
        changes.deleted = record.deleted.compactMap(id)
        return HistoryTransaction(
            token: HistoryToken(sequence: sequence), date: record.date, author: record.author,
            processIdentifier: record.processIdentifier, changes: changes, changedKeys: changedKeys)
    }
}

extension PersistentStore {
    /// The store's commits, by any process using the file (this one
    /// included), as the transaction ID each made current: the way to learn
    /// that another process saved, then read what it saved with
    /// ``history(after:)``.
    ///
    /// On LMDB each sequence has a thread of its own that sleeps until the
    /// file is written (inotify), so waiting costs no CPU; several commits in quick
    /// succession may arrive as one (the newest). The sequence ends when the
    /// task iterating it is cancelled or stops iterating.
    ///
    /// - Throws: ``KuraError/storage(path:failure:)`` when the system has no
    ///   inotify instance to give.
    public func commits() throws -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let watch = try engine.watchCommits { continuation.yield($0.number) }
        continuation.onTermination = { _ in watch.stop() }
        return stream
    }
}
