import Synchronization

/// What one observation of a fetch request has been told since it last
/// looked: filled by the threads that save (or by the commit monitor's
/// thread for other processes' saves), emptied by the observing task.
final class ObserverInbox: Sendable {
    /// The entities whose saves can change the observed results.
    let entities: Set<ObjectIdentifier>
    /// The observing context: its own saves need no merging into it.
    let observer: ObjectIdentifier

    struct Delivery {
        /// The saves, each with whether to merge it before fetching again
        /// (not the observing context's own).
        var saves: [(changes: ContextChanges, merges: Bool)] = []
        /// Another process saved and what it saved is unknown (the store
        /// doesn't track history): every registered object is refreshed.
        var refreshesEverything = false
        /// Something was delivered since the last ``take()``.
        var isSignalled = false
    }

    private struct State {
        var delivery = Delivery()
        var waiter: CheckedContinuation<Void, Never>?
        var isCancelled = false
    }

    private let state = Mutex(State())

    init(entities: Set<ObjectIdentifier>, observer: ObjectIdentifier) {
        self.entities = entities
        self.observer = observer
    }

    /// Tells the observer about a save: its `changes` (which it merges
    /// unless its own context saved them), or with `refreshesEverything`,
    /// a save whose changes are unknown.
    func deliver(_ changes: ContextChanges?, refreshesEverything: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let changes { state.delivery.saves.append((changes, true)) }
            if refreshesEverything { state.delivery.refreshesEverything = true }
            state.delivery.isSignalled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// True when something was delivered and not yet taken.
    var hasDelivery: Bool { state.withLock { $0.delivery.isSignalled } }

    /// Whether the observation waits for a delivery (its iterator is
    /// suspended in `next()`): tests use it to save only once a fetch is over.
    var isWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// Tells the observer that its own context saved `changes`.
    func deliverOwn(_ changes: ContextChanges) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.delivery.saves.append((changes, false))
            state.delivery.isSignalled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Waits until something is delivered or the task is cancelled; returns
    /// what was delivered (several saves coalesce into one delivery), or
    /// `nil` when cancelled.
    func next() async -> Delivery? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.delivery.isSignalled || state.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            cancel()
        }
        return state.withLock { state in
            guard !state.isCancelled else { return nil }
            defer { state.delivery = Delivery() }
            return state.delivery
        }
    }

    /// Ends the observation: a waiting ``next()`` returns `nil`.
    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isCancelled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
