// kura-compare: Kura, raw LMDB and GRDB on the same data, in one process run
// per size, with the engines interleaved; prints markdown tables per size:
// the News operations (attributes only), then the object graph's (News with
// Authors and Tags).
//
//   swift run -c release kura-compare                      # N = 10k and 100k
//   swift run -c release kura-compare --sizes 1000000      # 1M
//   swift run -c release kura-compare --output RESULTS.md  # also write the report
//
// Every operation's results are cross-checked between engines (counts, first
// and last objectIds, sums of what was read): a mismatch stops the run with an error.

import Foundation
import NewsDataset
import Synchronization

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

/// Runs an async suite from this synchronous program, on a task of the
/// pool, while the main thread waits.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

runChildModeIfAsked()

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
    report += "Kura decodes attribute values lazily: \"fetch all\" makes the objects, \"fetch all, read every title\" also decodes a string per object, \"read every field\" decodes all seven; raw LMDB and GRDB decode every field in all three.\n"
    report += "GRDB is GRDB as a newcomer writes it (Codable records, text dates, the query interface); GRDB tuned as an expert writes it (positional `init(row:)`, dates as REAL seconds, cached statements, inserts and updates through one cached statement). Lookups run one read per lookup, as Kura's API does; the \"one read\" row puts all of GRDB tuned's in one.\n\n"
    print(report, terminator: "")
    for size in options.sizes {
        var tables: [String] = []
        if options.suites.contains("news") {
            tables.append(resultTable(title: "N = \(size)", rows: try runNewsSuite(size: size, options: options)))
        }
        if options.suites.contains("graph") {
            let graph = GraphDataset(count: size)
            let title = "Object graph, N = \(size) news, \(graph.authorNames.count) authors, \(graph.tagNames.count) tags"
            tables.append(resultTable(title: title, rows: try runGraphSuite(size: size, options: options)))
        }
        if options.suites.contains("migration") {
            tables.append(resultTable(title: "Migrations, N = \(size) news (each on a fresh copy of the store)",
                                      rows: try runMigrationSuite(size: size, options: options)))
        }
        if options.suites.contains("kinds") {
            tables.append(try runAttributeKindsSuite(size: size, options: options))
        }
        if options.suites.contains("inheritance") {
            tables.append(try runInheritanceSuite(size: size, options: options))
        }
        if options.suites.contains("ordered") {
            tables.append(try runOrderedSuite(size: size, options: options))
        }
        if options.suites.contains("upsert") {
            tables.append(try runUpsertSuite(size: size, options: options))
        }
        if options.suites.contains("batch") {
            tables.append(try runBatchSuite(size: size, options: options))
        }
        if options.suites.contains("memory") {
            tables.append(try runMemorySuite(size: size, options: options))
        }
        for table in tables {
            print(table)
            report += table + "\n"
        }
    }
    if options.suites.contains("changes") {
        let table = try waitFor { try await runChangesSuite(options: options) }
        print(table)
        report += table + "\n"
    }
    if options.suites.contains("concurrent") {
        let table = try runConcurrentSuite(options: options)
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
