/// Byte-level mutations, in the manner of libFuzzer's: a few stacked on a
/// seed make inputs that are almost valid, which reach deeper than random
/// bytes do.
struct Mutator: Sendable {
    let seeds: [[UInt8]]
    let dictionary: [[UInt8]]
    /// Inputs never grow past this.
    let maximumLength: Int

    /// Applies one mutation to `input` (half the time), two (a quarter), and
    /// so on up to eight: most inputs stay close enough to valid to get far.
    func mutate(_ input: inout [UInt8], using generator: inout SplitMix64) {
        let count = min(8, 1 + (generator.next() | 1 << 7).trailingZeroBitCount)
        for _ in 0..<count {
            mutateOnce(&input, using: &generator)
            if input.count > maximumLength { input.removeLast(input.count - maximumLength) }
        }
    }

    private static let interestingBytes: [UInt8] = [0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF, 0x20, 0x22, 0x27, 0x5C]
    private static let interestingWords: [UInt32] = [0, 1, 2, 3, 4, 11, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF]

    private func position(in input: [UInt8], using generator: inout SplitMix64) -> Int {
        Int.random(in: 0...input.count, using: &generator)
    }

    private func mutateOnce(_ input: inout [UInt8], using generator: inout SplitMix64) {
        let choice = Int.random(in: 0..<11, using: &generator)
        if input.isEmpty && choice < 8 {
            input.append(contentsOf: dictionary.randomElement(using: &generator) ?? [0])
            return
        }
        switch choice {
        case 0:    // flip a bit
            input[Int.random(in: 0..<input.count, using: &generator)] ^= 1 << UInt8.random(in: 0...7, using: &generator)
        case 1:    // a random byte
            input[Int.random(in: 0..<input.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
        case 2:    // an interesting byte
            input[Int.random(in: 0..<input.count, using: &generator)] = Self.interestingBytes.randomElement(using: &generator)!
        case 3:    // delete a range
            let start = Int.random(in: 0..<input.count, using: &generator)
            input.removeSubrange(start..<min(input.count, start + Int.random(in: 1...16, using: &generator)))
        case 4:    // copy a range elsewhere
            let start = Int.random(in: 0..<input.count, using: &generator)
            let chunk = Array(input[start..<min(input.count, start + Int.random(in: 1...32, using: &generator))])
            input.insert(contentsOf: chunk, at: position(in: input, using: &generator))
        case 5:    // an interesting little-endian word over 2 or 4 bytes
            let word = Self.interestingWords.randomElement(using: &generator)! &+ UInt32(input.count & 0xFF)
            let width = Bool.random(using: &generator) ? 2 : 4
            let start = Int.random(in: 0..<input.count, using: &generator)
            for byte in 0..<width where start + byte < input.count { input[start + byte] = UInt8(truncatingIfNeeded: word >> (8 * byte)) }
        case 6:    // a random byte inserted
            input.insert(UInt8.random(in: 0...255, using: &generator), at: position(in: input, using: &generator))
        case 7:    // splice: this input's start, another seed's end
            guard let other = seeds.randomElement(using: &generator), !other.isEmpty else { return }
            let cut = Int.random(in: 0...input.count, using: &generator)
            input = Array(input[..<cut]) + other[Int.random(in: 0..<other.count, using: &generator)...]
        case 8, 9: // a dictionary token inserted
            guard let token = dictionary.randomElement(using: &generator) else { return }
            input.insert(contentsOf: token, at: position(in: input, using: &generator))
        default:   // a token repeated: deep nesting, long runs
            guard let token = dictionary.randomElement(using: &generator) else { return }
            let times = Int.random(in: 2...300, using: &generator)
            input.insert(contentsOf: Array([[UInt8]](repeating: token, count: times).joined()), at: position(in: input, using: &generator))
        }
    }
}
