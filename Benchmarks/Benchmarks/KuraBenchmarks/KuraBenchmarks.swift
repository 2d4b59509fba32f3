// package-benchmark suite for Kura's operations at a small N. The thresholds
// in Thresholds/ guard malloc counts (deterministic, unlike wall time):
//
//   swift package benchmark --target KuraBenchmarks thresholds check
//   swift package --allow-writing-to-package-directory benchmark --target KuraBenchmarks thresholds update
//
// Wall time is not a metric here: on a shared machine it can't pass or fail
// anything. kura-compare measures time, against raw LMDB and GRDB.

import Benchmark
import Foundation
import NewsDataset
import NewsEngines
import Kura
import Synchronization

/// N for the threshold benchmarks: small, so the check is cheap.
let size = 1_000

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.mallocCountTotal],
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 20,
        thresholds: [.mallocCountTotal: BenchmarkThresholds(relative: [.p90: 2.0], absolute: [.p90: 50])])

    let dataset = NewsDataset(count: size)
    let directory = NSTemporaryDirectory() + "kura-benchmarks-\(getpid())"
    try? FileManager.default.removeItem(atPath: directory)
    try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let engine = try! KuraEngine(directory: directory)
    _ = try! engine.insert(dataset.news)
    let lookups = Array(dataset.lookupIDs.prefix(1000))
    let range = dataset.sortOrderRange(from: 0.45, fraction: 0.1)
    let updateRange = dataset.sortOrderRange(from: 0.3, fraction: 0.1)

    Benchmark("KuraInsert1000AndSave") { benchmark in
        for iteration in benchmark.scaledIterations {
            let fresh = directory + "/insert-\(iteration)-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
            let target = try KuraEngine(directory: fresh)
            benchmark.startMeasurement()
            blackHole(try target.insert(dataset.news))
            benchmark.stopMeasurement()
        }
    }
    Benchmark("KuraFetchAll") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchAll()) }
    }
    Benchmark("KuraFetchAllReadingTitles") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchAllReadingTitles()) }
    }
    Benchmark("KuraFetchAllReadingEveryField") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchAllReadingEveryField()) }
    }
    Benchmark("KuraFetchBatchedReadingEveryField") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.walkBatchedReadingEveryField(batchSize: 100)) }
    }
    Benchmark("KuraSortedBySortOrder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchSortedBySortOrder()) }
    }
    Benchmark("KuraSortedByTitle") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchSortedByTitle()) }
    }
    Benchmark("KuraTop100Index") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchTop100(usingIndex: true)) }
    }
    Benchmark("KuraTop100NoIndex") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchTop100(usingIndex: false)) }
    }
    Benchmark("KuraRange10Percent") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.fetchRange(range)) }
    }
    Benchmark("KuraTemplateLookups1000") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.lookUp(lookups)) }
    }
    Benchmark("KuraCount") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try engine.count()) }
    }
    Benchmark("KuraDelete10PercentAndSave") { benchmark in
        for iteration in benchmark.scaledIterations {
            let fresh = directory + "/delete-\(iteration)-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
            let target = try KuraEngine(directory: fresh)
            _ = try target.insert(dataset.news)
            benchmark.startMeasurement()
            blackHole(try target.delete(updateRange))
            benchmark.stopMeasurement()
        }
    }
    Benchmark("KuraUpdate10PercentAndSave") { benchmark in
        for iteration in benchmark.scaledIterations { blackHole(try engine.update(updateRange, iteration: iteration)) }
    }

    // The object graph at the same N: 1,000 news, 10 authors, 100 tags.
    let graph = GraphDataset(count: size)
    let graphDirectory = directory + "/graph"
    try! FileManager.default.createDirectory(atPath: graphDirectory, withIntermediateDirectories: true)
    let graphEngine = try! KuraGraphEngine(directory: graphDirectory)
    _ = try! graphEngine.insert(graph)

    Benchmark("KuraGraphInsertAndSave") { benchmark in
        for iteration in benchmark.scaledIterations {
            let fresh = directory + "/graph-insert-\(iteration)-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
            let target = try KuraGraphEngine(directory: fresh)
            benchmark.startMeasurement()
            blackHole(try target.insert(graph))
            benchmark.stopMeasurement()
        }
    }
    Benchmark("KuraGraphFetchAllWithAuthor") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try graphEngine.fetchAllWithAuthor()) }
    }
    Benchmark("KuraGraphByAuthorName") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try graphEngine.fetchByAuthorName(graph.queriedAuthors)) }
    }
    Benchmark("KuraGraphAnyTagName") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try graphEngine.fetchByTagName(graph.queriedTags)) }
    }
    Benchmark("KuraGraphTagCount") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try graphEngine.fetchWithAtLeastThreeTags()) }
    }
    Benchmark("KuraGraphWalkAuthors") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try graphEngine.walkAuthorsCountingNews()) }
    }
    Benchmark("KuraGraphCascadeDelete") { benchmark in
        for iteration in benchmark.scaledIterations {
            let fresh = directory + "/graph-delete-\(iteration)-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
            let target = try KuraGraphEngine(directory: fresh)
            _ = try target.insert(graph)
            benchmark.startMeasurement()
            blackHole(try target.cascadeDeleteAuthors(graph.deletedAuthors(iteration: 0)))
            benchmark.stopMeasurement()
        }
    }

    // Changes that travel: merging a save into a context, a save with
    // observers that it doesn't concern, and an observed save reaching
    // its observer's new results (all in this process).
    let changesDirectory = directory + "/changes"
    try! FileManager.default.createDirectory(atPath: changesDirectory, withIntermediateDirectories: true)
    let changes = try! ChangeWorkload.open(changesDirectory)
    try! ChangeWorkload.fill(changes, count: size)

    Benchmark("KuraMerge100Into1000") { benchmark in
        let holder = changes.newContext()
        let held = try holder.fetch(FetchRequest(entityName: "Item"))
        let writer = changes.newContext()
        let written = try writer.fetch(FetchRequest(entityName: "Item").limited(to: 100))
        let center = NotificationCenter()
        writer.notificationCenter = center
        let saved = Mutex<ContextChanges?>(nil)
        let token = center.addObserver(forName: ManagedObjectContext.didSaveNotification, object: writer, queue: nil) { note in
            saved.withLock { $0 = ContextChanges(note) }
        }
        defer { center.removeObserver(token) }
        for _ in benchmark.scaledIterations {
            for object in held { _ = try object.value(forKey: "name") }
            for object in written {
                try object.setValue(.int(try object.value(forKey: "revision", as: Int64.self) + 1), forKey: "revision")
            }
            try writer.save()
            let changes = saved.withLock { $0 }!
            benchmark.startMeasurement()
            holder.mergeChanges(changes)
            benchmark.stopMeasurement()
        }
    }
    // Observers are told on their own tasks while the saves are measured, so
    // this count moves by a few allocations between runs (138–141): 5%, not 2%.
    Benchmark("KuraSaveWith100UnrelatedObservers", configuration: .init(
        metrics: [.mallocCountTotal], warmupIterations: 1, maxDuration: .seconds(2), maxIterations: 20,
        thresholds: [.mallocCountTotal: BenchmarkThresholds(relative: [.p90: 5.0], absolute: [.p90: 50])])
    ) { benchmark in
        var observations: [FetchedResultsSequence.Iterator] = []
        for _ in 0..<100 {
            var iterator = changes.newContext().results(for: ChangeWorkload.others).makeAsyncIterator()
            _ = try await iterator.next()
            observations.append(iterator)
        }
        let writer = changes.newContext()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { try ChangeWorkload.touch(group: 1, in: writer) }
        benchmark.stopMeasurement()
        blackHole(observations)
    }
    Benchmark("KuraObservedSaveToNewResults") { benchmark in
        var results = changes.newContext().results(for: try ChangeWorkload.group(2, in: changes.model)).makeAsyncIterator()
        _ = try await results.next()
        let writer = changes.newContext()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            try ChangeWorkload.touch(group: 2, in: writer)
            blackHole(try await results.next())
        }
        benchmark.stopMeasurement()
    }
}
