/// Where text that should be UTF-8 isn't: `kura import` refuses such input
/// (naming the line and column) rather than replacing the bytes with
/// U+FFFD, which would change the data without a word (two different bad
/// keys would even become one).
enum UTF8Validation {
    /// The first invalid byte of `bytes` as a line and a column (both from
    /// 1; the column counts characters before it on its line), and the
    /// byte, or `nil` when `bytes` is valid UTF-8 (RFC 3629: no overlong
    /// forms, no surrogates, nothing above U+10FFFF).
    static func firstInvalid(in bytes: [UInt8]) -> (line: Int, column: Int, byte: UInt8)? {
        bytes.withUnsafeBufferPointer { buffer -> (line: Int, column: Int, byte: UInt8)? in
            guard let offset = firstInvalidOffset(buffer) else { return nil }
            var line = 1
            var lineStart = 0
            for index in 0..<offset where buffer[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            // Characters (scalars) before it on its line: the bytes that start one.
            let column = 1 + buffer[lineStart..<offset].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
            return (line, column, buffer[offset])
        }
    }

    /// The offset of the first byte that doesn't begin or continue a valid
    /// UTF-8 sequence, or `nil`.
    static func firstInvalidOffset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            // Runs of ASCII, eight bytes at a time.
            while index + 8 <= count,
                  UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { return nil }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The sequence's length and the range its second byte must be in.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F  // no surrogates
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F  // nothing above U+10FFFF
            default: return index
            }
            guard index + 1 < count, (low...high).contains(bytes[index + 1]) else { return index }
            for continuation in 2..<length {
                guard index + continuation < count, bytes[index + continuation] & 0xC0 == 0x80 else { return index }
            }
            index += length
        }
        return nil
    }
}
