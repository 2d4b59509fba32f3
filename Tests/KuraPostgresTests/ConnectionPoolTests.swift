// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import Kura
@testable import KuraCore
@testable import KuraPostgres
import KuraTestSupport
import Synchronization
import Testing

/// The bound on a PostgreSQL store's connections (``PostgresOptions``),
/// counted by the server (`pg_stat_activity`), not by the pool's own books.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ConnectionPoolTests {
    static var server: PostgresTestServer { get throws { try PostgresTestServer.shared.get() } }

    /// The sessions open on `database` now, as the server counts them (psql's own left out).
    static func sessions(_ database: String) throws -> Int {
        Int(try server.psql("postgres", """
            SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND pid <> pg_backend_pid()
            """).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func twoHundredThreadsSavingAtOnceNeverOpenMoreThanTheLimitAndEverySaveSucceeds() throws {
        let url = try Self.server.newDatabase()
        let database = try PostgresEngineTests.databaseName(url)
        var options = StoreOptions()
        options.postgres.maximumConnections = 8
        options.postgres.connectionWait = .seconds(120)  // starved waits are the next test's
        let container = try PersistentContainer(store: .postgres(url: url, options: options), model: ConcurrencyWorkload.model())
        defer { container.close() }
        try ConcurrencyWorkload.prepare(container)
        let engine = try #require(container.store.engine as? PostgresEngine)

        // The server's count, sampled the whole time the threads run.
        let done = Atomic(false)
        let most = Mutex(0)
        let sampler = Thread {
            while !done.load(ordering: .relaxed) {
                if let count = try? Self.sessions(database) { most.withLock { $0 = max($0, count) } }
            }
        }
        sampler.start()
        let threads = 200
        let saved = Atomic(0)
        let failures = Mutex<[String]>([])
        // 200 threads of their own (Dispatch would run as many as there are cores), let go together.
        let ready = DispatchGroup(), go = DispatchSemaphore(value: 0), finished = DispatchGroup()
        for worker in 0..<threads {
            ready.enter()
            finished.enter()
            Thread {
                ready.leave()
                go.wait()
                do {
                    try ConcurrencyWorkload.insertEntries(container, worker: worker, count: 10)
                    saved.add(1, ordering: .relaxed)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                finished.leave()
            }.start()
        }
        ready.wait()
        for _ in 0..<threads { go.signal() }
        finished.wait()
        done.store(true, ordering: .relaxed)
        while sampler.isExecuting { usleep(1_000) }
        let counts = engine.pool.counts
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        #expect(saved.load(ordering: .relaxed) == threads)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Entry")) == threads * 10)
        #expect(counts.mostOpen <= 8, "the pool opened \(counts.mostOpen) at once")
        #expect(most.withLock { $0 } <= 8, "the server saw \(most.withLock { $0 }) sessions at once")
        #expect(counts.mostOpen == 8, "200 threads at once used the whole pool")
        print("pool: 200 threads × 1 save of 10 inserts with a limit of 8: at most \(most.withLock { $0 }) sessions on the server, "
            + "longest wait for a connection \(counts.longestWait)")
    }

    @Test func aWaitThatFindsEveryConnectionBusyEndsAtItsTimeoutWithAClearError() throws {
        let url = try Self.server.newDatabase()
        var options = StoreOptions()
        options.postgres.maximumConnections = 1
        options.postgres.connectionWait = .milliseconds(300)
        let container = try PersistentContainer(store: .postgres(url: url, options: options), model: ConcurrencyWorkload.model())
        defer { container.close() }
        try ConcurrencyWorkload.prepare(container)
        let engine = try #require(container.store.engine as? PostgresEngine)
        // The pool's one connection, held by a transaction that waits for this test.
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? engine.withConnection { _ in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        let context = container.newContext()
        let entry = try context.insertNewObject(forEntityName: "Entry")
        try entry.setValue("starved", forKey: "key")
        try entry.setValue(0, forKey: "worker")
        let started = ContinuousClock.now
        let error = try #require(throws: KuraError.self) { try context.save() }
        let waited = ContinuousClock.now - started
        #expect(error.storageFailure?.code == .connectionPoolExhausted)
        #expect("\(error)".contains("all 1 connections") && "\(error)".contains("maximumConnections"), "\(error)")
        #expect(waited >= .milliseconds(300) && waited < .seconds(5), "waited \(waited)")
        #expect(context.hasChanges, "the context keeps its changes")
        release.signal()
        // Once the connection is back, the same save goes through.
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Entry")) == 1)
    }

    @Test func idleConnectionsCloseAfterTheirTimeoutAndTheNextUseOpensOne() throws {
        let url = try Self.server.newDatabase()
        let database = try PostgresEngineTests.databaseName(url)
        var options = StoreOptions()
        options.postgres.idleTimeout = .milliseconds(200)
        let container = try PersistentContainer(store: .postgres(url: url, options: options), model: ConcurrencyWorkload.model())
        defer { container.close() }
        try ConcurrencyWorkload.prepare(container)
        #expect(try Self.sessions(database) >= 1)
        // Waits for the pool's timer to close it (progress, bounded by the suite's limit).
        while try Self.sessions(database) > 0 { usleep(20_000) }
        #expect(try ConcurrencyWorkload.counters(container).a == 0, "the next read opens a connection again")
    }
}
#endif
