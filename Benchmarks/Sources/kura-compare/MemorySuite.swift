import Foundation
import NewsDataset
import NewsEngines
import Synchronization

// The memory table: each engine in a process of its own (a child of this
// one), so one engine's heap doesn't count for another.
//
// Resident memory has two parts: the process's own (anonymous) memory, its
// heap, and pages of files it maps. LMDB reads records in place from the
// store file, so a scan maps the file's pages: they are the OS's page cache,
// shared, dropped under pressure, and the same for Kura and raw LMDB. The
// table shows the heap ("anon") and the whole ("total") separately.

/// Peak memory while `body` runs, above what the process held before it,
/// sampled every millisecond from /proc/self/statm.
struct MemoryPeak {
    var anonymous = 0
    var total = 0

    static func during(_ body: () throws -> Void) rethrows -> MemoryPeak {
        releaseFreeHeap()
        let before = residentPages()
        let peak = Mutex(before)
        let done = Atomic(false)
        let sampler = Thread {
            while !done.load(ordering: .relaxed) {
                let now = residentPages()
                peak.withLock { $0 = (max($0.anonymous, now.anonymous), max($0.total, now.total)) }
                usleep(1000)
            }
        }
        sampler.start()
        defer { done.store(true, ordering: .relaxed) }
        try body()
        let now = residentPages()
        let highest = peak.withLock { (max($0.anonymous, now.anonymous), max($0.total, now.total)) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return MemoryPeak(anonymous: (highest.0 - before.anonymous) * page, total: (highest.1 - before.total) * page)
    }

    /// Resident pages: not file-backed (heap, stacks) and all.
    static func residentPages() -> (anonymous: Int, total: Int) {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return (0, 0) }
        let fields = text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count >= 3 else { return (0, 0) }
        return (fields[1] - fields[2], fields[1])
    }
}

/// glibc's `malloc_trim(0)`, which Swift's Glibc module doesn't export:
/// gives freed heap pages back, so a step's peak starts from what is in use.
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32

func releaseFreeHeap() {
    _ = mallocTrim(0)
}

/// Resident bytes of the process's own memory (not file-backed).
func anonymousBytes() -> Int {
    MemoryPeak.residentPages().anonymous * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Runs in a child process: one engine, one size; prints `key value` lines.
func memoryChild(_ arguments: [String]) throws {
    guard arguments.count == 2, let size = Int(arguments[1]) else { throw Options.UsageError() }
    let directories = try StoreDirectories(label: "memory-\(arguments[0])-\(size)")
    let types: [NewsEngine.Type] = [KuraEngine.self, LMDBEngine.self, GRDBEngine.self, GRDBTunedEngine.self]
    guard let type = types.first(where: { $0.name == arguments[0] }) else { throw Options.UsageError() }
    let engine = try type.init(directory: try directories.next())
    let insertPeak = try MemoryPeak.during {
        let dataset = NewsDataset(count: size)
        _ = try engine.insert(dataset.news)
    }
    print("insert-anon \(insertPeak.anonymous)")
    let readPeak = try MemoryPeak.during { _ = try engine.fetchAllReadingEveryField() }
    print("read-anon \(readPeak.anonymous)")
    print("read-total \(readPeak.total)")
    if let kura = engine as? KuraEngine {
        let walkPeak = try MemoryPeak.during { _ = try kura.walkBatchedReadingEveryField() }
        print("walk-anon \(walkPeak.anonymous)")
        print("walk-total \(walkPeak.total)")
        releaseFreeHeap()
        let before = anonymousBytes()
        try kura.holdingEveryObject { count in
            print("bytes-per-object \((anonymousBytes() - before) / max(count, 1))")
        }
    }
    fflush(nil)
}

/// The memory table at N = `size`: one child process per engine.
func runMemorySuite(size: Int, options: Options) throws -> String {
    let engines = ["Kura", "raw LMDB", "GRDB", "GRDB tuned"].filter(options.includes(engine:))
    var rows: [String] = []
    for engine in engines {
        let (text, status) = try runChild(["memory-child", engine, String(size)])
        guard status == 0 else { throw Mismatch(description: "memory-child \(engine) \(size) failed") }
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        func megabytes(_ key: String) -> String {
            values[key].map { String(format: "%.1f MB", Double($0) / 1_000_000) } ?? "–"
        }
        rows.append("| \(engine) | \(megabytes("insert-anon")) | \(megabytes("read-anon")) | \(megabytes("read-total")) | "
            + "\(megabytes("walk-anon")) | \(megabytes("walk-total")) | \(values["bytes-per-object"].map { "\($0) B" } ?? "–") |")
        progress("N=\(size): memory of \(engine) done")
    }
    return """
        ### Memory, N = \(size) (each engine in its own process)

        Peak resident memory above the process's before each step, sampled every millisecond: "anon" is the process's \
        own memory (heap), "total" adds the store file's pages the process maps (the OS page cache; LMDB reads \
        records in place). Insert includes the dataset being generated. The batched walk is Kura's `fetchBatched` \
        (batches of 1,000) reading every field. Bytes per object: heap held by one context per fetched, registered \
        object (its record included): the growth of the process's own resident memory while one context holds every \
        object of a fetch, divided by their number.

        | Engine | insert + save, anon | fetch all + read every field, anon | same, total | batched walk + read every field, anon | same, total | bytes per registered object |
        |---|---|---|---|---|---|---|
        \(rows.joined(separator: "\n"))

        """
}
