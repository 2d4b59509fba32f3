#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A range of keys, in `memcmp` order (``compareKeys(_:_:)-(UnsafeRawBufferPointer,UnsafeRawBufferPointer)``):
/// what KuraLMDB's iteration and Kura's storage seam walk.
///
/// ```swift
/// KeyRange.all
/// KeyRange.prefix([0x01])                         // every key starting with 0x01
/// KeyRange(from: [0x10], to: [0x20])              // 0x10 <= key < 0x20
/// KeyRange(from: [0x10], through: [0x20])         // 0x10 <= key <= 0x20
/// ```
public struct KeyRange: Sendable, Hashable {
    /// A bound of the range: a key and whether the key itself is in the range.
    public struct Bound: Sendable, Hashable {
        public var key: [UInt8]
        public var isInclusive: Bool

        public init(_ key: [UInt8], isInclusive: Bool) {
            self.key = key
            self.isInclusive = isInclusive
        }
    }

    /// The smallest keys in the range, or `nil` for no lower limit.
    public var lower: Bound?
    /// The largest keys in the range, or `nil` for no upper limit.
    public var upper: Bound?

    public init(lower: Bound?, upper: Bound?) {
        self.lower = lower
        self.upper = upper
    }

    /// Every key.
    public static let all = KeyRange(lower: nil, upper: nil)

    /// `lower <= key < upper`.
    public init(from lower: [UInt8], to upper: [UInt8]) {
        self.init(lower: Bound(lower, isInclusive: true), upper: Bound(upper, isInclusive: false))
    }

    /// `lower <= key <= upper`.
    public init(from lower: [UInt8], through upper: [UInt8]) {
        self.init(lower: Bound(lower, isInclusive: true), upper: Bound(upper, isInclusive: true))
    }

    /// Every key that starts with `prefix`.
    public static func prefix(_ prefix: [UInt8]) -> KeyRange {
        let lower = Bound(prefix, isInclusive: true)
        guard let successor = KeyRange.successor(ofPrefix: prefix) else {
            return KeyRange(lower: lower, upper: nil)
        }
        return KeyRange(lower: lower, upper: Bound(successor, isInclusive: false))
    }

    /// The smallest key greater than every key that starts with `prefix`, or
    /// `nil` when there is none (the prefix is empty or all `0xFF`).
    public static func successor(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}

/// The key order of LMDB (its default) and of every Kura storage engine:
/// `memcmp` over the common length, then shorter first.
/// Negative, zero or positive, like `memcmp`.
@inlinable
public func compareKeys(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let left = a.baseAddress, let right = b.baseAddress {
        let order = memcmp(left, right, common)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}

/// The key order for a borrowed key against an array.
@inlinable
public func compareKeys(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Int {
    b.withUnsafeBytes { compareKeys(a, $0) }
}

/// Which way a walk of a key range goes.
public enum IterationDirection: Sendable, Hashable {
    /// Smallest key first.
    case forward
    /// Largest key first.
    case reverse
}
