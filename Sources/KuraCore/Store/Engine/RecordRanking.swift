/// A top-K of a records space by one numeric field, which an engine whose
/// reads are requests may narrow on its side
/// (``RequestingStorageTransaction/forEachRanked(in:by:_:)``): it sends the records
/// whose field ranks among the first ``count``, those tied with the last of
/// them, and every record whose rank it can't tell, so that what it sends
/// holds the top ``count`` whatever the store's own order. The store then
/// ranks what it is sent exactly as it ranks a scan: the predicate meaning
/// and the order stay the store's.
///
/// The rank of a record is read from Kura's record format as ``layout``
/// describes it (the StoreFormat article): the value in field ``field``,
/// when it is a tag byte equal to ``tag`` followed by
/// ``Layout/payloadWidth`` bytes little-endian: an integer ranks as a
/// signed 64-bit number; a double or a date (its seconds since 2001 as a
/// double) ranks by its IEEE 754 bits made order-preserving, and a NaN has
/// no rank. Any other value has no rank. An engine reads the record by the
/// layout's numbers only: no byte offset or tag of the format is written
/// in an engine, so a change of the format is made here alone.
public struct RecordRanking: Sendable, Hashable {
    /// The record field ranked.
    public let field: Int
    /// The tag a ranked value has (an integer's, a double's or a date's).
    public let tag: UInt8
    /// Where a record keeps its fields (Kura's record format).
    public let layout: Layout
    /// True when the highest ranks come first.
    public let descending: Bool
    /// How many records the store keeps.
    public let count: Int

    /// True when the ranked values are integers, whose payload ranks as it
    /// is; a double's or a date's bits are made order-preserving first.
    public var ranksIntegers: Bool { tag == RecordFormat.Tag.int.rawValue }

    /// The ranking of `count` records by `attribute` of `entity`, or `nil`
    /// when the attribute's values have no 8-byte rank (a Bool, a Float, a
    /// decimal, a string…).
    init?(entity: EntityDescription, attribute: Int, descending: Bool, count: Int, layout: Layout = .records) {
        let tag: RecordFormat.Tag
        switch entity.attributes[attribute].type {
        case .int16, .int32, .int64: tag = .int
        case .double: tag = .double
        case .date: tag = .date
        default: return nil
        }
        let fields = entity.layout
        field = fields.isIdentity ? attribute : fields.attributeFields[attribute]
        self.tag = tag.rawValue
        self.layout = layout
        self.descending = descending
        self.count = count
    }

    /// A ranking of field `field` with values of `tag`, in records of `layout`.
    init(field: Int, tag: UInt8, descending: Bool, count: Int, layout: Layout) {
        self.field = field
        self.tag = tag
        self.descending = descending
        self.count = count
        self.layout = layout
    }

    /// Where a record keeps its fields, in bytes: a field count, a table of
    /// each field's end in the data area, then the data area, each value a
    /// tag byte and its payload; every number little-endian.
    public struct Layout: Sendable, Hashable {
        /// Where the field count is, and its width.
        public let fieldCountOffset: Int
        public let fieldCountWidth: Int
        /// Where the table of field ends begins (the data area follows it),
        /// and the width of each end.
        public let endTableOffset: Int
        public let endWidth: Int
        /// The width of a ranked value's payload, after its tag byte.
        public let payloadWidth: Int

        /// Kura's record format (the StoreFormat article).
        public static let records = Layout(
            fieldCountOffset: RecordFormat.Header.fieldCountOffset, fieldCountWidth: MemoryLayout<UInt16>.size,
            endTableOffset: RecordFormat.Header.size, endWidth: MemoryLayout<UInt32>.size, payloadWidth: MemoryLayout<UInt64>.size)

        init(fieldCountOffset: Int, fieldCountWidth: Int, endTableOffset: Int, endWidth: Int, payloadWidth: Int) {
            self.fieldCountOffset = fieldCountOffset
            self.fieldCountWidth = fieldCountWidth
            self.endTableOffset = endTableOffset
            self.endWidth = endWidth
            self.payloadWidth = payloadWidth
        }
    }
}

extension RecordRanking {
    /// A ranking of `count` records by the integer in field `field`, for an
    /// engine's own checks with records made by ``record(integers:)``.
    public static func integers(inField field: Int, descending: Bool, count: Int) -> RecordRanking {
        RecordRanking(field: field, tag: RecordFormat.Tag.int.rawValue, descending: descending, count: count, layout: .records)
    }

    /// A record in Kura's format whose fields hold `integers` (`nil`: a
    /// value without a rank), row version 1: what a conformance check
    /// stores to test an engine's ranked reads.
    public static func record(integers: [Int64?]) -> [UInt8] {
        let dataStart = RecordFormat.Header.size + integers.count * 4
        let total = dataStart + integers.reduce(0) { $0 + ($1 == nil ? 1 : 9) }
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            RecordFormat.Header.write(rowVersion: 1, fieldCount: integers.count, into: raw)
            var offset = dataStart
            for (field, integer) in integers.enumerated() {
                if let integer {
                    raw[offset] = RecordFormat.Tag.int.rawValue
                    raw.storeBytes(of: UInt64(bitPattern: integer).littleEndian, toByteOffset: offset + 1, as: UInt64.self)
                    offset += 9
                } else {
                    raw[offset] = RecordFormat.Tag.null.rawValue
                    offset += 1
                }
                raw.storeBytes(of: UInt32(offset - dataStart).littleEndian, toByteOffset: RecordFormat.Header.size + field * 4, as: UInt32.self)
            }
            count = total
        }
    }
}
