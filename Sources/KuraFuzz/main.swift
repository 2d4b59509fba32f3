import ArgumentParser
import Foundation
import KuraTestSupport

/// `kura-fuzz`: runs the fuzz harnesses outside the test suite, for long runs.
struct KuraFuzz: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kura-fuzz",
        abstract: "Fuzz Kura's predicate parser and its record and model decoders.",
        discussion: """
            Inputs are mutations of valid seeds (and some random bytes), each made from \
            --seed and its number alone, so a failure reproduces with --input N. A property \
            failure is reported and the run goes on; a crash or a hang (--timeout) stops \
            the run and names the input. Exit status: 0 when nothing failed.

            Example: swift run -c release kura-fuzz all --inputs 1000000
            """)

    @Argument(help: "predicate, record, model or all.")
    var target: String

    @Option(help: "How many inputs to run per target.")
    var inputs = 100_000

    @Option(help: "The seed inputs are made from.")
    var seed: UInt64 = 1

    @Option(help: "Run only input N (to reproduce a report), printing it.")
    var input: Int?

    @Option(help: "Seconds one input may take before it counts as a hang.")
    var timeout = 10.0

    static let targets: [any FuzzTarget] = [PredicateFuzzTarget(), RecordFuzzTarget(), ModelFuzzTarget()]

    func run() throws {
        let chosen = target == "all" ? Self.targets : Self.targets.filter { $0.name == target }
        guard !chosen.isEmpty else {
            throw ValidationError("unknown target '\(target)'; choose \(Self.targets.map(\.name).joined(separator: ", ")) or all")
        }
        var failed = false
        for target in chosen {
            let fuzzer = Fuzzer(target: target, seed: seed)
            CrashReporter.install(target: target.name, seed: seed, timeout: timeout)
            let range = input.map { $0..<($0 + 1) } ?? 0..<inputs
            if let input { print("input \(input): \(Fuzzer.describe(fuzzer.input(input)))") }
            let clock = Date()
            var report = Fuzzer.Report()
            // In chunks, to show progress on long runs.
            for chunk in stride(from: range.lowerBound, to: range.upperBound, by: 100_000) {
                let part = fuzzer.run(chunk..<min(chunk + 100_000, range.upperBound)) { index in
                    CrashReporter.currentInput = index
                    CrashReporter.startedAt = DispatchTime.now().uptimeNanoseconds
                }
                report.inputs += part.inputs
                report.accepted += part.accepted
                report.failures += part.failures
                if part.slowest.seconds > report.slowest.seconds { report.slowest = part.slowest }
                if range.count > 100_000 { print("\(target.name): \(report.inputs) inputs…") }
            }
            CrashReporter.currentInput = -1
            let seconds = Date().timeIntervalSince(clock)
            print("""
                \(target.name): \(report.inputs) inputs (seed \(seed)) in \(String(format: "%.1f", seconds)) s, \
                \(report.accepted) accepted, \(report.inputs - report.accepted - report.failures.count) refused, \
                \(report.failures.count) failures; slowest input \(report.slowest.index) took \
                \(String(format: "%.4f", report.slowest.seconds)) s
                """)
            for failure in report.failures.prefix(20) {
                print("  input \(failure.index): \(failure.message)\n    \(Fuzzer.describe(failure.input))")
            }
            failed = failed || !report.failures.isEmpty
        }
        if failed { throw ExitCode.failure }
    }
}

KuraFuzz.main()
