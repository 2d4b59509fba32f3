import Foundation
@testable import Kura
@testable import KuraCore
import KuraLMDB
import KuraTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `PersistentStore.commits()`: waking when any process commits, without
/// polling. Latency and idle CPU are printed, not asserted tightly.
@Suite(.serialized, .timeLimit(.minutes(5))) struct CommitMonitorTests {
    /// The names of this process's threads, as the system shows them.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .newlines) }
    }

    /// Waits (up to 10 s) until `condition` holds.
    static func wait(until condition: () -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// Found by the outside suite: the names Kura gives its threads never
    /// reached the system's threads.
    @Test func kurasThreadsCarryTheirNamesToTheSystem() async throws {
        let executor = ContextExecutor(name: "Kura importer thread")
        actor Probe {
            nonisolated let executor: ContextExecutor
            nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
            init(_ executor: ContextExecutor) { self.executor = executor }
            func run() {}
        }
        await Probe(executor).run()
        #expect(Self.threadNames().contains("Kura importer t"), "cut to 15 bytes: \(Self.threadNames())")
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.news())
        let monitor = try CommitMonitor(path: container.store.path, transactionID: { 0 }, commit: { _ in })
        #expect(Self.wait { Self.threadNames().contains("Kura commits") }, "\(Self.threadNames())")
        monitor.stop()
        #expect(ThreadName.truncated("日本語のスレッド名") == "日本語のス", "cut at a character, within 15 bytes")
    }

    /// Found by the outside suite: a stop after the monitor's thread had
    /// closed its descriptors wrote to a number another file may have by then.
    @Test func stoppingAMonitorWhoseThreadEndedWritesToNoOtherFile() throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.news())
        let monitor = try CommitMonitor(path: container.store.path, transactionID: { 0 }, commit: { _ in })
        #expect(Self.wait { Self.threadNames().contains("Kura commits") })
        monitor.stop()
        #expect(Self.wait { !Self.threadNames().contains("Kura commits") })
        // Descriptor numbers the monitor had are free again: take them.
        var pipes: [[Int32]] = []
        for _ in 0..<4 {
            var ends: [Int32] = [-1, -1]
            #expect(pipe(&ends) == 0)
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
            pipes.append(ends)
        }
        defer { for ends in pipes { close(ends[0]); close(ends[1]) } }
        monitor.stop()
        for ends in pipes {
            var byte: UInt8 = 0
            #expect(read(ends[0], &byte, 1) == -1 && errno == EAGAIN, "nothing was written to another file")
        }
    }

    @Test func aSaveInThisProcessWakesTheSequence() async throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.news())
        let commits = try container.store.commits()
        let saver = Task.detached {
            try await Task.sleep(for: .milliseconds(50))
            let context = container.newContext()
            News(context: context).title = "One"
            try context.save()
        }
        var iterator = commits.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first != nil)
        try await saver.value
    }

    /// A store file with one article (closed and opened again, as another
    /// process would find it), for the helper process to write to.
    static func storeWithOneArticle(function: String = #function) throws -> (TestStore, PersistentContainer) {
        let store = try TestStore(engine: .lmdb, function: function)
        do {
            let container = try PersistentContainer(path: store.path, model: MigrationWorkload.v1())
            try MigrationWorkload.fill(container, count: 1)
            container.close()
        }
        return (store, try PersistentContainer(path: store.path, model: MigrationWorkload.v1()))
    }

    @Test func anotherProcessesSavesArriveWithinMillisecondsAndAnIdleWatchCostsNoCPU() async throws {
        let (store, container) = try Self.storeWithOneArticle()
        let commits = try container.store.commits()
        let woken = Mutex<[(time: Int64, transaction: Int)]>([])
        let watcher = Task.detached {
            for await transaction in commits {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                let time = Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
                woken.withLock { $0.append((time, transaction)) }
            }
        }
        let count = 20
        let (termination, output) = try Helper.run(["commit-timer", store.path, String(count)])
        #expect(termination == .exited(0), "\(output)")
        let saved = output.split(separator: "\n").compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil }
        #expect(saved.count == count)
        // The helper's last commit is seen (however loaded the machine).
        let last = try container.store.read { $0.id }
        for _ in 0..<1000 where woken.withLock({ $0.last?.transaction }) != last {
            try await Task.sleep(for: .milliseconds(10))
        }
        watcher.cancel()
        let wakes = woken.withLock { $0 }
        #expect(wakes.last?.transaction == last, "the last save was never noticed: \(wakes.map(\.transaction)), store at \(last)")
        // Several commits in quick succession may arrive as one, and a
        // machine loaded by the tests running beside this one can hold the
        // monitor's thread back for the whole run: what must hold is that
        // commits arrive in order, each newer than the last.
        #expect(zip(wakes, wakes.dropFirst()).allSatisfy { $0.transaction < $1.transaction })
        // Figures, not assertions: from each save's end to the first wake after it.
        let latencies = saved.map { time -> Double in
            let next = wakes.first { $0.time >= time }?.time ?? time
            return Double(next - time) / 1_000_000
        }.sorted()
        print("commit wake-up latency across processes (\(count) saves): median \(String(format: "%.2f", latencies[count / 2])) ms, max \(String(format: "%.2f", latencies.last ?? 0)) ms")

        let idle = try Helper.run(["watch-idle", store.path, "2"])
        let cpu = idle.output.split(separator: "\n").compactMap { $0.hasPrefix("cpu ") ? Int($0.dropFirst(4)) : nil }.first
        #expect(try #require(cpu) < 200_000, "an idle watch used \(cpu ?? -1) µs of CPU in 2 s")
        print("idle watch: \(cpu ?? -1) µs of CPU in 2 s")
    }

    /// The fallback where the system has no file notices (neither inotify
    /// nor kqueue): forced here, it still sees another process's commits,
    /// the last one included.
    @Test func aPollingMonitorSeesAnotherProcessesCommits() async throws {
        let (store, container) = try Self.storeWithOneArticle()
        let seen = Mutex<[Int]>([])
        let monitor = try CommitMonitor(path: store.path, wake: .polling(milliseconds: 20),
                                        transactionID: { try? container.store.read { $0.id } },
                                        commit: { transaction in seen.withLock { $0.append(transaction) } })
        defer { monitor.stop() }
        let (termination, output) = try Helper.run(["commit-timer", store.path, "5"])
        #expect(termination == .exited(0), "\(output)")
        let last = try container.store.read { $0.id }
        #expect(Self.wait { seen.withLock { $0.last } == last }, "polling saw \(seen.withLock { $0 }), the store is at \(last)")
        #expect(seen.withLock { zip($0, $0.dropFirst()).allSatisfy { $0 < $1 } })
        #expect(CommitWakeSource.Choice.processDefault == .system || ProcessInfo.processInfo.environment["KURA_COMMIT_WATCH"] != nil)
    }
}
