import Foundation

/// Order-preserving bytes for index keys: for any two values `a` and `b` of
/// one attribute type, `memcmp(encode(a), encode(b))` has the sign of
/// ``AttributeValue/compare(_:_:)``, and `nil` sorts before every value.
///
/// An index key is the encodings of the indexed values, one after another,
/// followed by the object's primary key (8 bytes, big-endian), so equal
/// values sort by primary key. Every encoding is self-delimiting, so a key's
/// value part is a prefix no other values can extend.
///
/// - nil: `00`; any value: `01`, then
/// - integers: 8 bytes big-endian with the sign bit flipped;
/// - floating point and dates: the IEEE bits of the `Double`, sign bit flipped
///   for positives and every bit flipped for negatives (`-0` is stored as `0`,
///   every NaN as one NaN above infinity);
/// - decimals: a sign byte (`01` negative, `02` zero, `03` positive, `04`
///   NaN, which sorts above every number as it does for doubles), then for
///   non-zero numbers the decimal exponent and the digits, with every byte
///   flipped for negatives. (Stores of format 1 wrote NaN as zero, `02`;
///   see ``StoreLayout/formatVersion``.)
/// - strings and URLs: NFC-normalized UTF-8, `00` escaped as `00 FF`, ended by
///   `00 00`; data the same without normalization;
/// - UUIDs: their 16 bytes; booleans: `00` or `01`.
enum IndexKeyEncoding {
    /// - Parameter legacyDecimals: Encode a decimal NaN as zero, as stores of
    ///   format 1 did (only to read such a store's indexes as they are).
    static func append(_ value: AttributeValue?, to key: inout [UInt8], legacyDecimals: Bool = false) {
        guard let value else {
            key.append(0x00)
            return
        }
        key.append(0x01)
        switch value {
        case .bool(let flag):
            key.append(flag ? 1 : 0)
        case .int(let integer):
            appendBigEndian(UInt64(bitPattern: integer) ^ (1 << 63), to: &key)
        case .double(let number):
            appendOrderedDouble(number, to: &key)
        case .float(let number):
            appendOrderedDouble(Double(number), to: &key)
        case .date(let date):
            appendOrderedDouble(date.timeIntervalSinceReferenceDate, to: &key)
        case .decimal(let number):
            appendDecimal(number, to: &key, legacy: legacyDecimals)
        case .string(let text):
            appendEscaped(normalized(text).utf8, to: &key)
        case .url(let url):
            appendEscaped(normalized(url.absoluteString).utf8, to: &key)
        case .data(let data):
            appendEscaped(data, to: &key)
        case .uuid(let uuid):
            withUnsafeBytes(of: uuid.uuid) { key.append(contentsOf: $0) }
        }
    }

    /// The encoding of several values, as the prefix of their index keys.
    static func encode(_ values: [AttributeValue?]) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(64)
        for value in values { append(value, to: &key) }
        return key
    }

    static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { key.append(contentsOf: $0) }
    }

    static func appendOrderedDouble(_ number: Double, to key: inout [UInt8]) {
        let canonical = number.isNaN ? Double.nan : (number == 0 ? 0 : number)
        let bits = canonical.bitPattern
        appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &key)
    }

    /// Strings compare as their NFC form (Swift's `String` order), so keys are
    /// built from it. ASCII is already NFC.
    static func normalized(_ text: String) -> String {
        isASCII(text) ? text : text.precomposedStringWithCanonicalMapping
    }

    /// True when every byte is ASCII, checked eight bytes at a time.
    @inline(__always)
    static func isASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { isASCII(UnsafeRawBufferPointer($0)) }
            ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            offset += 8
        }
        while offset < bytes.count {
            if bytes[offset] >= 0x80 { return false }
            offset += 1
        }
        return true
    }

    /// The key prefix shared by every string value that begins with `prefix`
    /// (in NFC): the encoding without its terminator.
    static func stringPrefix(_ prefix: String) -> [UInt8] {
        var key: [UInt8] = [0x01]
        appendEscaped(normalized(prefix).utf8, to: &key)
        key.removeLast(2)
        return key
    }

    static func appendEscaped<Bytes: Sequence>(_ bytes: Bytes, to key: inout [UInt8]) where Bytes.Element == UInt8 {
        // Most values have no zero byte: append them whole.
        let appended = bytes.withContiguousStorageIfAvailable { buffer -> Bool in
            guard let base = buffer.baseAddress, memchr(base, 0, buffer.count) == nil else { return buffer.isEmpty }
            key.append(contentsOf: buffer)
            return true
        }
        if appended != true {
            for byte in bytes {
                key.append(byte)
                if byte == 0 { key.append(0xFF) }
            }
        }
        key.append(0x00)
        key.append(0x00)
    }

    static func appendDecimal(_ number: Decimal, to key: inout [UInt8], legacy: Bool = false) {
        if number.isNaN {
            key.append(legacy ? 0x02 : 0x04)
            return
        }
        if number.isZero {
            key.append(0x02)
            return
        }
        let negative = number.sign == .minus
        var digits = Array(number.significand.description.utf8).filter { $0 >= 0x30 && $0 <= 0x39 }
        while digits.first == 0x30 { digits.removeFirst() }
        var exponent = number.exponent
        while digits.last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        let adjusted = Int32(exponent + digits.count - 1)
        var body: [UInt8] = []
        withUnsafeBytes(of: (UInt32(bitPattern: adjusted) ^ (1 << 31)).bigEndian) { body.append(contentsOf: $0) }
        body.append(contentsOf: digits.map { $0 - 0x30 + 1 })
        body.append(0x00)
        key.append(negative ? 0x01 : 0x03)
        key.append(contentsOf: negative ? body.map { ~$0 } : body)
    }
}
