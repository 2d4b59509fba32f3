/// Finding the bytes that make text need escaping or quoting, eight bytes
/// at a time: exports check every value they write, and most need nothing.
enum ByteScan {
    /// True when `bytes` holds a byte below `limit` (at most 128; 0 for
    /// none) or equal to one of `specials`.
    static func contains(
        _ bytes: UnsafeBufferPointer<UInt8>, below limit: UInt8, or specials: (UInt8, UInt8, UInt8, UInt8)
    ) -> Bool {
        func isMember(_ byte: UInt8) -> Bool {
            byte < limit || byte == specials.0 || byte == specials.1 || byte == specials.2 || byte == specials.3
        }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A word with a byte below n (n ≤ 128) has a high bit in
        // (w - n·ones) & ~w; a zero byte in w ^ (b·ones) is a byte equal to b.
        func hasByteBelow(_ n: UInt8, _ word: UInt64) -> Bool { (word &- ones &* UInt64(n)) & ~word & highs != 0 }
        func hasByte(_ byte: UInt8, _ word: UInt64) -> Bool { hasByteBelow(1, word ^ (ones &* UInt64(byte))) }
        let raw = UnsafeRawBufferPointer(bytes)
        var index = 0
        while index + 8 <= raw.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if hasByteBelow(limit, word) || hasByte(specials.0, word) || hasByte(specials.1, word)
                || hasByte(specials.2, word) || hasByte(specials.3, word) {
                // The word test may also flag a byte beside a real one: look closer.
                if bytes[index..<index + 8].contains(where: isMember) { return true }
            }
            index += 8
        }
        return bytes[index...].contains(where: isMember)
    }
}
