import Foundation

/// A stored record read in place: attribute values decode one at a time from
/// the bytes, without copying the rest.
///
/// Make one with ``init(validating:entity:)`` for bytes from the store (it
/// checks the whole layout once, so reads after that cannot fail) or with
/// ``init(trusted:)`` for bytes already validated.
struct RecordView {
    let bytes: UnsafeRawBufferPointer
    let count: Int

    /// Wraps bytes that were validated before (an object's own copy).
    init(trusted bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        count = RecordFormat.Header.fieldCount(of: bytes)
    }

    /// Checks every part of the record against `entity`: the format version,
    /// the offset table, each tag against its attribute's type, each fixed
    /// payload's size, and that decimals and URLs parse.
    init(validating bytes: UnsafeRawBufferPointer, entity: EntityDescription) throws(RecordError) {
        try self.init(checkingHeader: bytes, entity: entity)
        try checkAllValues(of: entity)
    }

    /// Checks the header and the offset table only: enough to find each
    /// value safely, without reading the values (which, for a scan, would
    /// touch every cache line of every record). Check the values a query
    /// reads with ``checkValues(_:of:)`` before decoding them.
    init(checkingHeader bytes: UnsafeRawBufferPointer, entity: EntityDescription) throws(RecordError) {
        guard bytes.count >= RecordFormat.Header.size else { throw .tooShort(bytes.count) }
        let format = bytes[RecordFormat.Header.formatVersionOffset]
        guard format == RecordFormat.version else { throw .unknownVersion(format) }
        self.init(trusted: bytes)
        guard count <= entity.layout.fieldCount else { throw .tooManyValues(count, entity.layout.fieldCount) }
        let dataStart = RecordFormat.Header.size + count * 4
        guard dataStart <= bytes.count else { throw .tooShort(bytes.count) }
        // Offsets must rise, and the last must end the record: then every
        // value lies inside it (only the offset table is read here, and it
        // is inside: checked above).
        var previousEnd = 0
        for number in 0..<count {
            let end = endOffset(number)
            guard end > previousEnd else { throw .badOffset(number) }
            previousEnd = end
        }
        guard dataStart + previousEnd <= bytes.count else { throw .badOffset(count - 1) }
        guard dataStart + previousEnd == bytes.count else { throw .trailingBytes }
    }

    /// Checks every value's tag, size and, for decimals and URLs, that it parses.
    func checkAllValues(of entity: EntityDescription) throws(RecordError) {
        try checkAllValues(of: entity.layout)
    }

    /// ``checkAllValues(of:)-(EntityDescription)`` with the entity's layout,
    /// for a caller that checks many records (it takes the layout once).
    func checkAllValues(of layout: RecordLayout) throws(RecordError) {
        guard !layout.hasParsedValues else {
            for field in 0..<count { try checkField(field, of: layout) }
            return
        }
        // The usual case in one pass over the offset table (checked by the
        // header's check: rising, inside the record): each value's tag is
        // its field's and its size the tag's. Anything else (nil, false for
        // a Bool, a removed property's value, or damage) is left to
        // `checkField`, which accepts it or says what is wrong. (The
        // layout's arrays are read in place: copies would be retained.)
        let dataStart = RecordFormat.Header.size + count * 4
        var start = 0
        for field in 0..<count {
            let end = endOffset(field)
            let size = layout.fieldPayloadSizes[field]
            if bytes[dataStart + start] != layout.fieldTags[field] || (size >= 0 && size != end - start - 1) {
                try checkField(field, of: layout)
            }
            start = end
        }
    }

    /// Checks the values of the attributes at positions `numbers` (a record
    /// written before an attribute existed has nothing to check for it).
    @inline(__always)
    func checkValues(_ numbers: [Int], of entity: EntityDescription) throws(RecordError) {
        let layout = entity.layout
        for number in numbers {
            let field = layout.isIdentity ? number : layout.attributeFields[number]
            if field < count { try checkField(field, of: layout) }
        }
    }

    @inline(__always)
    func checkField(_ field: Int, of layout: RecordLayout) throws(RecordError) {
        let stored = valueBytes(field)
        let tag = stored[0]
        let payload = stored.count - 1
        if tag == RecordFormat.Tag.null.rawValue {
            guard payload == 0 else { throw .badSize(field) }
            return
        }
        var expected = layout.fieldTags[field]
        if expected == RecordLayout.retiredTag {
            // A removed property's value: never read, but it must still be
            // a value of some kind, with its kind's size.
            guard let known = RecordFormat.Tag(rawValue: tag) else { throw .badTag(field, tag) }
            if let size = RecordFormat.payloadSize(of: known), size != payload { throw .badSize(field) }
            return
        }
        if expected == RecordFormat.Tag.true.rawValue && tag == RecordFormat.Tag.false.rawValue { expected = tag }
        guard tag == expected else { throw .badTag(field, tag) }
        let size = layout.fieldPayloadSizes[field]
        if size >= 0 && size != payload { throw .badSize(field) }
        if layout.hasParsedValues && (tag == RecordFormat.Tag.decimal.rawValue || tag == RecordFormat.Tag.url.rawValue) {
            let text = String(decoding: Self.payload(of: stored), as: UTF8.self)
            let valid = tag == RecordFormat.Tag.decimal.rawValue ? DecimalText.parse(text) != nil : URL(string: text) != nil
            guard valid else { throw .badValue(field) }
        }
    }

    /// The row version: 1 when inserted, one more per saved update.
    var rowVersion: UInt64 {
        RecordFormat.Header.rowVersion(of: bytes)
    }

    private func endOffset(_ number: Int) -> Int {
        Int(bytes.loadUnaligned(fromByteOffset: RecordFormat.Header.size + number * 4, as: UInt32.self).littleEndian)
    }

    /// The bytes of value `number`: its tag first, then the payload.
    @inline(__always)
    private func valueBytes(_ number: Int) -> UnsafeRawBufferPointer {
        let dataStart = RecordFormat.Header.size + count * 4
        let start = number == 0 ? 0 : endOffset(number - 1)
        return UnsafeRawBufferPointer(rebasing: bytes[(dataStart + start)..<(dataStart + endOffset(number))])
    }

    /// The bytes of `field` as stored: its tag, then its payload.
    func storedValue(_ field: Int) -> UnsafeRawBufferPointer {
        valueBytes(field)
    }

    /// The tag of value `number`, or `nil` when the record predates that attribute.
    func tag(_ number: Int) -> RecordFormat.Tag? {
        guard number < count else { return nil }
        return RecordFormat.Tag(rawValue: valueBytes(number)[0])
    }

    /// The payload of value `number` (no tag); empty for nil and booleans.
    func payload(_ number: Int) -> UnsafeRawBufferPointer {
        Self.payload(of: valueBytes(number))
    }

    /// A value's bytes without its tag byte. (Not `dropFirst()`, which on a
    /// raw buffer goes through a generic slice.)
    @inline(__always)
    private static func payload(of stored: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: stored.baseAddress.map { $0 + 1 }, count: stored.count - 1)
    }

    /// Decodes the value of the attribute at position `number` of `entity`.
    /// Values the record predates read as the attribute's absent value (its
    /// default when it was added; see ``RecordLayout``).
    @inline(__always)
    func value(_ number: Int, of entity: EntityDescription) -> AttributeValue? {
        let layout = entity.layout
        let field = layout.isIdentity ? number : layout.attributeFields[number]
        guard field < count else { return layout.absentValues[number] }
        return decodedValue(atField: field)
    }

    /// The stored bytes (tag and payload) of the attribute at position
    /// `number` of `entity`; `nil` when the record predates it.
    @inline(__always)
    func storedValue(ofAttribute number: Int, of entity: EntityDescription) -> UnsafeRawBufferPointer? {
        let layout = entity.layout
        let field = layout.isIdentity ? number : layout.attributeFields[number]
        guard field < count else { return nil }
        return valueBytes(field)
    }

    /// The ordered bits (``SortKey/orderedBits``) of numeric attribute
    /// `number`, read from its bytes without making an ``AttributeValue``:
    /// `.some(nil)` for a nil value; `nil` when the record predates the
    /// attribute or the value isn't a number (decode it instead).
    @inline(__always)
    func orderedSortBits(_ number: Int, of entity: EntityDescription) -> UInt64?? {
        let layout = entity.layout
        let field = layout.isIdentity ? number : layout.attributeFields[number]
        guard field < count else { return nil }
        return Self.orderedSortBits(ofStored: valueBytes(field))
    }

    /// The ordered bits of a numeric value as stored (its tag, then its
    /// payload, whose size its tag fixes): `.some(nil)` for nil; `nil` when
    /// the tag isn't a number's.
    @inline(__always)
    fileprivate static func orderedSortBits(ofStored stored: UnsafeRawBufferPointer) -> UInt64?? {
        orderedSortBits(tag: stored[0], payload: stored.baseAddress! + 1)
    }

    /// The ordered bits of a numeric value whose tag is `tag` and whose
    /// payload (as long as the tag says) starts at `payload`.
    @inline(__always)
    fileprivate static func orderedSortBits(tag: UInt8, payload: UnsafeRawPointer) -> UInt64?? {
        // On the tag byte itself: `Tag(rawValue:)` is a call per value.
        typealias Tag = RecordFormat.Tag
        switch tag {
        case Tag.null.rawValue: return .some(nil)
        case Tag.false.rawValue: return SortKey.orderedBits(Int64(0))
        case Tag.true.rawValue: return SortKey.orderedBits(Int64(1))
        case Tag.int.rawValue: return SortKey.orderedBits(Int64(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian))
        case Tag.double.rawValue, Tag.date.rawValue:
            return SortKey.orderedBits(Double(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian))
        case Tag.float.rawValue:
            return SortKey.orderedBits(Double(Float(bitPattern: payload.loadUnaligned(as: UInt32.self).littleEndian)))
        default: return nil
        }
    }

    /// Reads the ordered bits of one numeric field from record bytes not
    /// validated yet: the header, the field's two offsets and its value,
    /// nothing else. What a scan that keeps few of its records asks of each
    /// before it decides to validate the record.
    ///
    /// Every offset is checked against the buffer before it is read, then
    /// read through the base pointer: a scan calls this once a record, and
    /// the bounds checks of slices and subscripts were half of its cost
    /// (callgrind, a top-100 without an index).
    struct SortBitsProbe {
        let field: Int
        let tag: UInt8
        let payloadSize: Int

        init(field: Int, of layout: RecordLayout) {
            self.field = field
            tag = layout.fieldTags[field]
            payloadSize = layout.fieldPayloadSizes[field]
        }

        /// The bits, `.some(nil)` for a nil value; `nil` unless the header,
        /// the offsets and the value are in place and the value has the
        /// field's tag (or is nil) and size: then validate the record and
        /// read it as a view.
        @inline(__always)
        func bits(in bytes: UnsafeRawBufferPointer) -> UInt64?? {
            guard let base = bytes.baseAddress, bytes.count >= RecordFormat.Header.size,
                  base.load(fromByteOffset: RecordFormat.Header.formatVersionOffset, as: UInt8.self) == RecordFormat.version else { return nil }
            let count = RecordFormat.Header.fieldCount(of: bytes)
            let dataStart = RecordFormat.Header.size + count * 4
            guard field < count, dataStart <= bytes.count else { return nil }
            let offsets = base + RecordFormat.Header.size
            let end = Int(UInt32(littleEndian: offsets.loadUnaligned(fromByteOffset: field * 4, as: UInt32.self)))
            let start = field == 0 ? 0 : Int(UInt32(littleEndian: offsets.loadUnaligned(fromByteOffset: field * 4 - 4, as: UInt32.self)))
            guard start < end, end <= bytes.count - dataStart else { return nil }
            let stored = base + dataStart + start
            let found = stored.load(as: UInt8.self)
            if found == RecordFormat.Tag.null.rawValue { return end - start == 1 ? .some(nil) : nil }
            guard found == tag || (tag == RecordFormat.Tag.true.rawValue && found == RecordFormat.Tag.false.rawValue),
                  payloadSize == end - start - 1 else { return nil }
            return orderedSortBits(tag: found, payload: stored + 1)
        }
    }

    /// Whether value `number` is not `nil`, by its tag (not decoded).
    func hasValue(_ number: Int, of entity: EntityDescription) -> Bool {
        let layout = entity.layout
        let field = layout.isIdentity ? number : layout.attributeFields[number]
        guard field < count else { return layout.absentValues[number] != nil }
        return valueBytes(field)[0] != RecordFormat.Tag.null.rawValue
    }

    /// Decodes the value in `field`, or `absent` when the record predates it.
    func value(atField field: Int, absent: AttributeValue?) -> AttributeValue? {
        guard field < count else { return absent }
        return decodedValue(atField: field)
    }

    /// Decodes the value in `field` (which the record has) by its tag.
    private func decodedValue(atField field: Int) -> AttributeValue? {
        // On the tag byte itself: `Tag(rawValue:)` is a call per value.
        typealias Tag = RecordFormat.Tag
        let stored = valueBytes(field)
        let payload = Self.payload(of: stored)
        switch stored[0] {
        case Tag.false.rawValue: return .bool(false)
        case Tag.true.rawValue: return .bool(true)
        case Tag.int.rawValue: return .int(Int64(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian))
        case Tag.double.rawValue: return .double(Double(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian))
        case Tag.float.rawValue: return .float(Float(bitPattern: payload.loadUnaligned(as: UInt32.self).littleEndian))
        case Tag.date.rawValue:
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian)))
        case Tag.decimal.rawValue: return DecimalText.parse(String(decoding: payload, as: UTF8.self)).map(AttributeValue.decimal)
        case Tag.string.rawValue: return .string(String(decoding: payload, as: UTF8.self))
        case Tag.uuid.rawValue: return .uuid(UUID(uuid: payload.loadUnaligned(as: uuid_t.self)))
        case Tag.data.rawValue: return .data(Data(payload))
        case Tag.url.rawValue: return URL(string: String(decoding: payload, as: UTF8.self)).map(AttributeValue.url)
        default: return nil  // nil, or a reference field (not an attribute's)
        }
    }

    /// Whether the stored value of attribute `number` is `value`, told from
    /// its bytes without decoding it where the bytes decide: nil, Booleans,
    /// integers, doubles and dates by their bits (NaN the same as NaN, -0.0
    /// not 0.0, as `==` on attribute values says), texts when their UTF-8 is the same or
    /// both are ASCII. `nil` when only decoding can tell: other types, a
    /// record that predates the attribute, a tag that isn't the value's
    /// type, texts of other bytes that may be canonically equivalent.
    func storedValue(_ number: Int, of entity: EntityDescription, isSameAs value: AttributeValue?) -> Bool? {
        typealias Tag = RecordFormat.Tag
        let layout = entity.layout
        let field = layout.isIdentity ? number : layout.attributeFields[number]
        guard field < count else { return nil }
        let stored = valueBytes(field)
        let tag = stored[0]
        guard let value else { return tag == Tag.null.rawValue }
        if tag == Tag.null.rawValue { return false }
        let payload = Self.payload(of: stored)
        func bits() -> UInt64 { payload.loadUnaligned(as: UInt64.self).littleEndian }
        switch value {
        case .bool(let flag):
            guard tag == Tag.false.rawValue || tag == Tag.true.rawValue else { return nil }
            return (tag == Tag.true.rawValue) == flag
        case .int(let integer):
            guard tag == Tag.int.rawValue else { return nil }
            return Int64(bitPattern: bits()) == integer
        case .double(let number):
            guard tag == Tag.double.rawValue else { return nil }
            return AttributeValue.same(Double(bitPattern: bits()), number)
        case .date(let date):
            guard tag == Tag.date.rawValue else { return nil }
            return AttributeValue.same(Double(bitPattern: bits()), date.timeIntervalSinceReferenceDate)
        case .string(var text):
            guard tag == Tag.string.rawValue else { return nil }
            return text.withUTF8 { utf8 -> Bool? in
                let new = UnsafeRawBufferPointer(utf8)
                if new.count == payload.count && (new.isEmpty || memcmp(new.baseAddress!, payload.baseAddress!, new.count) == 0) {
                    return true
                }
                return IndexKeyEncoding.isASCII(new) && IndexKeyEncoding.isASCII(payload) ? false : nil
            }
        default:
            return nil
        }
    }

    /// The primary key a to-one's reference field holds, or `nil` (no
    /// destination, or a record written before the relationship existed).
    @inline(__always)
    func reference(_ field: Int) -> UInt64? {
        guard field < count else { return nil }
        let stored = valueBytes(field)
        guard stored[0] == RecordFormat.Tag.reference.rawValue, stored.count == 9 else { return nil }
        return UInt64(littleEndian: stored.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
    }
}

/// What is wrong with a stored record.
enum RecordError: Error, CustomStringConvertible {
    case tooShort(Int)
    case unknownVersion(UInt8)
    case tooManyValues(Int, Int)
    case badOffset(Int)
    case badTag(Int, UInt8)
    case badSize(Int)
    case badValue(Int)
    case trailingBytes

    var description: String {
        switch self {
        case .tooShort(let count): "record of \(count) bytes is too short"
        case .unknownVersion(let version): "record format \(version) is unknown"
        case .tooManyValues(let count, let attributes): "record has \(count) values for \(attributes) attributes"
        case .badOffset(let number): "value \(number) has a bad offset"
        case .badTag(let number, let tag): "value \(number) has tag \(tag), which doesn't fit its attribute"
        case .badSize(let number): "value \(number) has the wrong size"
        case .badValue(let number): "value \(number) does not parse"
        case .trailingBytes: "record has bytes past its last value"
        }
    }
}
