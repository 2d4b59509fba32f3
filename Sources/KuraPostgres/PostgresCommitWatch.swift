// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Dispatch
import KuraCore
import PostgresNIO
import Synchronization

/// A `LISTEN kura_commit` on a connection of its own (to
/// ``PostgresOptions/listenURL`` when given). Commits are reported
/// on a queue of the watch's own, in order: never on the event loop, where
/// the store couldn't wait for what it reads next.
///
/// A connection that closes under the watch (the server restarted, or
/// ended it) is replaced: the watch connects again, every quarter of a
/// second at first and every two seconds at most, until it listens again or
/// is stopped. Commits made meanwhile weren't heard, so once it listens
/// again it reports the newest commit as another process's: observers look
/// again (a history read, or a refresh), which is never wrong.
final class PostgresCommitWatch: CommitWatch, @unchecked Sendable {
    // @unchecked: what changes is under `state`; the rest is set once.
    let queue = DispatchQueue(label: "Kura PostgreSQL commits")
    private weak var engine: PostgresEngine?
    private let onCommit: @Sendable (ReportedCommit) -> Void
    private let state = Mutex(State())

    private struct State {
        var connection: PostgresConnection?
        var context: PostgresListenContext?
        var isStopped = false
    }

    init(engine: PostgresEngine, onCommit: @escaping @Sendable (ReportedCommit) -> Void) {
        self.engine = engine
        self.onCommit = onCommit
    }

    /// Listens on a new connection; an error is the caller's (the watch
    /// doesn't start).
    func start() throws {
        try listen()
    }

    func stop() {
        let (connection, context) = state.withLock { state in
            state.isStopped = true
            defer { state.connection = nil; state.context = nil }
            return (state.connection, state.context)
        }
        context?.stop()
        _ = try? connection?.close().wait()
        queue.sync {}
    }

    private func listen() throws {
        guard let engine, !engine.isClosed.load(ordering: .relaxed) else {
            throw KuraError.storeClosed(path: engine?.location ?? "")
        }
        guard engine.listenServers != nil || engine.options.pooling == .session else {
            throw KuraError.storage(path: engine.location, failure: .engine(code: 0, message:
                "other processes' commits can't be heard through a pooler in transaction mode (LISTEN needs a session of its own): "
                    + "set options.postgres.listenURL to a URL that reaches the primary directly"))
        }
        let connection = try engine.connect(to: engine.listenServers).connection
        let queue = queue
        let mark = engine.commitMark
        let onCommit = onCommit
        let context = connection.addListener(channel: "kura_commit") { _, notification in
            // The commit's number, then the mark of the engine that made it.
            let parts = notification.payload.split(separator: " ")
            guard let number = parts.first.flatMap({ Int($0) }) else { return }
            let commit = ReportedCommit(number: number, isOwn: parts.count == 2 && parts[1] == mark)
            queue.async { onCommit(commit) }
        }
        do {
            _ = try connection.query(PostgresQuery(unsafeSQL: "LISTEN kura_commit"), logger: engine.logger)
                .waitForAnswer(unlessClosed: { connection.isClosed })
        } catch {
            context.stop()
            _ = try? connection.close().wait()
            throw engine.translated(error)
        }
        let kept = state.withLock { state in
            guard !state.isStopped else { return false }
            state.connection = connection
            state.context = context
            return true
        }
        guard kept else {
            context.stop()
            _ = try? connection.close().wait()
            return
        }
        connection.closeFuture.whenComplete { [weak self] _ in self?.lost(connection) }
    }

    /// The connection closed: unless the watch stopped, it listens again.
    private func lost(_ connection: PostgresConnection) {
        let listening = state.withLock { state in
            guard !state.isStopped, state.connection === connection else { return false }
            state.connection = nil
            state.context = nil
            return true
        }
        if listening { listenAgain(after: .milliseconds(250)) }
    }

    private func listenAgain(after delay: DispatchTimeInterval) {
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, !self.state.withLock({ $0.isStopped }) else { return }
            do {
                try self.listen()
                self.engine?.report(.listeningAgain, "listening for other processes' commits again")
            } catch let error as KuraError where error.code == .storeClosed {
                return
            } catch {
                if delay == .milliseconds(250) {  // the first attempt only: not one event per retry
                    self.engine?.report(.failed, "the commit watch can't listen again yet, trying every 2 s at most: \(error)")
                }
                let next: DispatchTimeInterval = switch delay {
                case .milliseconds(let milliseconds): .milliseconds(min(milliseconds * 2, 2_000))
                default: .seconds(2)
                }
                return self.listenAgain(after: next)
            }
            do {
                guard let engine = self.engine else { return }
                self.onCommit(ReportedCommit(number: try engine.latestCommit(), isOwn: false))
            } catch {
                // What was missed can't be told: closing the connection
                // makes the watch listen again, and look again then.
                let connection = self.state.withLock { $0.connection }
                connection?.close().whenComplete { _ in }
            }
        }
    }
}
#endif
