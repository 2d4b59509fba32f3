// kura-compare: Kura, raw LMDB and GRDB on the same data, in one process run
// per size, with the engines interleaved; prints one markdown table per size.
//
//   swift run -c release kura-compare                      # N = 10k and 100k
//   swift run -c release kura-compare --sizes 1000000      # 1M
//   swift run -c release kura-compare --output RESULTS.md  # also write the report
//
// Every operation's results are cross-checked between engines (counts, first
// and last objectIds, title sums): a mismatch stops the run with an error.

import Foundation
import NewsDataset
import NewsEngines

struct Options {
    var sizes = [10_000, 100_000]
    var iterations = 5
    var output: String?
    /// Run only operations whose name contains this text (for profiling).
    var only: String?
    /// Run only these engines (by name, lowercased first word: kura, raw, grdb).
    var engines: Set<String> = ["kura", "raw", "grdb"]

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--sizes":
                guard let value = rest.popFirst() else { throw UsageError() }
                sizes = try value.split(separator: ",").map {
                    guard let size = Int($0.replacingOccurrences(of: "_", with: "")), size >= 1000 else { throw UsageError() }
                    return size
                }
            case "--include-1m":
                sizes.append(1_000_000)
            case "--iterations":
                guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw UsageError() }
                iterations = value
            case "--output":
                output = rest.popFirst()
            case "--only":
                only = rest.popFirst()
            case "--engines":
                guard let value = rest.popFirst() else { throw UsageError() }
                engines = Set(value.split(separator: ",").map { $0.lowercased() })
            default:
                throw UsageError()
            }
        }
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String {
            "usage: kura-compare [--sizes 10000,100000] [--include-1m] [--iterations 5] [--output RESULTS.md] "
                + "[--only OPERATION-TEXT] [--engines kura,raw,grdb]"
        }
    }
}

/// One measured operation: what it is, how many objects one run handles,
/// and how each engine runs it.
struct Operation {
    let name: String
    let unit: String
    let run: (NewsEngine, Int) throws -> Checksum
    /// True when the operation changes the data, so there's no untimed warm-up.
    var mutates = false
}

struct Measurement {
    var seconds: [Double] = []
    var checksum: Checksum?

    var median: Double { seconds.sorted()[seconds.count / 2] }
    var minimum: Double { seconds.min() ?? 0 }
    var maximum: Double { seconds.max() ?? 0 }
}

struct Mismatch: Error, CustomStringConvertible {
    let description: String
}

func time<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = ContinuousClock.now
    let result = try body()
    let elapsed = ContinuousClock.now - start
    return (result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

func formatTime(_ seconds: Double) -> String {
    if seconds >= 1 { return String(format: "%.2f s", seconds) }
    if seconds >= 0.001 { return String(format: "%.1f ms", seconds * 1000) }
    return String(format: "%.0f µs", seconds * 1_000_000)
}

func formatRate(_ perSecond: Double, unit: String) -> String {
    switch perSecond {
    case 1_000_000...: String(format: "%.2fM %@/s", perSecond / 1_000_000, unit)
    case 1_000...: String(format: "%.0fk %@/s", perSecond / 1_000, unit)
    default: String(format: "%.0f %@/s", perSecond, unit)
    }
}

func run(size: Int, options: Options) throws -> String {
    let iterations = options.iterations
    let dataset = NewsDataset(count: size)
    let root = NSTemporaryDirectory() + "kura-compare-\(getpid())-\(size)"
    try? FileManager.default.removeItem(atPath: root)
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }

    let engineTypes: [NewsEngine.Type] = [KuraEngine.self, LMDBEngine.self, GRDBEngine.self].filter { type in
        options.engines.contains(type.name.split(separator: " ")[0].lowercased())
    }
    var engines: [NewsEngine] = []
    var directoryNumber = 0
    func freshEngine(_ type: NewsEngine.Type) throws -> NewsEngine {
        directoryNumber += 1
        let directory = root + "/\(directoryNumber)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try type.init(directory: directory)
    }

    let tenth = max(1, size / 10)
    let rangeOp = dataset.sortOrderRange(from: 0.45, fraction: 0.1)
    let updateRange = dataset.sortOrderRange(from: 0.3, fraction: 0.1)
    let lookups = dataset.lookupIDs
    let operations: [Operation] = [
        Operation(name: "count", unit: "counts") { engine, _ in try engine.count() },
        Operation(name: "fetch all", unit: "objects") { engine, _ in try engine.fetchAll() },
        Operation(name: "fetch all, read every title", unit: "objects") { engine, _ in try engine.fetchAllReadingTitles() },
        Operation(name: "all sorted by sortOrder (indexed)", unit: "objects") { engine, _ in try engine.fetchSortedBySortOrder() },
        Operation(name: "all sorted by title (not indexed)", unit: "objects") { engine, _ in try engine.fetchSortedByTitle() },
        Operation(name: "top-100 by sortOrder, index", unit: "objects") { engine, _ in try engine.fetchTop100(usingIndex: true) },
        Operation(name: "top-100 by sortOrder, no index", unit: "objects") { engine, _ in try engine.fetchTop100(usingIndex: false) },
        Operation(name: "sortOrder BETWEEN (10%), index", unit: "objects") { engine, _ in try engine.fetchRange(rangeOp) },
        Operation(name: "\(lookups.count) getNews lookups by $objectId", unit: "lookups") { engine, _ in
            (engine as? GRDBEngine)?.usesCachedStatement = false
            return try engine.lookUp(lookups)
        },
        Operation(name: "update 10% + save", unit: "objects", run: { engine, iteration in
            try engine.update(updateRange, iteration: iteration)
        }, mutates: true),
        Operation(name: "delete 10% + save", unit: "objects", run: { engine, iteration in
            try engine.delete(dataset.sortOrderRange(from: Double(iteration) * 0.1, fraction: 0.1))
        }, mutates: true),
    ]
    let cachedLookups = Operation(name: "\(lookups.count) getNews lookups, GRDB cached statement", unit: "lookups") { engine, _ in
        (engine as! GRDBEngine).usesCachedStatement = true
        defer { (engine as! GRDBEngine).usesCachedStatement = false }
        return try engine.lookUp(lookups)
    }

    var results: [(Operation, [String: Measurement])] = []
    func record(_ operation: Operation, _ engine: NewsEngine, _ checksum: Checksum, _ seconds: Double, into measurements: inout [String: Measurement]) throws {
        measurements[engine.name, default: Measurement()].seconds.append(seconds)
        if let first = measurements.values.compactMap(\.checksum).first, first != checksum {
            throw Mismatch(description: "\(operation.name): \(engine.name) returned \(checksum), another engine \(first)")
        }
        measurements[engine.name]!.checksum = checksum
    }

    // Insert: each iteration into new, empty stores; the last ones stay.
    let insert = Operation(name: "insert \(size) + save", unit: "objects") { engine, _ in try engine.insert(dataset.news) }
    var measurements: [String: Measurement] = [:]
    for iteration in 0..<iterations {
        var latest: [NewsEngine] = []
        for offset in 0..<engineTypes.count {
            let type = engineTypes[(iteration + offset) % engineTypes.count]
            let engine = try freshEngine(type)
            let (checksum, seconds) = try time { try insert.run(engine, iteration) }
            try record(insert, engine, checksum, seconds, into: &measurements)
            latest.append(engine)
        }
        engines = engineTypes.map { type in latest.first { Swift.type(of: $0) == type }! }
        if iteration < iterations - 1 { latest.removeAll() }
    }
    results.append((insert, measurements))
    FileHandle.standardError.write("N=\(size): insert done\n".data(using: .utf8)!)

    for operation in operations + [cachedLookups] where options.only.map({ operation.name.contains($0) }) ?? true {
        var measurements: [String: Measurement] = [:]
        let participants = operation.name.contains("cached statement") ? engines.filter { $0 is GRDBEngine } : engines
        if participants.isEmpty { continue }
        if !operation.mutates {
            for engine in participants { _ = try operation.run(engine, 0) }
        }
        for iteration in 0..<iterations {
            for offset in 0..<participants.count {
                let engine = participants[(iteration + offset) % participants.count]
                let (checksum, seconds) = try time { try operation.run(engine, iteration) }
                if operation.mutates {
                    // Mutations return what they touched; compare counts only.
                    measurements[engine.name, default: Measurement()].seconds.append(seconds)
                    if let first = measurements.values.compactMap(\.checksum).first, first.count != checksum.count {
                        throw Mismatch(description: "\(operation.name): \(engine.name) touched \(checksum.count), another engine \(first.count)")
                    }
                    measurements[engine.name]!.checksum = checksum
                } else {
                    try record(operation, engine, checksum, seconds, into: &measurements)
                }
            }
        }
        results.append((operation, measurements))
        FileHandle.standardError.write("N=\(size): \(operation.name) done\n".data(using: .utf8)!)
    }
    // After deleting, every engine must hold the same number of records.
    let remaining = try engines.map { try $0.count().count }
    guard Set(remaining).count == 1 else { throw Mismatch(description: "record counts after deleting differ: \(remaining)") }
    _ = tenth

    var table = "### N = \(size)\n\n"
    table += "| Operation | Kura | raw LMDB | GRDB | Kura / LMDB | GRDB / Kura |\n"
    table += "|---|---|---|---|---|---|\n"
    for (operation, measurements) in results {
        var row = "| \(operation.name) |"
        for name in ["Kura", "raw LMDB", "GRDB"] {
            guard let measurement = measurements[name] else {
                row += " — |"
                continue
            }
            let objects = max(1, operation.unit == "counts" ? 1 : measurement.checksum?.count ?? 1)
            row += " \(formatTime(measurement.median)) (\(formatTime(measurement.minimum))–\(formatTime(measurement.maximum))) · \(formatRate(Double(objects) / measurement.median, unit: operation.unit)) |"
        }
        let kura = measurements["Kura"]?.median
        let lmdb = measurements["raw LMDB"]?.median
        let grdb = measurements["GRDB"]?.median
        if let kura, let lmdb { row += String(format: " %.2f |", kura / lmdb) } else { row += " — |" }
        if operation.name.contains("cached statement"), let grdb, let kura = results.first(where: { $0.0.name.contains("lookups by") })?.1["Kura"]?.median {
            row += String(format: " %.2f |", grdb / kura)
        } else if let kura, let grdb {
            row += String(format: " %.2f |", grdb / kura)
        } else {
            row += " — |"
        }
        table += row + "\n"
    }
    return table
}

func machineDescription() -> String {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
    var swift = "unknown Swift"
    // popen, not Foundation's Process, whose exit detection can miss a child on Linux.
    if let pipe = popen("swift --version 2>/dev/null", "r") {
        var line = [CChar](repeating: 0, count: 512)
        if fgets(&line, Int32(line.count), pipe) != nil {
            swift = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        pclose(pipe)
    }
    return "\(cores) cores, \(String(format: "%.0f", memory)) GiB memory, \(swift)"
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    #if DEBUG
    let mode = "debug (figures are not meaningful; use -c release)"
    #else
    let mode = "release"
    #endif
    let allocator = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"].map { "GLIBC_TUNABLES=\($0)" } ?? "glibc malloc, default settings"
    var report = "# Kura benchmark results\n\n"
    report += "- Date: \(Date().formatted(.iso8601))\n"
    report += "- Build: \(mode)\n"
    report += "- Machine: \(machineDescription())\n"
    report += "- Allocator: \(allocator)\n"
    report += "- Iterations: \(options.iterations) per engine per operation, engines interleaved; median (min–max) · rate\n"
    report += "- Command: `swift run -c release kura-compare \(CommandLine.arguments.dropFirst().joined(separator: " "))`\n\n"
    report += "Kura/LMDB below 1 means Kura is faster than the raw-LMDB bound; GRDB/Kura above 1 means Kura is faster than GRDB.\n"
    report += "Kura decodes attribute values lazily: \"fetch all\" makes the objects, \"fetch all, read every title\" also decodes a string per object; raw LMDB and GRDB decode every field in both.\n\n"
    print(report, terminator: "")
    for size in options.sizes {
        let table = try run(size: size, options: options)
        print(table)
        report += table + "\n"
    }
    if let output = options.output {
        try report.write(toFile: output, atomically: true, encoding: .utf8)
    }
} catch {
    FileHandle.standardError.write("kura-compare: \(error)\n".data(using: .utf8)!)
    exit(1)
}
