/// Random records for ``FuzzModels/thing``: mostly the right tag and size
/// for each attribute, sometimes not, with payloads at the edges.
struct RecordGenerator {
    var generator: SplitMix64

    private static let texts = ["", "1.25", "-0", "1e999", "NaN", "abc", "https://example.com/a?b#c", "%zz", "a b", "::", "蔵"]
    /// The tag and fixed payload size of each attribute of `thing`, in order.
    private static let layout: [(tag: UInt8, size: Int?)] = [
        (2, 0), (3, 8), (3, 8), (3, 8), (4, 8), (5, 4), (6, nil), (7, nil), (8, 8), (9, 16), (10, nil), (11, nil),
        (12, 8), (12, 8),   // the to-ones' references
    ]

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }

    private mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    mutating func record() -> [UInt8] {
        let count = chance(90) ? Int.random(in: 0...Self.layout.count, using: &generator) : Int.random(in: 0...40, using: &generator)
        var values: [[UInt8]] = []
        for number in 0..<count {
            let expected: (tag: UInt8, size: Int?) = number < Self.layout.count ? Self.layout[number] : (13, nil)
            if chance(15) {
                values.append([0])
                continue
            }
            let tag = chance(85) ? (expected.tag == 2 && chance(50) ? 1 : expected.tag) : UInt8.random(in: 0...14, using: &generator)
            var payload: [UInt8]
            if let size = expected.size, chance(85) {
                payload = bytes(size)
            } else if tag == 6 || tag == 11 || chance(30) {
                payload = Array(Self.texts.randomElement(using: &generator)!.utf8)
            } else {
                payload = bytes(Int.random(in: 0...24, using: &generator))
            }
            if tag == 7 && chance(30) { payload = [0xC3] + payload }    // a cut UTF-8 sequence
            values.append([tag] + payload)
        }
        var record: [UInt8] = [chance(97) ? 1 : UInt8.random(in: 0...255, using: &generator)]
        record += bytes(8)
        record += [UInt8(truncatingIfNeeded: count), UInt8(truncatingIfNeeded: count >> 8)]
        var end = 0
        for value in values {
            end += value.count
            var offset = UInt32(end)
            if chance(3) { offset = UInt32.random(in: 0...UInt32(end + 4), using: &generator) }
            record += (0..<4).map { UInt8(truncatingIfNeeded: offset >> (8 * $0)) }
        }
        record += values.joined()
        if chance(3) { record += bytes(Int.random(in: 1...3, using: &generator)) }
        return record
    }
}
