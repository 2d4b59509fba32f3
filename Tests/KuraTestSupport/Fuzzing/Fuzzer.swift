import Foundation

/// Runs a ``FuzzTarget`` on inputs made from a seed. Input `i` depends only
/// on the seed and `i`, so any input can be made again from its number:
/// `kura-fuzz TARGET --seed S --input I`.
public struct Fuzzer: Sendable {
    public let target: any FuzzTarget
    public let seed: UInt64
    private let mutator: Mutator

    public init(target: any FuzzTarget, seed: UInt64) {
        self.target = target
        self.seed = seed
        mutator = Mutator(seeds: target.seeds, dictionary: target.dictionary, maximumLength: 8192)
    }

    /// Input number `index`: one in ten is random bytes; three in ten come
    /// from the target's generator (one of them mutated too); the rest are
    /// mutated seeds.
    public func input(_ index: Int) -> [UInt8] {
        var generator = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        let kind = Int.random(in: 0..<10, using: &generator)
        if kind == 0 {
            return (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        if kind <= 3, var input = target.generate(using: &generator) {
            if kind == 3 { mutator.mutate(&input, using: &generator) }
            return input
        }
        var input = mutator.seeds.randomElement(using: &generator) ?? []
        mutator.mutate(&input, using: &generator)
        return input
    }

    /// What a run found.
    public struct Report: Sendable {
        public var inputs = 0
        public var accepted = 0
        public var failures: [(index: Int, input: [UInt8], message: String)] = []
        public var slowest: (index: Int, seconds: Double) = (0, 0)

        public init() {}
    }

    /// Runs inputs `range`, calling `willRun` before each (the command line
    /// tool records the number there, for its crash and hang reports).
    public func run(_ range: Range<Int>, willRun: (Int) -> Void = { _ in }) -> Report {
        var report = Report()
        for index in range {
            let input = input(index)
            willRun(index)
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                if try target.run(input) { report.accepted += 1 }
            } catch {
                report.failures.append((index, input, error.message))
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if seconds > report.slowest.seconds { report.slowest = (index, seconds) }
            report.inputs += 1
        }
        return report
    }

    /// `input` as a Swift-style escaped string, for reports.
    public static func describe(_ input: [UInt8]) -> String {
        var text = "\(input.count) bytes: \""
        for byte in input {
            switch byte {
            case 0x20..<0x7F where byte != 0x22 && byte != 0x5C: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return text + "\""
    }
}
