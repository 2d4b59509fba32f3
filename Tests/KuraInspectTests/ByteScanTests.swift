@testable import KuraInspect
import Testing

@Suite struct ByteScanTests {
    /// Eight bytes at a time must find what a byte-by-byte look finds: every
    /// length around a word's, every position, each kind of byte, and bytes
    /// beside them that a word test could confuse (0x80 and above, just
    /// above the limit, one more or less than a special).
    @Test func findsWhatAByteByByteLookFindsAtEveryPosition() {
        let specials: (UInt8, UInt8, UInt8, UInt8) = (UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x7F, 0x7F)
        func expected(_ bytes: [UInt8]) -> Bool {
            bytes.contains { $0 < 0x20 || $0 == specials.0 || $0 == specials.1 || $0 == specials.2 }
        }
        let fillers: [UInt8] = [UInt8(ascii: "a"), 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x80, 0xE3, 0xFF]
        let probes: [UInt8] = [0x00, 0x01, 0x0A, 0x1F, UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x7F] + fillers
        for length in 0...19 {
            for filler in fillers {
                let plain = [UInt8](repeating: filler, count: length)
                #expect(plain.withUnsafeBufferPointer { ByteScan.contains($0, below: 0x20, or: specials) } == false)
                for position in 0..<length {
                    for probe in probes {
                        var bytes = plain
                        bytes[position] = probe
                        let found = bytes.withUnsafeBufferPointer { ByteScan.contains($0, below: 0x20, or: specials) }
                        #expect(found == expected(bytes), "length \(length), \(probe) at \(position) among \(filler)")
                    }
                }
            }
        }
    }

    @Test func noLimitFindsOnlyTheSpecials() {
        let csv: (UInt8, UInt8, UInt8, UInt8) = (UInt8(ascii: ","), UInt8(ascii: "\""), 0x0A, 0x0D)
        func scan(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { ByteScan.contains($0, below: 0, or: csv) }
        }
        #expect(!scan("a plain\tvalue of more than eight bytes\u{01}"))
        #expect(scan("a value of more than eight bytes, with a comma"))
        #expect(scan("two\r\nlines"))
        #expect(scan("\""))
    }
}
