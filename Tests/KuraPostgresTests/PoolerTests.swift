// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import Kura
@testable import KuraCore
@testable import KuraPostgres
import KuraTestSupport
import Synchronization
import Testing

/// A PostgreSQL store through pgbouncer (Debian's), started by the tests in
/// front of a throwaway server: in session mode as it is, in transaction
/// mode with ``PostgresOptions/Pooling/transaction`` and a direct URL to
/// listen on, and refused at open in transaction mode without it.
@Suite(.serialized, .timeLimit(.minutes(10))) struct PoolerTests {
    static var server: PostgresTestServer { get throws { try PostgresTestServer.shared.get() } }

    static func pooler(_ mode: String) throws -> PostgresTestServer {
        try server.pooler(directory: NSTemporaryDirectory() + "kura-pgbouncer-\(mode)-\(getpid())", mode: mode)
    }

    /// 8 threads incrementing two counters through the store: no update
    /// lost, no save counted twice; then reads, observers and a fetch.
    static func exercise(_ container: PersistentContainer, direct: String) async throws {
        try ConcurrencyWorkload.prepare(container)
        let threads = 8, perThread = 15
        let failures = Mutex<[String]>([])
        let finished = DispatchGroup()
        for _ in 0..<threads {
            finished.enter()
            Thread {
                do { _ = try ConcurrencyWorkload.increment(container, count: perThread) } catch { failures.withLock { $0.append("\(error)") } }
                finished.leave()
            }.start()
        }
        finished.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        let (a, b) = try ConcurrencyWorkload.counters(container)
        #expect(a == threads * perThread && b == threads * perThread, "lost or doubled updates: \(a), \(b)")

        // Another process's save (a direct connection) reaches an observer
        // of the store through the pooler (its commit watch).
        let observer = container.newContext()
        var results = observer.results(for: FetchRequest(entityName: "Entry")).makeAsyncIterator()
        var latest = try #require(try await results.next())
        let before = latest.objects.count
        let (termination, output) = try Helper.run(["insert-entries", direct, "7", "3"])
        #expect(termination == .exited(0), "\(output)")
        while latest.objects.count < before + 3 {
            latest = try #require(try await results.next())
        }
        #expect(latest.objects.count == before + 3)
    }

    @Test func throughPgbouncerInSessionModeSavesReadsAndObservesAsDirectly() async throws {
        let pooler = try Self.pooler("session")
        defer { pooler.remove() }
        let direct = try Self.server.newDatabase()
        let name = try PostgresEngineTests.databaseName(direct)
        let container = try PersistentContainer(store: .postgres(url: pooler.url(of: name)), model: ConcurrencyWorkload.model())
        defer { container.close() }
        try await Self.exercise(container, direct: direct)
    }

    @Test func throughPgbouncerInTransactionModeAStoreOpenedForSessionsIsRefusedSayingWhatToChange() throws {
        let pooler = try Self.pooler("transaction")
        defer { pooler.remove() }
        let name = try PostgresEngineTests.databaseName(try Self.server.newDatabase())
        #expect {
            _ = try PersistentContainer(store: .postgres(url: pooler.url(of: name)), model: ConcurrencyWorkload.model())
        } throws: { error in
            "\(error)".contains("pool_mode = transaction") && "\(error)".contains("options.postgres.pooling = .transaction")
        }
    }

    @Test func throughPgbouncerInTransactionModeWithTransactionPoolingEverythingWorksAndCommitsAreHeardDirectly() async throws {
        let pooler = try Self.pooler("transaction")
        defer { pooler.remove() }
        let direct = try Self.server.newDatabase()
        let name = try PostgresEngineTests.databaseName(direct)
        var options = StoreOptions()
        options.postgres.pooling = .transaction
        options.postgres.listenURL = direct
        let container = try PersistentContainer(store: .postgres(url: pooler.url(of: name), options: options), model: ConcurrencyWorkload.model())
        defer { container.close() }
        try await Self.exercise(container, direct: direct)
    }

    @Test func transactionPoolingWithoutADirectURLRefusesToObserveOtherProcessesSayingWhatToSet() throws {
        let pooler = try Self.pooler("transaction")
        defer { pooler.remove() }
        let name = try PostgresEngineTests.databaseName(try Self.server.newDatabase())
        var options = StoreOptions()
        options.postgres.pooling = .transaction
        let container = try PersistentContainer(store: .postgres(url: pooler.url(of: name), options: options), model: ConcurrencyWorkload.model())
        defer { container.close() }
        let engine = try #require(container.store.engine as? PostgresEngine)
        #expect {
            _ = try engine.watchCommits { _ in }
        } throws: { error in
            "\(error)".contains("options.postgres.listenURL")
        }
    }
}
#endif
