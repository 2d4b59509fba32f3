import Foundation
@testable import KuraCore

/// An in-memory engine whose transactions adopt the requests refinement
/// (``RequestingStorageTransaction``), each hint done with key-value reads,
/// and which breaks one promise of the seam when told to: for the test that
/// the conformance kit names each broken promise.
final class RequestingForwardingEngine: ForwardingEngine, @unchecked Sendable {
    /// The promises it can break.
    enum Broken: CaseIterable {
        case isEmpty, removeAll, drop, watch, estimatedCount, readAheadAfterPut, staleRewrite, rankedTies
    }

    let broken: Broken?

    /// An engine that keeps every promise (`nil`) or breaks `broken`.
    init(breaking broken: Broken?) {
        self.broken = broken
        super.init(name: "broken-\(broken.map { "\($0)" } ?? "nothing")")
    }

    override func performRead(_ body: (any StorageTransaction) throws -> Void) throws {
        try inner.performRead { try body(Transaction(base: $0, broken: broken)) }
    }

    override func performWrite(_ body: (any StorageTransaction) throws -> Void) throws {
        try inner.performWrite { try body(Transaction(base: $0, broken: broken)) }
    }

    override func watchCommits(_ onCommit: @escaping @Sendable (ReportedCommit) -> Void) throws -> any CommitWatch {
        let silent: @Sendable (ReportedCommit) -> Void = { _ in }
        return try inner.watchCommits(broken == .watch ? silent : onCommit)
    }

    final class Transaction: RequestingStorageTransaction {
        let base: any StorageTransaction
        let broken: Broken?
        /// Values read ahead (the broken kind keeps them after a put).
        private var readAhead: [[UInt8]: [UInt8]] = [:]

        /// The cache's key for `key` of `space`.
        private func cached(_ key: some Collection<UInt8>, _ space: StorageSpace) -> [UInt8] {
            withUnsafeBytes(of: space.number) { Array($0) } + Array(key)
        }

        init(base: any StorageTransaction, broken: Broken?) {
            self.base = base
            self.broken = broken
        }

        var isReadOnly: Bool { base.isReadOnly }
        var id: Int { base.id }
        func openSpace(named name: String) throws -> StorageSpace? { try base.openSpace(named: name) }
        func createSpace(named name: String) throws -> StorageSpace { try base.createSpace(named: name) }
        func visitValue(forKey key: UnsafeRawBufferPointer, in space: StorageSpace, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
            if let value = readAhead[cached(key, space)] {
                try value.withUnsafeBytes(body)
                return true
            }
            return try base.visitValue(forKey: key, in: space, body)
        }
        func count(in space: StorageSpace) throws -> Int { try base.count(in: space) }
        func isEmpty() throws -> Bool { broken == .isEmpty ? false : try base.isEmpty() }
        func forEach(in space: StorageSpace, range: KeyRange, direction: IterationDirection, _ body: (StorageEntry) throws -> Bool) throws {
            try base.forEach(in: space, range: range, direction: direction, body)
        }
        func visitCursor(in space: StorageSpace, _ body: (any StorageCursor) throws -> Void) throws { try base.visitCursor(in: space, body) }
        func put(_ value: UnsafeRawBufferPointer, forKey key: UnsafeRawBufferPointer, in space: StorageSpace, flags: PutFlags) throws {
            if broken != .readAheadAfterPut { readAhead[cached(key, space)] = nil }
            try base.put(value, forKey: key, in: space, flags: flags)
        }
        func delete(_ key: UnsafeRawBufferPointer, in space: StorageSpace) throws {
            if broken != .readAheadAfterPut { readAhead[cached(key, space)] = nil }
            try base.delete(key, in: space)
        }
        func removeAll(in space: StorageSpace) throws { if broken != .removeAll { try base.removeAll(in: space) } }
        func drop(_ space: StorageSpace) throws { if broken != .drop { try base.drop(space) } }
        func performNested(_ body: (any StorageTransaction) throws -> Void) throws {
            try base.performNested { try body(Transaction(base: $0, broken: broken)) }
        }

        func estimatedCount(in space: StorageSpace) throws -> Int {
            try count(in: space) + (broken == .estimatedCount ? 1 : 0)
        }
        func forEach(
            in space: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?, _ body: (StorageEntry) throws -> Bool
        ) throws {
            try forEach(in: space, range: range, direction: direction, body)
        }
        func forEachJoined(
            in index: StorageSpace, range: KeyRange, direction: IterationDirection, readAhead: Int?, records: StorageSpace,
            _ body: (StorageEntry, UnsafeRawBufferPointer?) throws -> Bool
        ) throws {
            try forEach(in: index, range: range, direction: direction) { entry in
                var go = true
                if try !visitValue(forKey: entry.value, in: records, { go = try body(entry, $0) }) { go = try body(entry, nil) }
                return go
            }
        }
        func visitJoined(
            forKey key: UnsafeRawBufferPointer, in index: StorageSpace, records: StorageSpace,
            _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Void
        ) throws -> Bool {
            try visitValue(forKey: key, in: index) { value in
                if try !visitValue(forKey: value, in: records, { try body(value, $0) }) { try body(value, nil) }
            }
        }
        func forEachRanked(in space: StorageSpace, by ranking: RecordRanking, _ body: (StorageEntry) throws -> Bool) throws -> Bool {
            guard broken == .rankedTies else { return false }
            // Broken: only the first `count` records, whatever their ranks.
            var sent = 0
            try forEach(in: space, range: .all, direction: .forward) { entry in
                sent += 1
                return try body(entry) && sent < ranking.count
            }
            return true
        }
        func readAhead(_ plan: ReadPlan) throws {
            for (space, keys) in plan.keys {
                for key in keys {
                    try key.withUnsafeBytes { key in _ = try base.visitValue(forKey: key, in: space) { readAhead[cached(key, space)] = Array($0) } }
                }
            }
        }
        func beginRewriting(_ rewrite: () throws -> RewritePlan) throws {
            // Broken: the expected values taken for the stored ones, never checked.
            guard broken == .staleRewrite else { return }
            for expected in try rewrite().expected { readAhead[cached(expected.key, expected.space)] = expected.value }
        }
        func reserveCapacity(forPuts count: Int) {}
    }
}
