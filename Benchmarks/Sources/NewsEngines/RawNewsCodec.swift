import Foundation
import NewsDataset

/// The raw LMDB engine's hand-written record format: the physical limit
/// Kura is measured against. Fields in order, strings as a UInt16 length and
/// UTF-8, dates as the Double bits, optional fields behind a flag byte.
public enum RawNewsCodec {
    public static func encode(_ news: NewsValue, into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        appendString(news.objectId, to: &bytes)
        appendString(news.title, to: &bytes)
        appendString(news.body, to: &bytes)
        if let url = news.imageURL {
            bytes.append(1)
            appendString(url, to: &bytes)
        } else {
            bytes.append(0)
        }
        appendInteger(news.dateCreated.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        if let updated = news.dateUpdated {
            bytes.append(1)
            appendInteger(updated.timeIntervalSinceReferenceDate.bitPattern, to: &bytes)
        } else {
            bytes.append(0)
        }
        appendInteger(Int64(news.sortOrder), to: &bytes)
    }

    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        appendInteger(UInt16(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Decodes a record in place.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> NewsValue {
        var reader = Reader(bytes: bytes)
        let objectId = reader.string()
        let title = reader.string()
        let body = reader.string()
        let imageURL = reader.byte() == 1 ? reader.string() : nil
        let created = Date(timeIntervalSinceReferenceDate: Double(bitPattern: reader.integer(UInt64.self)))
        let updated = reader.byte() == 1 ? Date(timeIntervalSinceReferenceDate: Double(bitPattern: reader.integer(UInt64.self))) : nil
        let sortOrder = Int(reader.integer(Int64.self))
        return NewsValue(objectId: objectId, title: title, body: body, imageURL: imageURL,
                         dateCreated: created, dateUpdated: updated, sortOrder: sortOrder)
    }

    /// Only the sortOrder (the last 8 bytes), without decoding the rest.
    public static func sortOrder(_ bytes: UnsafeRawBufferPointer) -> Int {
        Int(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: Int64.self)))
    }

    /// Only the objectId (the first field).
    public static func objectId(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var reader = Reader(bytes: bytes)
        let length = Int(reader.integer(UInt16.self))
        return Array(bytes[2..<(2 + length)])
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func byte() -> UInt8 {
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T {
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }

        mutating func string() -> String {
            let length = Int(integer(UInt16.self))
            defer { offset += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
        }
    }
}
