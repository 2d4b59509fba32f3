import Foundation
import KuraInspect
import KuraTestSupport

/// `kura-fuzz`: runs the fuzz harnesses outside the test suite, for long runs.
let syntax = CommandSyntax(
    "kura-fuzz",
    abstract: "Fuzz Kura's predicate parser and its record and model decoders.",
    discussion: """
        Inputs are mutations of valid seeds (and some random bytes), each made from \
        --seed and its number alone, so a failure reproduces with --input N. A property \
        failure is reported and the run goes on; a crash or a hang (--timeout) stops \
        the run and names the input. Exit status: 0 when nothing failed.

        Example: swift run -c release kura-fuzz all --inputs 1000000
        """,
    positionals: [.init("TARGET", help: "predicate, record, model or all.")],
    options: [
        .init("inputs", value: "N", help: "How many inputs to run per target (default: 100000)."),
        .init("seed", value: "SEED", help: "The seed inputs are made from (default: 1)."),
        .init("input", value: "N", help: "Run only input N (to reproduce a report), printing it."),
        .init("timeout", value: "SECONDS", help: "Seconds one input may take before it counts as a hang (default: 10)."),
    ])

let targets: [any FuzzTarget] = [PredicateFuzzTarget(), RecordFuzzTarget(), ModelFuzzTarget(), JSONFuzzTarget()]

func run(_ arguments: CommandSyntax.Arguments) throws(CommandLineError) -> Bool {
    let target = arguments[positional: "TARGET"]
    let inputs = try arguments.integer("inputs") ?? 100_000
    let seed = try arguments.integer("seed", as: UInt64.self) ?? 1
    let input = try arguments.integer("input")
    let timeout = try arguments.number("timeout") ?? 10
    let chosen = target == "all" ? targets : targets.filter { $0.name == target }
    guard !chosen.isEmpty else {
        throw CommandLineError("unknown target '\(target)'; choose \(targets.map(\.name).joined(separator: ", ")) or all")
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
    return !failed
}

do {
    let arguments = try syntax.parse(Array(CommandLine.arguments.dropFirst()))
    if arguments.wantsHelp {
        print(syntax.help(tool: "kura-fuzz"), terminator: "")
        exit(0)
    }
    exit(try run(arguments) ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("error: \(error)\nusage: \(syntax.usage(tool: "kura-fuzz"))\n".utf8))
    exit(64)
}
