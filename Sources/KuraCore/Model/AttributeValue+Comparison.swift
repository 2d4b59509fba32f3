import Foundation

extension AttributeValue {
    /// The total order Kura sorts and indexes by: `nil` first; numbers by
    /// value across integer, floating-point and decimal types (NaN after every
    /// number); strings by the Unicode code points of their NFC form (what
    /// Swift's `String` comparison means, made total: Swift's own `<` is not
    /// always consistent for strings that are not in NFC); dates by time; UUIDs and data by their bytes; `false` before
    /// `true`. Values of unrelated types order by type, so the order is total.
    ///
    /// Returns a negative number, zero or a positive number, like `memcmp`.
    public static func compare(_ lhs: AttributeValue?, _ rhs: AttributeValue?) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let lhs?, let rhs?): return lhs.compare(to: rhs)
        }
    }

    /// This value compared with `other`; see ``compare(_:_:)``.
    public func compare(to other: AttributeValue) -> Int {
        switch (self, other) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)): return Self.compareStrings(a, b)
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.date(let a), .date(let b)):
            return Self.compareDoubles(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        case (.uuid(let a), .uuid(let b)):
            return withUnsafeBytes(of: a.uuid) { a in withUnsafeBytes(of: b.uuid) { b in Self.compareBytes(a, b) } }
        case (.data(let a), .data(let b)):
            return a.withUnsafeBytes { a in b.withUnsafeBytes { b in Self.compareBytes(a, b) } }
        case (.url(let a), .url(let b)):
            return Self.compareStrings(a.absoluteString, b.absoluteString)
        case (.decimal(let a), .decimal(let b)):
            return Self.compareDecimals(a, b)
        case (.decimal(let a), .int(let b)):
            return Self.compareDecimals(a, Decimal(b))
        case (.int(let a), .decimal(let b)):
            return Self.compareDecimals(Decimal(a), b)
        default:
            if let a = numericValue, let b = other.numericValue, naturalType != .bool, other.naturalType != .bool {
                return Self.compareDoubles(a, b)
            }
            return Self.typeRank(self) - Self.typeRank(other)
        }
    }

    /// Decimals in a total order: NaN equal to NaN and above every number,
    /// as for doubles (Foundation's `<` calls NaN less than everything).
    static func compareDecimals(_ a: Decimal, _ b: Decimal) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? 0 : 1) : -1 }
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    /// Doubles in a total order: `-0 == 0`, NaN equal to NaN and above everything.
    static func compareDoubles(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? 0 : 1) : -1 }
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    /// Strings by the UTF-8 bytes of their NFC forms: code-point order, the
    /// order of their index keys.
    static func compareStrings(_ a: String, _ b: String) -> Int {
        var a = IndexKeyEncoding.normalized(a)
        var b = IndexKeyEncoding.normalized(b)
        return a.withUTF8 { a in b.withUTF8 { b in compareBytes(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) } }
    }

    static func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    private static func typeRank(_ value: AttributeValue) -> Int {
        switch value {
        case .bool: 0
        case .int, .double, .float, .decimal: 1
        case .string: 2
        case .url: 3
        case .date: 4
        case .uuid: 5
        case .data: 6
        }
    }
}
