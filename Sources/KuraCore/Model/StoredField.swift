import Foundation

/// One value of a stored record as its bytes (its tag, then its payload),
/// for a typed property's getter to decode without making an
/// ``AttributeValue`` first.
///
/// Only ever lent: ``ManagedObject/storedRead(forStorage:_:)`` makes one
/// inside the record's `withUnsafeBytes` and passes it to a non-escaping
/// closure that decodes it there, so the pointer never outlives the bytes
/// (the object's record, checked when it was read). Internal: the record
/// format stays inside Kura; what a getter gets is a ``StoredRead``.
struct StoredField {
    let tag: UInt8
    let payload: UnsafeRawBufferPointer

    init(_ stored: UnsafeRawBufferPointer) {
        tag = stored[0]
        payload = UnsafeRawBufferPointer(rebasing: stored[1...])
    }

    var isNull: Bool { tag == RecordFormat.Tag.null.rawValue }

    var bool: Bool? {
        switch tag {
        case RecordFormat.Tag.false.rawValue: false
        case RecordFormat.Tag.true.rawValue: true
        default: nil
        }
    }

    /// The payload as an integer, if the tag is an integer's.
    var int64: Int64? {
        guard tag == RecordFormat.Tag.int.rawValue else { return nil }
        return Int64(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian)
    }

    /// The payload's 8 bytes as a `Double`, if the tag is `tag`'s.
    func double(tagged tag: RecordFormat.Tag) -> Double? {
        guard self.tag == tag.rawValue else { return nil }
        return Double(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian)
    }

    var float: Float? {
        guard tag == RecordFormat.Tag.float.rawValue else { return nil }
        return Float(bitPattern: payload.loadUnaligned(as: UInt32.self).littleEndian)
    }

    var string: String? {
        guard tag == RecordFormat.Tag.string.rawValue else { return nil }
        return String(decoding: payload, as: UTF8.self)
    }
}

/// What a typed getter read of its attribute straight from the record.
@usableFromInline
enum StoredRead<Stored> {
    /// Not read this way (the object holds values of its own, has no
    /// record, or the stored value isn't a `Stored`): the getter goes
    /// through ``AttributeValue``, which says what is wrong.
    case unavailable
    /// The stored value is `nil`.
    case null
    case value(Stored)

    /// The read as `Value`, when `Value` is `Wrapped` or `Wrapped?` and
    /// `convert` takes the stored value (an optional's `nil` for a null);
    /// otherwise `nil`.
    @inlinable
    func typed<Wrapped, Value>(_ convert: (Stored) -> Wrapped?, as type: Value.Type) -> Value? {
        switch self {
        case .unavailable:
            return nil
        case .null:
            guard Value.self == Wrapped?.self else { return nil }
            return unsafeBitCast(Wrapped?.none, to: Value.self)
        case .value(let stored):
            guard let wrapped = convert(stored) else { return nil }
            if Value.self == Wrapped.self { return unsafeBitCast(wrapped, to: Value.self) }
            if Value.self == Wrapped?.self { return unsafeBitCast(Optional(wrapped), to: Value.self) }
            return nil
        }
    }
}

extension ManagedObject {
    /// The attribute whose ``Attribute`` storage is `keyPath` as `Value`,
    /// read straight from the record's bytes when `Value` is one of the
    /// common types (strings, numbers, Booleans, dates, and optionals of
    /// them) and the object holds no values of its own; `nil` otherwise.
    ///
    /// Inlinable, so a getter specialized for its type keeps one branch of
    /// these and one call into Kura, where the bytes are decoded: no
    /// standard-library type gains a member, and the record format is not
    /// compiled into the app.
    @inlinable
    final func storedValue<Value>(forStorage keyPath: AnyKeyPath, as type: Value.Type) -> Value? {
        if Value.self == String.self || Value.self == String?.self {
            return storedString(forStorage: keyPath).typed({ $0 }, as: type)
        }
        if Value.self == Int.self || Value.self == Int?.self {
            return storedInt64(forStorage: keyPath).typed({ Int(exactly: $0) }, as: type)
        }
        if Value.self == Int64.self || Value.self == Int64?.self {
            return storedInt64(forStorage: keyPath).typed({ $0 }, as: type)
        }
        if Value.self == Int32.self || Value.self == Int32?.self {
            return storedInt64(forStorage: keyPath).typed({ Int32(exactly: $0) }, as: type)
        }
        if Value.self == Int16.self || Value.self == Int16?.self {
            return storedInt64(forStorage: keyPath).typed({ Int16(exactly: $0) }, as: type)
        }
        if Value.self == Double.self || Value.self == Double?.self {
            return storedDouble(forStorage: keyPath).typed({ $0 }, as: type)
        }
        if Value.self == Float.self || Value.self == Float?.self {
            return storedFloat(forStorage: keyPath).typed({ $0 }, as: type)
        }
        if Value.self == Bool.self || Value.self == Bool?.self {
            return storedBool(forStorage: keyPath).typed({ $0 }, as: type)
        }
        if Value.self == Date.self || Value.self == Date?.self {
            return storedDateSeconds(forStorage: keyPath).typed(Date.init(timeIntervalSinceReferenceDate:), as: type)
        }
        return nil
    }

    @usableFromInline
    final func storedString(forStorage keyPath: AnyKeyPath) -> StoredRead<String> {
        storedRead(forStorage: keyPath) { $0.string }
    }

    @usableFromInline
    final func storedInt64(forStorage keyPath: AnyKeyPath) -> StoredRead<Int64> {
        storedRead(forStorage: keyPath) { $0.int64 }
    }

    @usableFromInline
    final func storedDouble(forStorage keyPath: AnyKeyPath) -> StoredRead<Double> {
        storedRead(forStorage: keyPath) { $0.double(tagged: .double) }
    }

    /// A date's seconds since the reference date.
    @usableFromInline
    final func storedDateSeconds(forStorage keyPath: AnyKeyPath) -> StoredRead<Double> {
        storedRead(forStorage: keyPath) { $0.double(tagged: .date) }
    }

    @usableFromInline
    final func storedFloat(forStorage keyPath: AnyKeyPath) -> StoredRead<Float> {
        storedRead(forStorage: keyPath) { $0.float }
    }

    @usableFromInline
    final func storedBool(forStorage keyPath: AnyKeyPath) -> StoredRead<Bool> {
        storedRead(forStorage: keyPath) { $0.bool }
    }
}
