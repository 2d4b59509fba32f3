/// A top-K of a records space by one numeric field, which an engine whose
/// reads are requests may narrow on its side
/// (``StorageTransaction/forEachRanked(in:by:_:)``): it sends the records
/// whose field ranks among the first ``count``, those tied with the last of
/// them, and every record whose rank it can't tell, so that what it sends
/// holds the top ``count`` whatever the store's own order. The store then
/// ranks what it is sent exactly as it ranks a scan: the predicate meaning
/// and the order stay the store's.
///
/// The rank of a record is read from Kura's record format (the StoreFormat
/// article): the value in field ``field`` (its end offset at byte
/// 11 + 4 × field, its start the previous field's end), when it is a tag
/// byte equal to ``tag`` followed by 8 bytes little-endian: an integer
/// (tag 3) ranks as a signed 64-bit number; a double (4) or a date (8, its
/// seconds since 2001 as a double) ranks by its IEEE 754 bits made
/// order-preserving, and a NaN has no rank. Any other value has no rank.
public struct RecordRanking: Sendable, Hashable {
    /// The record field ranked.
    public let field: Int
    /// The tag a ranked value has (3, 4 or 8).
    public let tag: UInt8
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
    init?(entity: EntityDescription, attribute: Int, descending: Bool, count: Int) {
        let tag: RecordFormat.Tag
        switch entity.attributes[attribute].type {
        case .int16, .int32, .int64: tag = .int
        case .double: tag = .double
        case .date: tag = .date
        default: return nil
        }
        let layout = entity.layout
        field = layout.isIdentity ? attribute : layout.attributeFields[attribute]
        self.tag = tag.rawValue
        self.descending = descending
        self.count = count
    }
}
