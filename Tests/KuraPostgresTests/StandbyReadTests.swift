// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import Kura
@testable import KuraCore
@testable import KuraPostgres
import KuraTestSupport
import Synchronization
import Testing

/// Reads from a hot standby (``PostgresOptions/standbyURL``) with
/// read-your-writes, against a primary and an asynchronous standby the
/// tests start (streaming replication on Unix sockets).
@Suite(.serialized, .timeLimit(.minutes(10))) struct StandbyReadTests {
    /// One primary and its standby for the suite, with a database each test
    /// makes on the primary (replicated to the standby).
    final class Pair: Sendable {
        let primary: PostgresTestServer
        let standby: PostgresTestServer

        init() throws {
            let base = NSTemporaryDirectory() + "kura-standby-\(getpid())"
            try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            primary = try PostgresTestServer(directory: base + "/primary")
            standby = try PostgresTestServer(standbyOf: primary, directory: base + "/standby")
        }

        /// A new database: the store's URL and options reading from the standby.
        func store(wait: Duration = .seconds(1)) throws -> (url: String, options: StoreOptions, name: String) {
            let url = try primary.newDatabase()
            let name = try PostgresEngineTests.databaseName(url)
            var options = StoreOptions()
            options.postgres.standbyURL = standby.url(of: name)
            options.postgres.standbyWait = wait
            // The database reaches the standby before the store opens on it.
            while (try? standby.psql(name, "SELECT 1")) != "1" { usleep(10_000) }
            return (url, options, name)
        }
    }

    static let pair = Result { try Pair() }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "number", type: .int64)], indexes: [.unique("number")]),
        ])
    }

    static func insert(_ number: Int, into container: PersistentContainer) throws {
        let context = container.newContext()
        let note = try context.insertNewObject(forEntityName: "Note")
        try note.setValue(number, forKey: "number")
        try context.save()
    }

    static func standby(of container: PersistentContainer) throws -> PostgresStandby {
        try #require((container.store.engine as? PostgresEngine)?.standby)
    }

    @Test func aFetchRightAfterASaveReadsTheStandbyAndAlwaysSeesTheSave() throws {
        let pair = try Self.pair.get()
        let store = try pair.store()
        let container = try PersistentContainer(store: .postgres(url: store.url, options: store.options), model: Self.model())
        defer { container.close() }
        let standby = try Self.standby(of: container)
        let (readsBefore, fallbacksBefore) = (standby.reads.load(ordering: .relaxed), standby.fallbacks.load(ordering: .relaxed))
        for number in 1...200 {
            try Self.insert(number, into: container)
            let count = try container.newContext().count(for: FetchRequest(entityName: "Note"))
            #expect(count == number, "a read after save \(number) saw \(count)")
            if count != number { break }
        }
        let reads = standby.reads.load(ordering: .relaxed) - readsBefore
        let fallbacks = standby.fallbacks.load(ordering: .relaxed) - fallbacksBefore
        #expect(reads > 0, "no read went to the standby")
        print("standby: 200 saves each read at once: \(reads) reads on the standby, \(fallbacks) on the primary")
    }

    @Test func withReplayPausedAReadFallsBackToThePrimaryWithinTheBoundAndReturnsOnceResumed() throws {
        let pair = try Self.pair.get()
        let store = try pair.store(wait: .milliseconds(300))
        let container = try PersistentContainer(store: .postgres(url: store.url, options: store.options), model: Self.model())
        defer { container.close() }
        let standby = try Self.standby(of: container)
        try Self.insert(1, into: container)
        _ = try pair.standby.psql("postgres", "SELECT pg_wal_replay_pause()")
        defer { _ = try? pair.standby.psql("postgres", "SELECT pg_wal_replay_resume()") }
        try Self.insert(2, into: container)
        let fallbacks = standby.fallbacks.load(ordering: .relaxed)
        let started = ContinuousClock.now
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Note")) == 2)
        let took = ContinuousClock.now - started
        #expect(standby.fallbacks.load(ordering: .relaxed) == fallbacks + 1, "the read went to the primary")
        #expect(took >= .milliseconds(300), "it waited for the standby first (\(took))")
        // The bound, and what a busy machine adds.
        #expect(took < .seconds(5), "the read waited \(took)")

        _ = try pair.standby.psql("postgres", "SELECT pg_wal_replay_resume()")
        let reads = standby.reads.load(ordering: .relaxed)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Note")) == 2)
        #expect(standby.reads.load(ordering: .relaxed) == reads + 1, "replayed, the standby serves again")
    }

    @Test func aStandbyThatCantBeReachedSendsReadsToThePrimary() throws {
        let pair = try Self.pair.get()
        let store = try pair.store()
        var options = store.options
        options.postgres.standbyURL = "postgres://kura@/\(store.name)?host=/nonexistent-kura-standby"
        let container = try PersistentContainer(store: .postgres(url: store.url, options: options), model: Self.model())
        defer { container.close() }
        try Self.insert(1, into: container)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Note")) == 1)
        #expect(try Self.standby(of: container).fallbacks.load(ordering: .relaxed) >= 1)
    }

    /// Read throughput with reads on the primary alone, and with a standby
    /// serving them (both servers on this machine's cores: a figure, not a
    /// bound).
    @Test func readThroughputOnPrimaryAndStandbyAgainstPrimaryAlone() throws {
        let pair = try Self.pair.get()
        let store = try pair.store()
        func readsPerSecond(_ options: StoreOptions) throws -> Double {
            let container = try PersistentContainer(store: .postgres(url: store.url, options: options), model: Self.model())
            defer { container.close() }
            if try container.newContext().count(for: FetchRequest(entityName: "Note")) == 0 {
                let context = container.newContext()
                for number in 0..<1_000 { try context.insertNewObject(forEntityName: "Note").setValue(number, forKey: "number") }
                try context.save()
            }
            let threads = 8, perThread = 300
            let failures = Atomic(0)
            let finished = DispatchGroup()
            let started = ContinuousClock.now
            for thread in 0..<threads {
                finished.enter()
                Thread {
                    let context = container.newContext()
                    for read in 0..<perThread {
                        let request = FetchRequest(entityName: "Note", predicate: try! FetchPredicate(format: "number == \((thread * perThread + read) % 1_000)"))
                        if (try? context.fetch(request).count) != 1 { failures.add(1, ordering: .relaxed) }
                    }
                    finished.leave()
                }.start()
            }
            finished.wait()
            let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                + Double((ContinuousClock.now - started).components.seconds)
            #expect(failures.load(ordering: .relaxed) == 0)
            return Double(threads * perThread) / seconds
        }
        var primaryOnly = store.options
        primaryOnly.postgres.standbyURL = nil
        let alone = try readsPerSecond(primaryOnly)
        let both = try readsPerSecond(store.options)
        print(String(format: "standby: 8 threads of lookups, %.0f reads/s on the primary alone, %.0f with the standby serving them (%.2fx)",
                     alone, both, both / alone))
    }
}
#endif
