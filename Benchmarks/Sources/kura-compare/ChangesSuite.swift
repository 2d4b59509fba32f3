import Foundation
import Kura
import NewsEngines
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The "changes that travel" rows (Kura alone: the other engines have no
/// contexts to merge into): how soon an observer of a fetch request sees a
/// save, in this process and from another; what observers cost a save; and
/// merging a large save into a context holding many objects.
func runChangesSuite(options: Options) async throws -> String {
    let directories = try StoreDirectories(label: "changes")
    var table = "### Changes that travel (Kura)\n\n"
    table += "| Operation | median | p99 | min–max | samples |\n|---|---|---|---|---|\n"
    func row(_ name: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        table += "| \(name) | \(formatTime(sorted[sorted.count / 2])) | \(formatTime(p99)) | "
            + "\(formatTime(sorted.first!))–\(formatTime(sorted.last!)) | \(sorted.count) |\n"
        progress("changes: \(name) done")
    }

    let latencyName = "save() called → observer's new results, same process (the save included)"
    if options.selects(latencyName) { row(latencyName, try await sameProcessLatency(try directories.next(), saves: 200)) }
    let remoteName = "save() returned → observer's new results, another process (history on)"
    if options.selects(remoteName) { row(remoteName, try await otherProcessLatency(try directories.next(), saves: 100)) }
    for observers in [1, 100, 1000] {
        for related in [false, true] {
            let kind = related ? "related (all re-fetch and update)" : "unrelated"
            let name = "save with \(observers) observer\(observers == 1 ? "" : "s"), \(kind)"
            guard options.selects(name) else { continue }
            let (save, settled) = try await observedSaveCost(try directories.next(), observers: observers, related: related, saves: 30)
            row(name + ": save()", save)
            if related { row(name + ": until every observer updated", settled) }
        }
    }
    let mergeName = "merge a 10k-object save into a context holding 100k objects"
    if options.selects(mergeName) { row(mergeName, try mergeCost(try directories.next(), held: 100_000, saved: 10_000, iterations: options.iterations)) }
    return table
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// One context saves a change to group 0 at a time; another context's
/// observation of group 0, in another task, reports each. Time from
/// calling save() to the observer having the new results (measured from
/// the call, since observers hear of a save before it returns).
private func sameProcessLatency(_ directory: String, saves: Int) async throws -> [Double] {
    let container = try ChangeWorkload.open(directory)
    try ChangeWorkload.fill(container, count: 1000)
    let (received, receiver) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
    let observer = Task.detached {
        let context = container.newContext()
        for try await _ in context.results(for: try ChangeWorkload.group(0, in: container.model)) { receiver.yield(.now) }
    }
    var arrivals = received.makeAsyncIterator()
    _ = await arrivals.next()   // the first results
    let context = container.newContext()
    var samples: [Double] = []
    for round in 1...saves {
        let item = try context.fetch(try ChangeWorkload.group(0, in: container.model).limited(to: 1))[0]
        try item.setValue(.int(Int64(round)), forKey: "revision")
        let saving = ContinuousClock.now
        try context.save()
        guard let arrived = await arrivals.next() else { break }
        samples.append(seconds(arrived - saving))
    }
    observer.cancel()
    return samples
}

/// Another process (this program, `changes-writer`) saves one change every
/// 20 ms and prints the wall-clock time each save returned; this process
/// observes. Time from the save returning there to the new results here.
private func otherProcessLatency(_ directory: String, saves: Int) async throws -> [Double] {
    do {
        let container = try ChangeWorkload.open(directory, tracksHistory: true)
        try ChangeWorkload.fill(container, count: 1000)
        container.close()
    }
    let container = try ChangeWorkload.open(directory, tracksHistory: true)
    let arrivals = Mutex<[(revision: Int64, time: Int64)]>([])
    let observer = Task.detached {
        let context = container.newContext()
        for try await results in context.results(for: try ChangeWorkload.group(0, in: container.model)) {
            let time = realtimeNanoseconds()
            let revision = try results.objects.first?.value(forKey: "revision", as: Int64.self) ?? 0
            arrivals.withLock { $0.append((revision, time)) }
        }
    }
    while arrivals.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
    let (text, _) = try runChild(["changes-writer", directory, String(saves)])
    let saved = text.split(separator: "\n").compactMap { line -> (Int64, Int64)? in
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "saved", let revision = Int64(parts[1]), let time = Int64(parts[2]) else { return nil }
        return (revision, time)
    }
    guard saved.count == saves else { throw Mismatch(description: "changes-writer: \(text)") }
    // Wait for the last save to arrive (at most 5 s).
    for _ in 0..<5000 where arrivals.withLock({ $0.last?.revision ?? 0 }) < Int64(saves) {
        try await Task.sleep(for: .milliseconds(1))
    }
    observer.cancel()
    let seen = arrivals.withLock { $0 }
    return saved.compactMap { revision, time in
        seen.first { $0.revision >= revision }.map { Double($0.time - time) / 1e9 }
    }
}

/// `changes-writer DIRECTORY COUNT`: COUNT saves bumping group 0's first
/// item, 20 ms apart; after each, prints `saved REVISION NANOSECONDS`.
func changesWriter(_ arguments: [String]) throws {
    guard arguments.count == 2, let count = Int(arguments[1]) else { throw Options.UsageError() }
    let container = try ChangeWorkload.open(arguments[0], tracksHistory: true)
    let context = container.newContext()
    for revision in 1...count {
        usleep(20_000)
        try ChangeWorkload.touch(group: 0, in: context)
        print("saved \(revision) \(realtimeNanoseconds())")
    }
}

func realtimeNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// `observers` contexts, each in its own task, observe group 0 (related:
/// every save changes their results) or the Others (unrelated); one
/// context saves a change to group 0. Times save() alone, and from its
/// start until every related observer has its new results.
private func observedSaveCost(
    _ directory: String, observers: Int, related: Bool, saves: Int
) async throws -> (save: [Double], settled: [Double]) {
    let container = try ChangeWorkload.open(directory)
    try ChangeWorkload.fill(container, count: 1000)
    let counter = UpdateCounter()
    let request = related ? try ChangeWorkload.group(0, in: container.model) : ChangeWorkload.others
    let tasks = (0..<observers).map { _ in
        Task.detached {
            let context = container.newContext()
            for try await _ in context.results(for: request) { counter.updates.add(1, ordering: .relaxed) }
        }
    }
    while counter.updates.load(ordering: .relaxed) < observers { try await Task.sleep(for: .milliseconds(1)) }
    let context = container.newContext()
    var save: [Double] = []
    var settled: [Double] = []
    for round in 1...saves {
        let item = try context.fetch(try ChangeWorkload.group(0, in: container.model).limited(to: 1))[0]
        try item.setValue(.int(Int64(round)), forKey: "revision")
        let start = ContinuousClock.now
        try context.save()
        save.append(seconds(.now - start))
        guard related else { continue }
        while counter.updates.load(ordering: .relaxed) < observers * (round + 1) { await Task.yield() }
        settled.append(seconds(.now - start))
    }
    for task in tasks { task.cancel() }
    return (save, settled)
}

private final class UpdateCounter: Sendable {
    let updates = Atomic(0)
}

/// A context holding `held` items (values loaded) merges another
/// context's save that changed `saved` of them.
private func mergeCost(_ directory: String, held: Int, saved: Int, iterations: Int) throws -> [Double] {
    let container = try ChangeWorkload.open(directory)
    try ChangeWorkload.fill(container, count: held)
    let holder = container.newContext()
    let objects = try holder.fetch(FetchRequest(entityName: "Item"))
    for object in objects { _ = try object.value(forKey: "name") }
    let writer = container.newContext()
    let written = try writer.fetch(FetchRequest(entityName: "Item").limited(to: saved))
    var samples: [Double] = []
    for iteration in 1...iterations {
        let changes = Mutex<ContextChanges?>(nil)
        let center = NotificationCenter()
        writer.notificationCenter = center
        let token = center.addObserver(forName: ManagedObjectContext.didSaveNotification, object: writer, queue: nil) { note in
            changes.withLock { $0 = ContextChanges(note) }
        }
        for object in written { try object.setValue(.int(Int64(iteration)), forKey: "revision") }
        try writer.save()
        center.removeObserver(token)
        guard let saved = changes.withLock({ $0 }) else { throw Mismatch(description: "no didSave notification") }
        let (_, elapsed) = time { holder.mergeChanges(saved) }
        samples.append(elapsed)
        // The merged objects read the new values.
        guard try objects[0].value(forKey: "revision", as: Int64.self) == Int64(iteration) else {
            throw Mismatch(description: "merge didn't refresh the held objects")
        }
    }
    return samples
}
