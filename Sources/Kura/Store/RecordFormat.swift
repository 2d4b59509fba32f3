import Foundation

/// How an object's values are stored: one LMDB value per object.
///
/// ```
/// byte 0        format version (1)
/// bytes 1…8     row version, UInt64 little-endian: 1 when inserted, +1 per update
/// bytes 9…10    attribute count n, UInt16 little-endian
/// n × UInt32    end offset of each value in the data area, little-endian
/// data area     each value: a tag byte, then its payload
/// ```
///
/// The offset table makes any attribute readable in O(1) without decoding the
/// others, which is how fetches filter and sort on stored bytes and how
/// objects decode lazily. A record with fewer values than its entity has
/// attributes was written before those attributes existed; they read as their
/// default. The tag repeats the type, so a damaged record is caught, not
/// misread.
enum RecordFormat {
    static let version: UInt8 = 1
    static let headerSize = 11

    /// Tags: the kind of each stored value.
    enum Tag: UInt8 {
        case null = 0, `false`, `true`, int, double, float, decimal, string, date, uuid, data, url
    }

    /// Encodes `values` (one per attribute of the entity, in order).
    static func encode(_ values: ContiguousArray<AttributeValue?>, rowVersion: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + values.count * 13 + 64)
        bytes.append(version)
        appendLittleEndian(rowVersion, to: &bytes)
        appendLittleEndian(UInt16(values.count), to: &bytes)
        let tableStart = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: values.count * 4))
        let dataStart = bytes.count
        for (number, value) in values.enumerated() {
            appendValue(value, to: &bytes)
            let end = UInt32(bytes.count - dataStart)
            withUnsafeBytes(of: end.littleEndian) { endBytes in
                for offset in 0..<4 { bytes[tableStart + number * 4 + offset] = endBytes[offset] }
            }
        }
        return bytes
    }

    private static func appendValue(_ value: AttributeValue?, to bytes: inout [UInt8]) {
        guard let value else {
            bytes.append(Tag.null.rawValue)
            return
        }
        switch value {
        case .bool(let flag):
            bytes.append(flag ? Tag.true.rawValue : Tag.false.rawValue)
        case .int(let integer):
            bytes.append(Tag.int.rawValue)
            appendLittleEndian(UInt64(bitPattern: integer), to: &bytes)
        case .double(let number):
            bytes.append(Tag.double.rawValue)
            appendLittleEndian(number.bitPattern, to: &bytes)
        case .float(let number):
            bytes.append(Tag.float.rawValue)
            appendLittleEndian(number.bitPattern, to: &bytes)
        case .decimal(let number):
            bytes.append(Tag.decimal.rawValue)
            bytes.append(contentsOf: number.description.utf8)
        case .string(let text):
            bytes.append(Tag.string.rawValue)
            bytes.append(contentsOf: text.utf8)
        case .date(let date):
            bytes.append(Tag.date.rawValue)
            appendLittleEndian(date.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        case .uuid(let uuid):
            bytes.append(Tag.uuid.rawValue)
            withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
        case .data(let data):
            bytes.append(Tag.data.rawValue)
            bytes.append(contentsOf: data)
        case .url(let url):
            bytes.append(Tag.url.rawValue)
            bytes.append(contentsOf: url.absoluteString.utf8)
        }
    }

    static func appendLittleEndian<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// The tag each attribute type is stored with.
    static func tag(for type: AttributeType) -> Tag {
        switch type {
        case .bool: .true
        case .int16, .int32, .int64: .int
        case .double: .double
        case .float: .float
        case .decimal: .decimal
        case .string: .string
        case .date: .date
        case .uuid: .uuid
        case .data: .data
        case .url: .url
        }
    }

    /// The payload size of fixed-size tags; `nil` for variable-size ones.
    static func payloadSize(of tag: Tag) -> Int? {
        switch tag {
        case .null, .false, .true: 0
        case .int, .double, .date: 8
        case .float: 4
        case .uuid: 16
        case .decimal, .string, .data, .url: nil
        }
    }
}
