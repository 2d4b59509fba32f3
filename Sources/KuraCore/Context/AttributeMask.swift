/// A set of attribute positions: which attributes of an object have changed.
/// Entities of up to 64 attributes never allocate.
struct AttributeMask: Hashable, Sendable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    func contains(_ number: Int) -> Bool {
        number < 64 ? low & (1 << UInt64(number)) != 0 : wordContains(number)
    }

    private func wordContains(_ number: Int) -> Bool {
        let word = number / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(number % 64)) != 0
    }

    mutating func insert(_ number: Int) {
        if number < 64 {
            low |= 1 << UInt64(number)
            return
        }
        let word = number / 64 - 1
        while high.count <= word { high.append(0) }
        high[word] |= 1 << UInt64(number % 64)
    }

    mutating func remove(_ number: Int) {
        if number < 64 {
            low &= ~(1 << UInt64(number))
        } else if number / 64 - 1 < high.count {
            high[number / 64 - 1] &= ~(1 << UInt64(number % 64))
        }
    }

    mutating func removeAll() {
        low = 0
        high = []
    }

    /// The positions in the set, ascending.
    var elements: [Int] {
        var numbers: [Int] = []
        for (word, bits) in ([low] + high).enumerated() where bits != 0 {
            for bit in 0..<64 where bits & (1 << UInt64(bit)) != 0 { numbers.append(word * 64 + bit) }
        }
        return numbers
    }
}
