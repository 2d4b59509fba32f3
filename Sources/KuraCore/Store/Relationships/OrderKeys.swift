/// The order keys of an ordered to-many's members (``MemberOrder``): 64-bit
/// numbers with room between them, so a member can be put between two
/// others without renumbering the rest.
enum OrderKeys {
    /// A first member's key: the middle of the range, with as much room
    /// before it (inserts at the front) as after it (appends).
    static let first: UInt64 = 1 << 63
    /// How far past the last key an append goes (and before the first an
    /// insert at the front): 2³² appends fit before the range's end.
    static let gap: UInt64 = 1 << 32
    /// The least room a spread leaves between keys (unless it spreads the
    /// whole list): some 20 inserts at one place before the next spread.
    static let minimumGap: UInt64 = 1 << 20

    /// A free key strictly between `low` and `high` (`nil`: no bound on
    /// that side), or `nil` when they are adjacent.
    static func between(_ low: UInt64?, _ high: UInt64?) -> UInt64? {
        switch (low, high) {
        case (nil, nil):
            return first
        case (let low?, nil):
            if low <= .max - gap { return low + gap }
            return low < .max ? low + (.max - low) / 2 + 1 : nil
        case (nil, let high?):
            if high >= gap { return high - gap }
            return high > 0 ? high / 2 : nil
        case (let low?, let high?):
            return high > low && high - low >= 2 ? low + (high - low) / 2 : nil
        }
    }

    /// Keys for a whole list written at once: from ``first``, ``gap`` apart
    /// (closer for a list too long for that).
    static func fresh(count: Int) -> [UInt64] {
        let step = Swift.min(gap, (.max - first) / UInt64(count + 1))
        return (0..<UInt64(count)).map { first + $0 * step }
    }

    /// `count` keys evenly spread strictly between `low` and `high` (`nil`:
    /// the range's ends), or `nil` when they would be closer than `minimumGap`.
    static func spread(count: Int, between low: UInt64?, and high: UInt64?, minimumGap: UInt64) -> [UInt64]? {
        let bottom = low ?? 0
        let top = high ?? .max
        guard top > bottom else { return nil }
        let step = (top - bottom) / UInt64(count + 1)
        guard step >= Swift.max(minimumGap, 1) else { return nil }
        return (1...UInt64(count)).map { bottom + $0 * step }
    }
}
