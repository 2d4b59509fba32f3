import Foundation
import Synchronization

/// The observations of a store in this process, and how saves reach them:
/// a save of any context of the process delivers its changes directly;
/// other processes' saves are noticed by the engine's commit watch (started with
/// the first observation, stopped with the last) and read from the store's
/// history when it tracks history.
final class StoreObservers: Sendable {
    private struct State {
        var inboxes: [WeakObserverInbox] = []
        var monitor: (any CommitWatch)?
        /// The newest transaction the monitor accounted for.
        var lastSeen = 0
        /// Transactions this process committed that the monitor hasn't seen yet.
        var ownCommits = Set<Int>()
        /// The newest history transaction read, when the store tracks history.
        var historyToken: HistoryToken?
    }

    private let state = Mutex(State())
    /// How many observations are registered: a save checks this alone when
    /// there are none.
    private let count = Atomic(0)

    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    /// Registers `inbox`; the first registration starts watching the file
    /// for other processes' commits.
    func register(_ inbox: ObserverInbox, store: PersistentStore) throws {
        try state.withLock { state in
            if state.monitor == nil {
                state.lastSeen = try store.engine.latestCommit()
                // Only what is committed already: a save of this process
                // under way now (noted, not yet committed) is still its own,
                // not another process's commit (which would refresh every
                // observation for nothing).
                state.ownCommits = state.ownCommits.filter { $0 > state.lastSeen }
                state.historyToken = try Self.historyStart(store)
                state.monitor = try store.engine.watchCommits { [weak store] commit in
                    guard let store else { return }
                    store.observers.noticeCommit(commit, store: store)
                }
            }
            state.inboxes.removeAll { $0.inbox == nil }
            state.inboxes.append(WeakObserverInbox(inbox: inbox))
            count.store(state.inboxes.count, ordering: .relaxed)
        }
    }

    /// Where the observers read the store's history from (`nil` when it
    /// tracks none): after the newest save recorded, or, when none is
    /// recorded yet, before the first. Never `nil` for a store that tracks
    /// history: `history(after: nil)` reads what is kept, so saves another
    /// process recorded and purged before they were read would be missed
    /// without a word (a test's helper did, now and then); after sequence
    /// 0, such a purge is ``KuraError/historyTokenExpired(_:purgedThrough:)``
    /// and the observers refresh everything.
    static func historyStart(_ store: PersistentStore) throws -> HistoryToken? {
        guard store.options.tracksHistory else { return nil }
        return try store.lastHistoryToken() ?? HistoryToken(sequence: 0)
    }

    /// Unregisters `inbox`; the last one stops the monitor.
    func unregister(_ inbox: ObserverInbox) {
        let stopped = state.withLock { state -> (any CommitWatch)? in
            state.inboxes.removeAll { $0.inbox == nil || $0.inbox === inbox }
            count.store(state.inboxes.count, ordering: .relaxed)
            guard state.inboxes.isEmpty else { return nil }
            defer { state.monitor = nil }
            return state.monitor
        }
        // Stopped outside the lock: stopping waits for a commit being
        // reported, whose report takes the lock (a deadlock, seen in CI when
        // a commit arrived as the last observation ended).
        stopped?.stop()
    }

    /// This process is committing transaction `id` (its write transaction
    /// holds LMDB's writer lock, so no other process can commit that ID
    /// meanwhile).
    func noteOwnCommit(_ id: Int) {
        state.withLock { state in
            state.ownCommits.insert(id)
            // Without a monitor nothing takes them out as they are seen:
            // keep the ones that may still be under way.
            if state.monitor == nil && state.ownCommits.count > 64 {
                // (In place: a save mustn't allocate for this.)
                state.ownCommits.removeAll(keepingCapacity: true)
                state.ownCommits.insert(id)
            }
        }
    }

    /// The commit of `id` failed: the next writer, maybe another process, reuses the ID.
    func forgetOwnCommit(_ id: Int) {
        state.withLock { _ = $0.ownCommits.remove(id) }
    }

    /// A context of this process saved `changes`: every observation of an
    /// entity it touched hears of it.
    func deliver(_ changes: ContextChanges, from sender: ObjectIdentifier) {
        guard !isEmpty else { return }
        let inboxes = state.withLock { $0.inboxes.compactMap(\.inbox) }
        let touched = changes.entities
        for inbox in inboxes where !inbox.entities.isDisjoint(with: touched) {
            if inbox.observer == sender { inbox.deliverOwn(changes) } else { inbox.deliver(changes) }
        }
    }

    /// The monitor saw transaction `current` become the newest: deliver
    /// what other processes saved since the last one.
    private func noticeCommit(_ commit: ReportedCommit, store: PersistentStore) {
        let current = commit.number
        let (inboxes, external, token) = state.withLock { state in
            if commit.isOwn { state.ownCommits.insert(current) }
            let external = (state.lastSeen + 1...max(state.lastSeen + 1, current)).contains { !state.ownCommits.contains($0) }
            state.ownCommits = state.ownCommits.filter { $0 > current }
            state.lastSeen = current
            return (state.inboxes.compactMap(\.inbox), external, state.historyToken)
        }
        guard external, !inboxes.isEmpty else { return }
        func refreshEverything() {
            for inbox in inboxes { inbox.deliver(nil, refreshesEverything: true) }
        }
        guard store.options.tracksHistory else { return refreshEverything() }
        let transactions: [HistoryTransaction]
        do {
            transactions = try store.history(after: token)
        } catch let error as KuraError where error.code == .historyTokenExpired {
            // Purged under us (another process may purge right after it
            // saves): what was in it is unknown. Read on from the newest.
            let newest = try? Self.historyStart(store)
            state.withLock { $0.historyToken = newest }
            return refreshEverything()
        } catch {
            return refreshEverything()
        }
        if let last = transactions.last { state.withLock { $0.historyToken = last.token } }
        let own = getpid()
        for transaction in transactions where transaction.processIdentifier != own {
            let touched = transaction.changes.entities
            for inbox in inboxes where !inbox.entities.isDisjoint(with: touched) {
                inbox.deliver(transaction.changes)
            }
        }
    }
}

/// An observation's inbox, without keeping it alive.
struct WeakObserverInbox: Sendable {
    weak var inbox: ObserverInbox?
}

extension ContextChanges {
    /// The entities of the objects listed.
    var entities: Set<ObjectIdentifier> {
        var entities = Set<ObjectIdentifier>()
        var last: EntityDescription?
        for list in [inserted, updated, deleted] {
            for id in list where id.entity !== last {
                last = id.entity
                entities.insert(ObjectIdentifier(id.entity))
            }
        }
        return entities
    }
}
