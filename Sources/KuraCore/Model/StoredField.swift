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

    var bool: StoredRead<Bool> {
        switch tag {
        case RecordFormat.Tag.false.rawValue: .value(false)
        case RecordFormat.Tag.true.rawValue: .value(true)
        default: .unavailable
        }
    }

    /// The payload as an integer, if the tag is an integer's.
    var int64: StoredRead<Int64> {
        guard tag == RecordFormat.Tag.int.rawValue else { return .unavailable }
        return .value(Int64(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian))
    }

    /// The payload's 8 bytes as a `Double`, if the tag is `tag`'s.
    func double(tagged tag: RecordFormat.Tag) -> StoredRead<Double> {
        guard self.tag == tag.rawValue else { return .unavailable }
        return .value(Double(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian))
    }

    var date: StoredRead<Date> {
        guard tag == RecordFormat.Tag.date.rawValue else { return .unavailable }
        return .value(Date(timeIntervalSinceReferenceDate: Double(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian)))
    }

    var float: StoredRead<Float> {
        guard tag == RecordFormat.Tag.float.rawValue else { return .unavailable }
        return .value(Float(bitPattern: payload.loadUnaligned(as: UInt32.self).littleEndian))
    }

    var string: StoredRead<String> {
        guard tag == RecordFormat.Tag.string.rawValue else { return .unavailable }
        return .value(String(decoding: payload, as: UTF8.self))
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

    /// The read as `Value`, made by `Value`'s own conversion from the
    /// ``AttributeValue`` `make` gives; `nil` when unavailable, or when
    /// `Value` doesn't take it (a `nil` for a non-optional).
    @inlinable
    consuming func typed<Value: AttributeValueConvertible>(_ make: (Stored) -> AttributeValue, as type: Value.Type) -> Value? {
        switch consume self {
        case .unavailable: nil
        case .null: Value(attributeValue: nil)
        case .value(let stored): Value(attributeValue: make(stored))
        }
    }
}

extension ManagedObject {
    /// The attribute whose ``Attribute`` storage is `keyPath` as `Value`,
    /// read straight from the record's bytes when `Value` is one of the
    /// common types (strings, numbers, Booleans, dates, and optionals of
    /// them) and the object holds no values of its own; `nil` otherwise.
    ///
    /// Inlinable, so a getter specialized for its type keeps one case of
    /// the switch (`attributeType` is a constant there) and one call into
    /// Kura, where the bytes are decoded: no standard-library type gains a
    /// member, and the record format is not compiled into the app.
    @inlinable
    final func storedValue<Value: AttributeValueConvertible>(forStorage keyPath: AnyKeyPath, as type: Value.Type) -> Value? {
        switch Value.attributeType {
        case .string: storedString(forStorage: keyPath).typed(AttributeValue.string, as: type)
        case .int16, .int32, .int64: storedInt64(forStorage: keyPath).typed(AttributeValue.int, as: type)
        case .double: storedDouble(forStorage: keyPath).typed(AttributeValue.double, as: type)
        case .float: storedFloat(forStorage: keyPath).typed(AttributeValue.float, as: type)
        case .bool: storedBool(forStorage: keyPath).typed(AttributeValue.bool, as: type)
        case .date: storedDate(forStorage: keyPath).typed(AttributeValue.date, as: type)
        case .decimal, .uuid, .data, .url: nil
        }
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

    @usableFromInline
    final func storedDate(forStorage keyPath: AnyKeyPath) -> StoredRead<Date> {
        storedRead(forStorage: keyPath) { $0.date }
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
