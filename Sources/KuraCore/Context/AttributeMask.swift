/// A set of attribute positions: which attributes of an object have changed.
/// Entities of up to 64 attributes never allocate.
struct AttributeMask: Hashable, Sendable {
    private var low: UInt64 = 0
    /// Positions 64 and up; `nil` (not an empty array) until one is set, so
    /// that copying a mask of a small entity retains nothing.
    private var high: [UInt64]?

    var isEmpty: Bool { low == 0 && (high?.allSatisfy { $0 == 0 } ?? true) }

    @inline(__always)
    func contains(_ number: Int) -> Bool {
        number < 64 ? low & (1 << UInt64(number)) != 0 : wordContains(number)
    }

    private func wordContains(_ number: Int) -> Bool {
        guard let high else { return false }
        let word = number / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(number % 64)) != 0
    }

    @inline(__always)
    mutating func insert(_ number: Int) {
        if number < 64 {
            low |= 1 << UInt64(number)
        } else {
            insertHigh(number)
        }
    }

    private mutating func insertHigh(_ number: Int) {
        let word = number / 64 - 1
        var words = high ?? []
        while words.count <= word { words.append(0) }
        words[word] |= 1 << UInt64(number % 64)
        high = words
    }

    mutating func remove(_ number: Int) {
        if number < 64 {
            low &= ~(1 << UInt64(number))
        } else if let count = high?.count, number / 64 - 1 < count {
            high![number / 64 - 1] &= ~(1 << UInt64(number % 64))
        }
    }

    mutating func removeAll() {
        low = 0
        high = nil
    }

    /// The positions in the set, ascending.
    var elements: [Int] {
        var numbers: [Int] = []
        for (word, bits) in ([low] + (high ?? [])).enumerated() where bits != 0 {
            for bit in 0..<64 where bits & (1 << UInt64(bit)) != 0 { numbers.append(word * 64 + bit) }
        }
        return numbers
    }
}
