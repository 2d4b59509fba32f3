import Foundation
import Synchronization

/// Kura's in-memory engine, Core Data's in-memory store type: the same
/// store (records, indexes, relationships, history, migrations) in sorted
/// arrays in this process, gone when the store closes. For tests and
/// previews; see ``StoreDescription/inMemory(name:options:)``.
///
/// Every committed state is a value: a read takes it as it is (its arrays
/// are shared, not copied) and sees that snapshot whatever writers do; a
/// write works on its own copy of the spaces it changes and publishes the
/// whole state when it commits. One writer at a time.
///
/// - Complexity: a lookup is O(log n); a put or delete is O(n) in the keys
///   of its space (an insertion into a sorted array), and a write's first
///   change to a space copies it.
final class InMemoryEngine: StorageEngine {
    /// One space: keys in order, and their values.
    struct Space {
        var keys: [[UInt8]] = []
        var values: [[UInt8]] = []

        /// The position of the first key not below `key`, and whether it is `key`.
        func position(of key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle].withUnsafeBytes({ compareKeys($0, key) }) < 0 { low = middle + 1 } else { high = middle }
            }
            return (low, low < keys.count && keys[low].withUnsafeBytes { compareKeys($0, key) } == 0)
        }
    }

    /// Everything the engine holds, as of one commit.
    struct State {
        var names: [String: UInt32] = [:]
        var spaces: [UInt32: Space] = [:]
        var nextSpace: UInt32 = 1
        var commit = 0
    }

    let location: String
    var isReadOnly: Bool { false }

    private let committed = Mutex(State())
    private let isClosed = Atomic(false)
    /// The thread writing, if one is: one writer at a time.
    private let writer = NSCondition()
    nonisolated(unsafe) private var writingThread: ObjectIdentifier?
    private let watches = Mutex<[ObjectIdentifier: InMemoryCommitWatch]>([:])

    init(name: String) {
        location = "memory:\(name)"
    }

    func performRead(_ body: (any StorageTransaction) throws -> Void) throws {
        try body(InMemoryTransaction(state: try snapshot(), isReadOnly: true, id: nil))
    }

    func performCheckedRead(spaces: Set<String>, _ body: (any StorageTransaction) throws -> Void) throws {
        try performRead(body)
    }

    func performWrite(_ body: (any StorageTransaction) throws -> Void) throws {
        let thread = ObjectIdentifier(Thread.current)
        writer.lock()
        if writingThread == thread {
            writer.unlock()
            throw KuraError.storage(path: location, failure: .engine(
                code: 0, message: "a write began inside another write of the same thread"))
        }
        while writingThread != nil { writer.wait() }
        writingThread = thread
        writer.unlock()
        defer {
            writer.lock()
            writingThread = nil
            writer.signal()
            writer.unlock()
        }
        let base = try snapshot()
        let transaction = InMemoryTransaction(state: base, isReadOnly: false, id: base.commit + 1)
        try body(transaction)
        var state = transaction.state
        state.commit = base.commit + 1
        committed.withLock { $0 = state }
        for watch in watches.withLock({ Array($0.values) }) { watch.notify(state.commit) }
    }

    func space(named name: String) throws -> StorageSpace? {
        try snapshot().names[name].map(StorageSpace.init(number:))
    }

    func latestCommit() throws -> Int {
        try snapshot().commit
    }

    func watchCommits(_ onCommit: @escaping @Sendable (ReportedCommit) -> Void) throws -> any CommitWatch {
        let watch = InMemoryCommitWatch(onCommit: onCommit) { [weak self] watch in
            _ = self?.watches.withLock { $0.removeValue(forKey: ObjectIdentifier(watch)) }
        }
        watches.withLock { $0[ObjectIdentifier(watch)] = watch }
        return watch
    }

    func close() {
        isClosed.store(true, ordering: .sequentiallyConsistent)
        committed.withLock { $0 = State() }
    }

    private func snapshot() throws -> State {
        guard !isClosed.load(ordering: .sequentiallyConsistent) else { throw KuraError.storeClosed(path: location) }
        return committed.withLock { $0 }
    }
}

/// A watch of an in-memory engine's commits: each is reported on a queue
/// of the watch's own, in order.
final class InMemoryCommitWatch: CommitWatch, @unchecked Sendable {
    // @unchecked: `onCommit` runs only on `queue`; `isStopped` is atomic.
    private let onCommit: @Sendable (ReportedCommit) -> Void
    private let remove: @Sendable (InMemoryCommitWatch) -> Void
    private let queue = DispatchQueue(label: "Kura in-memory commits")
    private let isStopped = Atomic(false)

    init(onCommit: @escaping @Sendable (ReportedCommit) -> Void, remove: @escaping @Sendable (InMemoryCommitWatch) -> Void) {
        self.onCommit = onCommit
        self.remove = remove
    }

    func notify(_ commit: Int) {
        queue.async { [self] in
            if !isStopped.load(ordering: .sequentiallyConsistent) { onCommit(ReportedCommit(number: commit)) }
        }
    }

    func stop() {
        isStopped.store(true, ordering: .sequentiallyConsistent)
        remove(self)
        // No call after this returns: wait for one under way.
        queue.sync {}
    }
}

extension StoreDescription {
    /// A new in-memory engine, for the conformance checks' reference
    /// (``inMemory(name:options:)`` is how apps get one).
    package static func inMemoryEngine(name: String) -> any StorageEngine {
        InMemoryEngine(name: name)
    }
}

extension InMemoryEngine: StatisticsReportingEngine {
    /// What each space holds, its keys' and values' bytes, and the last commit.
    func storeStatistics() throws -> StoreStatistics {
        let state = try snapshot()
        let spaces = state.names.map { name, number in
            let space = state.spaces[number] ?? Space()
            let bytes = space.keys.reduce(0) { $0 + $1.count } + space.values.reduce(0) { $0 + $1.count }
            return StoreStatistics.Space(kind: "other", entity: nil, part: name, entries: space.keys.count, bytes: bytes)
        }
        return StoreStatistics(path: location, fileSize: 0, usedBytes: spaces.reduce(0) { $0 + $1.bytes },
                               lastTransactionID: state.commit, spaces: spaces)
    }
}
