import Foundation
import Kura
import NewsEngines
#if canImport(PostgresEngines)
import PostgresEngines
#endif

/// "Processes saving concurrently" (one, then four): each process (this program,
/// `concurrent-saver`) makes `saves` saves, each adding one to a revision
/// that every process changes (two shared items), so saves conflict and
/// are retried. Figures: the span from the first process starting its
/// saves to the last finishing, saves per second over it, the conflicts
/// retried, and a check that no save was lost (the revisions add up).
func runConcurrentSuite(options: Options) throws -> String {
    let saves = options.concurrentSaves
    let directories = try StoreDirectories(label: "concurrent")
    var engines: [(name: String, kind: String, make: () throws -> String, sum: (String) throws -> Int)] = []
    if options.engines.contains("kura") {
        engines.append(("Kura (LMDB)", "lmdb", {
            let directory = try directories.next()
            try ChangeWorkload.fill(try ChangeWorkload.open(directory), count: 20)
            return directory
        }, { try ChangeWorkload.revisionSum(try ChangeWorkload.open($0)) }))
    }
    #if canImport(PostgresEngines)
    if options.engines.contains("postgres-nio") {
        engines.append(("postgres-nio", "postgres-nio", ConcurrentCounters.newTable, ConcurrentCounters.rawRevisions))
    }
    if options.engines.contains("kura-postgres") {
        engines.append(("Kura on PostgreSQL", "kura-postgres", ConcurrentCounters.newKuraStore, ConcurrentCounters.kuraRevisions))
    }
    #endif
    var table = "### Processes saving concurrently, \(saves) saves each (optimistic, conflicts retried)\n\n"
    table += "| Engine | processes | span (median) | saves/s | conflicts retried (median) | saves lost |\n|---|---|---|---|---|---|\n"
    for processes in [1, 4] {
    for engine in engines {
        var spans: [Double] = []
        var conflicts: [Int] = []
        var lost = 0
        for _ in 0..<options.iterations {
            let location = try engine.make()
            let children = try (0..<processes).map { worker in
                try startChild(["concurrent-saver", engine.kind, location, String(saves), String(worker)])
            }
            var starts: [Double] = []
            var ends: [Double] = []
            var retried = 0
            for child in children {
                let output = try child.finish()
                let fields = Dictionary(uniqueKeysWithValues: output.split(separator: " ").compactMap { field -> (String, Double)? in
                    let parts = field.split(separator: "=")
                    guard parts.count == 2, let value = Double(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
                    return (String(parts[0]), value)
                })
                guard let start = fields["start"], let end = fields["end"], let conflicts = fields["conflicts"] else {
                    throw Mismatch(description: "concurrent-saver printed '\(output)'")
                }
                starts.append(start)
                ends.append(end)
                retried += Int(conflicts)
            }
            spans.append(ends.max()! - starts.min()!)
            conflicts.append(retried)
            lost += processes * saves - (try engine.sum(location))
        }
        let span = spans.sorted()[spans.count / 2]
        table += "| \(engine.name) | \(processes) | \(formatTime(span)) | \(Int(Double(processes * saves) / span)) | "
            + "\(conflicts.sorted()[conflicts.count / 2]) | \(lost) |\n"
        progress("concurrent: \(engine.name), \(processes) processes done")
    }
    }
    return table
}

/// The `concurrent-saver KIND LOCATION SAVES WORKER` child: prints
/// `start=… end=… conflicts=…` (seconds since 1970, conflicts retried).
@Sendable func concurrentSaver(_ arguments: [String]) throws {
    guard arguments.count == 4, let saves = Int(arguments[2]), let worker = Int(arguments[3]) else {
        throw Mismatch(description: "concurrent-saver KIND LOCATION SAVES WORKER")
    }
    let location = arguments[1]
    var conflicts = 0
    var start = 0.0
    switch arguments[0] {
    case "lmdb":
        let container = try ChangeWorkload.open(location)
        start = Date().timeIntervalSince1970
        conflicts = try ChangeWorkload.concurrentSaves(container, saves: saves, worker: worker)
    #if canImport(PostgresEngines)
    case "postgres-nio":
        conflicts = try ConcurrentCounters.rawSaves(url: location, saves: saves, worker: worker) {
            start = Date().timeIntervalSince1970
        }
    case "kura-postgres":
        let container = try ConcurrentCounters.openKuraStore(url: location)
        start = Date().timeIntervalSince1970
        conflicts = try ChangeWorkload.concurrentSaves(container, saves: saves, worker: worker)
    #endif
    default:
        throw Mismatch(description: "concurrent-saver: unknown engine \(arguments[0])")
    }
    print("start=\(start) end=\(Date().timeIntervalSince1970) conflicts=\(conflicts)")
}

/// The `concurrent-fill KIND LOCATION` child: fills the store (a directory,
/// or a `postgres://` URL of an empty database) with the items
/// `concurrent-saver` changes, so that one saver can be run and profiled by
/// hand (`valgrind --tool=callgrind kura-compare concurrent-saver …`).
@Sendable func concurrentFill(_ arguments: [String]) throws {
    guard arguments.count == 2 else { throw Mismatch(description: "concurrent-fill KIND LOCATION") }
    switch arguments[0] {
    case "lmdb":
        try ChangeWorkload.fill(try ChangeWorkload.open(arguments[1]), count: 20)
    #if canImport(PostgresEngines)
    case "kura-postgres":
        try ChangeWorkload.fill(try ConcurrentCounters.openKuraStore(url: arguments[1]), count: 20)
    #endif
    default:
        throw Mismatch(description: "concurrent-fill: unknown engine \(arguments[0])")
    }
}
