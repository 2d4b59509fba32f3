import Foundation
import NewsEngines

/// One measured operation on engines of type `Engine`: what it is, what a
/// result counts, and how each engine runs it (given the iteration).
struct Operation<Engine> {
    let name: String
    let unit: String
    let run: (Engine, Int) throws -> Checksum
    /// True when the operation changes the data, so there's no untimed
    /// warm-up and only counts are compared.
    var mutates = false
    /// Which engines take part (all, unless this says otherwise).
    var takesPart: (Engine) -> Bool = { _ in true }
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

/// Runs `operation` `iterations` times on every engine, interleaved (the
/// order rotates), after an untimed warm-up unless it mutates; stops with
/// an error when engines disagree.
func measure<Engine>(
    _ operation: Operation<Engine>, on engines: [Engine], iterations: Int, name: (Engine) -> String
) throws -> [String: Measurement] {
    var measurements: [String: Measurement] = [:]
    let participants = engines.filter(operation.takesPart)
    // Short when any engine's warm-up was: then every engine's sample is
    // taken the same way (below), whatever its own time.
    var isShort = false
    if !operation.mutates {
        for engine in participants {
            let (_, seconds) = try time { try operation.run(engine, 0) }
            isShort = isShort || seconds < shortestSample
        }
    }
    for iteration in 0..<iterations {
        for offset in 0..<participants.count {
            let engine = participants[(iteration + offset) % participants.count]
            var (checksum, seconds) = try time { try operation.run(engine, iteration) }
            if isShort {
                // Short: the first run warmed the caches; the sample is the
                // mean of as many more runs as fill it (at least one).
                let runs = fixedShortRuns ?? max(1, min(Int(shortestSample / max(seconds, 1e-7)), 10_000))
                (checksum, seconds) = try time {
                    var last = checksum
                    for _ in 0..<runs { last = try operation.run(engine, iteration) }
                    return last
                }
                seconds /= Double(runs)
            }
            try record(checksum, seconds, of: name(engine), for: operation, into: &measurements)
        }
    }
    return measurements
}

/// The shortest sample of an operation that doesn't change the data: a
/// shorter one runs again, within one sample, until the sample lasts this
/// long, and the sample is the mean. One run of a top-100 by index (about
/// 100 µs) just after another engine's run measured the caches that engine
/// left as much as its own work: Kura / raw LMDB 0.74–1.81 across runs of
/// one build, where callgrind counts 1.07.
///
/// When any engine's warm-up of an operation is shorter, every engine's
/// samples of it are taken that way: a first run, untimed, then the mean
/// of the runs that fill the sample (one, for an engine slower than this).
/// Decided per engine, an engine just over 10 ms was timed on its first,
/// cold run while one just under was timed warm: the top-100 without an
/// index read Kura / raw LMDB 1.56 and 2.50 (Kura 10.2 ms, raw LMDB 4–7 ms)
/// where it had read 1.26 with Kura at 9 ms.
let shortestSample = 0.01

/// `KURA_COMPARE_RUNS=N`: a short sample is N runs whatever their time,
/// so that under callgrind (where time means nothing) every engine runs an
/// operation as often, and its count divided by N + 2 (the warm-up and the
/// first timed run) is one run's.
let fixedShortRuns = ProcessInfo.processInfo.environment["KURA_COMPARE_RUNS"].flatMap { Int($0) }.map { max(1, $0) }

/// Adds one run's time and checks its checksum against the other engines'
/// (counts only, for mutations).
func record<Engine>(
    _ checksum: Checksum, _ seconds: Double, of engine: String, for operation: Operation<Engine>,
    into measurements: inout [String: Measurement]
) throws {
    measurements[engine, default: Measurement()].seconds.append(seconds)
    if let first = measurements.values.compactMap(\.checksum).first {
        let agrees = operation.mutates ? first.count == checksum.count : first == checksum
        if !agrees { throw Mismatch(description: "\(operation.name): \(engine) returned \(checksum), another engine \(first)") }
    }
    measurements[engine]!.checksum = checksum
}

/// Builds a store with each of `makers` (one per engine, each into an
/// empty directory) `iterations` times, engines interleaved, measuring
/// `insert`; returns the measurements and the last engines built, in
/// `makers`' order.
func measureInsert<Engine>(
    _ insert: Operation<Engine>, makers: [() throws -> Engine], iterations: Int, name: (Engine) -> String
) throws -> ([String: Measurement], [Engine]) {
    var measurements: [String: Measurement] = [:]
    var engines: [Engine] = []
    for iteration in 0..<iterations {
        var latest = [Engine?](repeating: nil, count: makers.count)
        for offset in 0..<makers.count {
            let position = (iteration + offset) % makers.count
            let engine = try makers[position]()
            let (checksum, seconds) = try time { try insert.run(engine, iteration) }
            try record(checksum, seconds, of: name(engine), for: insert, into: &measurements)
            latest[position] = engine
        }
        engines = latest.compactMap { $0 }
    }
    return (measurements, engines)
}

/// A directory per store under one root, removed at the end of the run.
final class StoreDirectories {
    let root: String
    private var number = 0

    init(label: String) throws {
        root = NSTemporaryDirectory() + "kura-compare-\(getpid())-\(label)"
        try? FileManager.default.removeItem(atPath: root)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func next() throws -> String {
        number += 1
        let directory = root + "/\(number)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }
}

func progress(_ text: String) {
    FileHandle.standardError.write((text + "\n").data(using: .utf8)!)
}
