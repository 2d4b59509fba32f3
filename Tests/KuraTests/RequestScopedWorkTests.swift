import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Synchronization
import Testing

/// Request-scoped work as a server does it: many concurrent tasks, each
/// with a context for a moment, on a bounded number of threads.
@Suite(.timeLimit(.minutes(5))) struct RequestScopedWorkTests {
    /// The calling thread's name, as the kernel shows it.
    static func currentThreadName() -> String {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .newlines)
    }

    @Test func aThousandConcurrentRequestsShareABoundedNumberOfThreads() async throws {
        let store = try TestStore()
        var options = StoreOptions()
        options.backgroundThreadLimit = 6
        let container = try store.open(.news(), options: options)
        _ = try ObservationTests.insertNews(container.newContext(), Array(0..<50))
        final class Tally: Sendable {
            let seen = Mutex<Set<UInt>>([])
            let names = Mutex<Set<String>>([])
            let peak = Mutex((now: 0, most: 0))
        }
        let tally = Tally()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for request in 0..<1_000 {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        tally.seen.withLock { _ = $0.insert(UInt(pthread_self())) }
                        let name = Self.currentThreadName()
                        tally.names.withLock { _ = $0.insert(name) }
                        tally.peak.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        defer { tally.peak.withLock { $0.now -= 1 } }
                        if request % 10 == 0 {
                            let news = News(context: context)
                            news.title = "request \(request)"
                            try context.save()
                        }
                        return try context.count(for: FetchRequest<News>(predicate: \.sortOrder < 25))
                    }
                }
            }
            var counted: [Int] = []
            for try await count in group { counted.append(count) }
            return counted
        }
        #expect(results.count == 1_000)
        #expect(results.allSatisfy { $0 >= 25 })
        #expect(try container.newContext().count(for: FetchRequest<News>()) == 150, "every request's save")
        #expect(tally.seen.withLock { $0.count } <= 6, "bodies ran on \(tally.seen.withLock { $0.count }) threads")
        #expect(tally.peak.withLock { $0.most } <= 6, "\(tally.peak.withLock { $0.most }) bodies ran at once")
        #expect(container.backgroundThreadCount <= 6)
        // Every body ran on one of the pool's own threads: none on a thread
        // of Swift's cooperative pool, none on a thread made for a request.
        // (Counting the process's threads would count other tests' too.)
        #expect(tally.names.withLock { $0 }.allSatisfy { $0.hasPrefix("Kura pool") }, "\(tally.names.withLock { $0 })")
        print("request-scoped work: 1,000 requests on \(tally.seen.withLock { $0.count }) threads, \(tally.peak.withLock { $0.most }) at once")
    }

    @Test func aBodyRunsOffTheCooperativePoolAndItsErrorsAndCancellationReachTheCaller() async throws {
        let store = try TestStore()
        let container = try store.open(.news())
        // A body that blocks its thread doesn't hold one of the pool's: a
        // task on the cooperative pool still runs meanwhile.
        let release = DispatchSemaphore(value: 0)
        let blocked = Task { try await container.performBackgroundTask { _ in release.wait(); return 1 } }
        let other = Task.detached { 2 }
        #expect(await other.value == 2)
        release.signal()
        #expect(try await blocked.value == 1)
        await #expect(throws: KuraError.self) {
            try await container.performBackgroundTask { context in try context.fetch(FetchRequest(entityName: "Nope")).count }
        }
        // Cancelled before it runs: a fetch in it throws CancellationError.
        let cancelled = Task {
            try await container.performBackgroundTask { context in
                try context.fetch(FetchRequest<News>()).count
            }
        }
        cancelled.cancel()
        _ = await cancelled.result  // finishes either way: cancelled in its fetch, or done before
    }
}

/// ``ObjectSnapshot``: what crosses from a context to another task or an encoder.
@Suite struct ObjectSnapshotTests {
    @Test func aSnapshotReadsByKeyPathAndEncodesEveryAttributeAndToOne() async throws {
        let store = try TestStore()
        let container = try store.open(.blog())
        let context = container.newContext()
        let author = Author(context: context)
        author.name = "Ann"
        let post = Post(context: context)
        post.title = "Kura \"ships\""
        post.score = 7
        post.author = author
        try context.save()
        let snapshots = try await container.performBackgroundTask { context in
            try context.fetch(FetchRequest<Post>()).map { try $0.snapshot() }
        }
        let snapshot = try #require(snapshots.first)
        #expect(snapshot.title == "Kura \"ships\"" && snapshot.score == 7)
        #expect(snapshot.id == post.objectID)
        #expect(try snapshot.objectID(forRelationshipNamed: "author") == author.objectID)
        #expect(try snapshot.value(forKey: "title") == .string("Kura \"ships\""))
        #expect(throws: KuraError.self) { try snapshot.value(forKey: "nope") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try #require(try JSONSerialization.jsonObject(with: encoder.encode(snapshot)) as? [String: Any])
        #expect(json["objectID"] as? String == post.objectID.uriRepresentation)
        #expect(json["title"] as? String == "Kura \"ships\"")
        #expect(json["score"] as? Int == 7)
        #expect(json["author"] as? String == author.objectID.uriRepresentation)
        // Every attribute is there, nil ones as null.
        let entity = try #require(container.model.entity(named: "Post"))
        #expect(Set(entity.attributes.map(\.name)).isSubset(of: Set(json.keys)))
        // Unsaved changes are what a snapshot shows.
        post.title = "changed"
        #expect(try post.snapshot().title == "changed")
    }

    @Test func aCodableAttributeEncodesAsItsOwnJSON() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Shop.self))
        let context = container.newContext()
        let shop = Shop(context: context)
        shop.name = "Kura Books"
        shop.address = CodableAttributeTests.kyoto
        let encoded = try JSONEncoder().encode(try shop.snapshot())
        let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        let address = try #require(json["address"] as? [String: Any])
        #expect(address["city"] as? String == "Kyoto")
        #expect(try shop.snapshot().address == CodableAttributeTests.kyoto)
    }
}

/// ``PersistentContainer/shutDown()``: no work taken is lost, new work is refused.
@Suite(.timeLimit(.minutes(5))) struct ContainerShutdownTests {
    @Test func shuttingDownFinishesTheSavesUnderWayAndRefusesNewWork() async throws {
        let store = try TestStore(engine: .lmdb)
        var options = StoreOptions()
        options.backgroundThreadLimit = 4
        let container = try store.open(.news(), options: options)
        // Saves under way: four hold the pool's four threads until the
        // shutdown has begun, four more wait in its queue. (Only pool
        // threads wait on the semaphore: a wait on one of the cooperative
        // pool's would starve the tasks that feed the pool.)
        final class Started: Sendable { let count = Atomic(0) }
        let started = Started()
        let release = DispatchSemaphore(value: 0)
        func save(_ number: Int, holding: Bool) -> Task<Int, any Error> {
            Task {
                try await container.performBackgroundTask { context in
                    started.count.add(1, ordering: .sequentiallyConsistent)
                    if holding { release.wait() }
                    News(context: context).title = "save \(number)"
                    try context.save()
                    return number
                }
            }
        }
        var saves = (0..<4).map { save($0, holding: true) }
        while started.count.load(ordering: .sequentiallyConsistent) < 4 { await Task.yield() }
        saves += (4..<8).map { save($0, holding: false) }
        while container.backgroundPool.bodiesInHand < 8 { await Task.yield() }   // four running, four queued
        let shutdown = Task { await container.shutDown() }
        // New work is refused once the shutdown began.
        while !container.backgroundPool.isDraining { await Task.yield() }
        await #expect(throws: KuraError.storeClosed(path: container.store.path)) {
            try await container.performBackgroundTask { _ in 0 }
        }
        for _ in 0..<4 { release.signal() }
        await shutdown.value
        var acknowledged: [Int] = []
        for save in saves {
            if let number = try? await save.value { acknowledged.append(number) }
        }
        #expect(acknowledged.sorted() == Array(0..<8), "every save taken before the shutdown finished")
        // Reopened: every acknowledged save is there.
        let reopened = try store.open(.news())
        let titles = try reopened.newContext().fetch(FetchRequest<News>()).map(\.title)
        #expect(Set(titles) == Set(acknowledged.map { "save \($0)" }))
    }
}
