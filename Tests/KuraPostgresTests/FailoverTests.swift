// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import Kura
@testable import KuraCore
@testable import KuraPostgres
import KuraTestSupport
import Synchronization
import Testing

/// Failover: a primary and a synchronous hot standby (streaming
/// replication, each on its own Unix socket), a multi-host URL with
/// `target_session_attrs=read-write`, and the primary killed 20 times while
/// two processes save; each time the standby is promoted by hand (as a
/// failover manager would) and the old primary is made the new standby.
@Suite(.serialized, .timeLimit(.minutes(15))) struct FailoverTests {
    /// Runs one statement on `server`'s `postgres` database.
    @discardableResult
    static func sql(_ server: PostgresTestServer, _ statement: String) throws -> String {
        try server.psql("postgres", statement)
    }

    /// Makes `standby` the primary's synchronous standby once it streams,
    /// and waits until it has everything the primary committed meanwhile
    /// (commits answered while the primary was alone are on it too).
    static func waitForSynchronous(_ primary: PostgresTestServer) throws {
        while try sql(primary, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") != "1" { usleep(20_000) }
        try sql(primary, "ALTER SYSTEM SET synchronous_standby_names = '*'")
        try sql(primary, "SELECT pg_reload_conf()")
        while try sql(primary, "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1" { usleep(20_000) }
        let position = try sql(primary, "SELECT pg_current_wal_lsn()")
        while try sql(primary, "SELECT count(*) FROM pg_stat_replication WHERE flush_lsn >= '\(position)'") != "1" { usleep(20_000) }
    }

    /// The rows stored on `server` now (progress between kills).
    static func rows(_ server: PostgresTestServer) throws -> Int {
        Int(try server.psql("failover", "SELECT count(*) FROM kura_kv")) ?? 0
    }

    static func milliseconds() -> Int { Int(Date().timeIntervalSince1970 * 1000) }

    @Test func twentyKillsOfThePrimaryLoseNoAcknowledgedSaveDoubleNoneAndObserversMissNothing() async throws {
        let base = NSTemporaryDirectory() + "kura-failover-\(getpid())"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: base) }
        var directories = (primary: base + "/a", standby: base + "/b")
        var primary = try PostgresTestServer(directory: directories.primary)
        var standby: PostgresTestServer?
        defer {
            primary.remove()
            standby?.remove()
        }
        _ = try primary.newDatabase(named: "failover")
        standby = try PostgresTestServer(standbyOf: primary, directory: directories.standby)
        try Self.waitForSynchronous(primary)

        let url = "postgres://kura@/failover?host=\(directories.primary),\(directories.standby)&port=5432&target_session_attrs=read-write"
        var options = StoreOptions()
        options.postgres.answerLossWait = .seconds(10)
        let container = try PersistentContainer(store: .postgres(url: url, options: options), model: FailoverWorkload.model())
        defer { container.close() }
        var results = container.newContext().results(for: FetchRequest(entityName: "Part")).makeAsyncIterator()
        var latest = try #require(try await results.next())

        let stop = base + "/stop"
        let outputs = (1...2).map { base + "/writer-\($0).out" }
        let writers = try (1...2).map { writer in
            try ChildProcess(Helper.path, ["failover-writer", url, String(writer), stop, "10000"],
                             standardOutput: .file(outputs[writer - 1]), standardError: .file(outputs[writer - 1] + ".err"))
        }
        defer { writers.forEach { $0.kill() } }

        let kills = 20
        var killedAt: [Int] = []
        var promotion: [Int] = []
        for _ in 0..<kills {
            // Saves are under way on this primary before it is killed.
            let before = try Self.rows(primary)
            while try Self.rows(primary) < before + 4 * FailoverWorkload.groupSize { usleep(10_000) }
            try primary.stop(immediately: true)
            let killed = Self.milliseconds()
            killedAt.append(killed)
            let promoted = try #require(standby)
            try promoted.promote()
            promotion.append(Self.milliseconds() - killed)
            // Alone, the new primary answers commits without a standby (as
            // pg_auto_failover's primary does while its secondary is away);
            // the old primary comes back as its standby, then synchronous.
            try Self.sql(promoted, "ALTER SYSTEM SET synchronous_standby_names = ''")
            try Self.sql(promoted, "SELECT pg_reload_conf()")
            directories = (directories.standby, directories.primary)
            primary = promoted
            standby = try PostgresTestServer(standbyOf: primary, directory: directories.standby)
            try Self.waitForSynchronous(primary)
        }
        FileManager.default.createFile(atPath: stop, contents: Data())
        for writer in writers { #expect(try writer.wait(timeout: 120) == .exited(0)) }

        // What the writers were told.
        var acknowledged = Set<FailoverWorkload.Group>(), inDoubt = Set<FailoverWorkload.Group>()
        var savedAt: [Int] = []
        var answersLost: [String: Int] = [:]
        for (index, output) in outputs.enumerated() {
            for line in try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n") {
                if line.hasPrefix("answer lost: ") {
                    answersLost[String(line.split(separator: ";").last ?? "").trimmingCharacters(in: .whitespaces), default: 0] += 1
                }
                let parts = line.split(separator: " ")
                guard parts.count >= 2, let number = Int(parts[1]) else { continue }
                let group = FailoverWorkload.Group(writer: index + 1, save: number)
                if parts[0] == "saved" {
                    acknowledged.insert(group)
                    if parts.count == 3, let at = Int(parts[2]) { savedAt.append(at) }
                } else if parts[0] == "unknown" {
                    inDoubt.insert(group)
                }
            }
        }
        let sizes = try FailoverWorkload.groups(container)
        let stored = Set(sizes.keys)
        #expect(acknowledged.count > 20 * 4, "the writers saved \(acknowledged.count) times")
        #expect(acknowledged.isSubset(of: stored), "acknowledged saves lost: \(acknowledged.subtracting(stored).sorted { $0.save < $1.save })")
        #expect(stored.isSubset(of: acknowledged.union(inDoubt)), "saves stored that no writer was told of: \(stored.subtracting(acknowledged.union(inDoubt)))")
        #expect(sizes.values.allSatisfy { $0 == FailoverWorkload.groupSize }, "saves stored twice: \(sizes.filter { $0.value != FailoverWorkload.groupSize })")

        // The observer, whose commit watch listened again after each kill,
        // comes to every stored row.
        let total = sizes.values.reduce(0, +)
        while latest.objects.count != total {
            latest = try #require(try await results.next())
        }

        // Time from each kill to the first save acknowledged after it.
        let recoveries = killedAt.compactMap { killed in savedAt.filter { $0 > killed }.min().map { $0 - killed } }.sorted()
        #expect(recoveries.count == kills)
        let median = recoveries.isEmpty ? 0 : recoveries[recoveries.count / 2]
        print("failover: \(kills) kills of the primary, \(acknowledged.count) saves acknowledged, \(inDoubt.count) of unknown outcome, "
            + "0 lost, 0 doubled; kill to first save: median \(median) ms, max \(recoveries.last ?? 0) ms "
            + "(promotion by hand: median \(promotion.sorted()[promotion.count / 2]) ms); commit answers lost: \(answersLost)")
    }
}
#endif
