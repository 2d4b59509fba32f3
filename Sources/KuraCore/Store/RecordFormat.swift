import Foundation

/// How an object's values are stored: one value per object.
///
/// ```
/// byte 0        format version (1)
/// bytes 1…8     row version, UInt64 little-endian: 1 when inserted, +1 per update
/// bytes 9…10    field count n, UInt16 little-endian
/// n × UInt32    end offset of each field's value in the data area, little-endian
/// data area     each value: a tag byte, then its payload
/// ```
///
/// Each attribute and to-one relationship has its own field number (see
/// ``RecordLayout``). The offset table makes any field readable in O(1)
/// without decoding the others, which is how fetches filter and sort on
/// stored bytes and how objects decode lazily. A record with fewer fields
/// than its entity's layout was written before the later fields existed;
/// they read as their attribute's absent value. The tag repeats the type, so
/// a damaged record is caught, not misread.
enum RecordFormat {
    static let version: UInt8 = 1

    /// Tags: the kind of each stored value.
    enum Tag: UInt8 {
        case null = 0, `false`, `true`, int, double, float, decimal, string, date, uuid, data, url
        /// A to-one relationship's destination: its primary key, 8 bytes little-endian.
        case reference
    }

    /// Encodes `values` (one per attribute of the entity, by position) and
    /// `references` (the primary key of each to-one's destination, in
    /// relationship order) into one buffer of exactly the record's size,
    /// each in its field of `layout`. Fields of removed properties are
    /// written as nil, or copied from `retaining` (a migration keeps them,
    /// so a custom stage can still read what they held).
    ///
    /// With `unloaded`, the values it doesn't mark as loaded are copied
    /// from its record as they are stored (a save of a changed object
    /// doesn't decode the values it didn't touch only to encode them again).
    static func encode(
        _ values: ContiguousArray<AttributeValue?>, references: [UInt64?] = [], rowVersion: UInt64, layout: RecordLayout,
        unloaded: ChangeSet.Unloaded?
    ) -> [UInt8] {
        guard let unloaded else { return encode(values, references: references, rowVersion: rowVersion, layout: layout) }
        return unloaded.record.withUnsafeBytes { bytes in
            encode(values, references: references, rowVersion: rowVersion, layout: layout,
                   base: (RecordView(trusted: bytes), unloaded.loaded))
        }
    }

    static func encode(
        _ values: ContiguousArray<AttributeValue?>, references: [UInt64?] = [], rowVersion: UInt64, layout: RecordLayout,
        retaining retained: RecordView? = nil, base: (view: RecordView, loaded: AttributeMask)? = nil
    ) -> [UInt8] {
        let encoder = Encoder(values: values, references: references, layout: layout, retained: retained, base: base)
        // Sizes first, in field order; decimals and URLs become text once.
        var texts: [String] = []
        let dataStart = Header.size + layout.fieldCount * 4
        let total = dataStart + encoder.dataSize(texts: &texts)
        return [UInt8](writing: total) { raw in
            Header.write(rowVersion: rowVersion, fieldCount: layout.fieldCount, into: raw)
            var offset = dataStart
            var textIndex = 0
            for field in 0..<layout.fieldCount {
                encoder.write(field: field, into: raw, at: &offset, texts: texts, textIndex: &textIndex)
                raw.storeBytes(of: UInt32(offset - dataStart).littleEndian, toByteOffset: Header.size + field * 4, as: UInt32.self)
            }
            precondition(offset == total, "record size computed wrongly")
        }
    }

    /// The header's fields, at their offsets (the table of field ends
    /// follows it, at ``size``).
    enum Header {
        /// The format version, one byte.
        static let formatVersionOffset = 0
        /// The row version, a UInt64 little-endian.
        static let rowVersionOffset = 1
        /// The field count, a UInt16 little-endian.
        static let fieldCountOffset = 9
        /// The header's size: where the table of field ends begins.
        static let size = 11

        @inline(__always)
        static func write(rowVersion: UInt64, fieldCount: Int, into raw: UnsafeMutableRawBufferPointer) {
            raw[formatVersionOffset] = version
            raw.storeBytes(of: rowVersion.littleEndian, toByteOffset: rowVersionOffset, as: UInt64.self)
            raw.storeBytes(of: UInt16(fieldCount).littleEndian, toByteOffset: fieldCountOffset, as: UInt16.self)
        }

        @inline(__always)
        static func rowVersion(of bytes: UnsafeRawBufferPointer) -> UInt64 {
            bytes.loadUnaligned(fromByteOffset: rowVersionOffset, as: UInt64.self).littleEndian
        }

        @inline(__always)
        static func fieldCount(of bytes: UnsafeRawBufferPointer) -> Int {
            Int(bytes.loadUnaligned(fromByteOffset: fieldCountOffset, as: UInt16.self).littleEndian)
        }
    }

    /// Where each field of a record being encoded comes from: a value
    /// given, a to-one's key, or bytes copied from a stored record (`base`'s
    /// values it didn't load; `retained`'s fields of removed properties).
    private struct Encoder {
        let values: ContiguousArray<AttributeValue?>
        let references: [UInt64?]
        let layout: RecordLayout
        let retained: RecordView?
        let base: (view: RecordView, loaded: AttributeMask)?

        /// Whether the value at `position` is copied from `base` (stored in its `field`).
        @inline(__always) func isCopied(_ position: Int, _ field: Int) -> Bool {
            guard let base else { return false }
            return field < base.view.count && !base.loaded.contains(position)
        }

        /// The value at `position` when not copied: one `base` didn't load predates its field.
        @inline(__always) func given(at position: Int) -> AttributeValue? {
            if let base, !base.loaded.contains(position) { return layout.absentValues[position] }
            return values[position]
        }

        /// The size of the data area, field by field; the text of each
        /// decimal and URL, in field order, into `texts`.
        @inline(__always)
        func dataSize(texts: inout [String]) -> Int {
            var dataSize = 0
            for field in 0..<layout.fieldCount {
                dataSize += 1
                let position = layout.attributeAtField[field]
                if position < 0 {
                    let reference = layout.referenceAtField[field]
                    if reference >= 0 {
                        if references[reference] != nil { dataSize += 8 }
                    } else if let retained, field < retained.count {
                        dataSize += retained.storedValue(field).count - 1
                    }
                    continue
                }
                if isCopied(position, field) {
                    dataSize += base!.view.storedValue(field).count - 1
                    continue
                }
                switch given(at: position) {
                case nil, .bool?: break
                case .int?, .double?, .date?: dataSize += 8
                case .float?: dataSize += 4
                case .uuid?: dataSize += 16
                case .string(let text)?: dataSize += text.utf8.count
                case .data(let data)?: dataSize += data.count
                case .decimal(let number)?:
                    texts.append(number.description)
                    dataSize += texts.last!.utf8.count
                case .url(let url)?:
                    texts.append(url.absoluteString)
                    dataSize += texts.last!.utf8.count
                }
            }
            return dataSize
        }

        /// Writes `field`'s tag and payload at `offset`, and moves it past them.
        @inline(__always)
        func write(
            field: Int, into raw: UnsafeMutableRawBufferPointer, at offset: inout Int, texts: [String], textIndex: inout Int
        ) {
            let position = layout.attributeAtField[field]
            if position >= 0 {
                if isCopied(position, field) {
                    RecordFormat.copy(base!.view.storedValue(field), into: raw, at: &offset)
                } else {
                    RecordFormat.write(given(at: position), into: raw, at: &offset, texts: texts, textIndex: &textIndex)
                }
                return
            }
            let reference = layout.referenceAtField[field]
            if reference >= 0, let key = references[reference] {
                raw[offset] = Tag.reference.rawValue
                raw.storeBytes(of: key.littleEndian, toByteOffset: offset + 1, as: UInt64.self)
                offset += 9
            } else if reference < 0, let retained, field < retained.count {
                RecordFormat.copy(retained.storedValue(field), into: raw, at: &offset)
            } else {
                RecordFormat.write(nil, into: raw, at: &offset, texts: texts, textIndex: &textIndex)
            }
        }
    }

    /// Writes `value`'s tag and payload at `offset`, and moves it past them;
    /// a decimal or URL writes `texts[textIndex]` and moves to the next.
    @inline(__always)
    private static func write(
        _ value: AttributeValue?, into raw: UnsafeMutableRawBufferPointer, at offset: inout Int, texts: [String],
        textIndex: inout Int
    ) {
        switch value {
        case nil:
            raw[offset] = Tag.null.rawValue
            offset += 1
        case .bool(let flag)?:
            raw[offset] = flag ? Tag.true.rawValue : Tag.false.rawValue
            offset += 1
        case .int(let integer)?:
            raw[offset] = Tag.int.rawValue
            raw.storeBytes(of: UInt64(bitPattern: integer).littleEndian, toByteOffset: offset + 1, as: UInt64.self)
            offset += 9
        case .double(let number)?:
            raw[offset] = Tag.double.rawValue
            raw.storeBytes(of: number.bitPattern.littleEndian, toByteOffset: offset + 1, as: UInt64.self)
            offset += 9
        case .float(let number)?:
            raw[offset] = Tag.float.rawValue
            raw.storeBytes(of: number.bitPattern.littleEndian, toByteOffset: offset + 1, as: UInt32.self)
            offset += 5
        case .date(let date)?:
            raw[offset] = Tag.date.rawValue
            raw.storeBytes(of: date.timeIntervalSinceReferenceDate.bitPattern.littleEndian, toByteOffset: offset + 1, as: UInt64.self)
            offset += 9
        case .uuid(let uuid)?:
            raw[offset] = Tag.uuid.rawValue
            offset += 1
            withUnsafeBytes(of: uuid.uuid) { copy($0, into: raw, at: &offset) }
        case .string(let text)?:
            raw[offset] = Tag.string.rawValue
            offset += 1
            copy(text, into: raw, at: &offset)
        case .data(let data)?:
            raw[offset] = Tag.data.rawValue
            offset += 1
            data.withUnsafeBytes { copy($0, into: raw, at: &offset) }
        case .decimal?, .url?:
            if case .decimal? = value { raw[offset] = Tag.decimal.rawValue } else { raw[offset] = Tag.url.rawValue }
            offset += 1
            copy(texts[textIndex], into: raw, at: &offset)
            textIndex += 1
        }
    }

    @inline(__always)
    private static func copy(_ bytes: UnsafeRawBufferPointer, into raw: UnsafeMutableRawBufferPointer, at offset: inout Int) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        (raw.baseAddress! + offset).copyMemory(from: base, byteCount: bytes.count)
        offset += bytes.count
    }

    @inline(__always)
    private static func copy(_ text: String, into raw: UnsafeMutableRawBufferPointer, at offset: inout Int) {
        if let done: Void = text.utf8.withContiguousStorageIfAvailable({ copy(UnsafeRawBufferPointer($0), into: raw, at: &offset) }) {
            return done
        }
        var text = text
        text.withUTF8 { copy(UnsafeRawBufferPointer($0), into: raw, at: &offset) }
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
        case .reference: 8
        }
    }
}
