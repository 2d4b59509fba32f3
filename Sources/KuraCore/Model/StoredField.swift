import Foundation

/// One value of a stored record as its bytes: its tag, then its payload.
///
/// A typed property of a fetched object that holds no values of its own
/// reads its attribute straight from these bytes (``AttributeValueConvertible/init(_storedField:)``),
/// without making an ``AttributeValue`` first: the common types (strings,
/// numbers, Booleans, dates, and optionals of them) decode here, the others
/// go through ``AttributeValue``. The bytes are the object's record, which
/// was checked when it was read; they are valid while the object keeps
/// that record, which is for the duration of the property's getter.
public struct _StoredField {  // swiftlint:disable:this type_name
    @usableFromInline let tag: UInt8
    @usableFromInline let payload: UnsafeRawBufferPointer

    @usableFromInline
    init(_ stored: UnsafeRawBufferPointer) {
        tag = stored[0]
        payload = UnsafeRawBufferPointer(start: stored.baseAddress.map { $0 + 1 }, count: stored.count - 1)
    }

    @inlinable var isNull: Bool { tag == RecordFormat.Tag.null.rawValue }

    /// The payload as an integer, if the tag is an integer's.
    @inlinable var int64: Int64? {
        guard tag == RecordFormat.Tag.int.rawValue else { return nil }
        return Int64(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian)
    }

    /// The payload's 8 bytes as a `Double`, if the tag is `tag`'s.
    @inlinable func double(tagged tag: RecordFormat.Tag) -> Double? {
        guard self.tag == tag.rawValue else { return nil }
        return Double(bitPattern: payload.loadUnaligned(as: UInt64.self).littleEndian)
    }
}

extension AttributeValueConvertible {
    /// Not decoded from the stored bytes: the value goes through ``AttributeValue``.
    @inlinable public init?(_storedField field: _StoredField) { return nil }
}

extension Optional where Wrapped: AttributeValueConvertible {
    @inlinable public init?(_storedField field: _StoredField) {
        if field.isNull {
            self = .none
            return
        }
        guard let wrapped = Wrapped(_storedField: field) else { return nil }
        self = .some(wrapped)
    }
}

extension Bool {
    @inlinable public init?(_storedField field: _StoredField) {
        switch field.tag {
        case RecordFormat.Tag.false.rawValue: self = false
        case RecordFormat.Tag.true.rawValue: self = true
        default: return nil
        }
    }
}

extension Int {
    @inlinable public init?(_storedField field: _StoredField) {
        guard let value = field.int64 else { return nil }
        self = Int(value)
    }
}

extension Int64 {
    @inlinable public init?(_storedField field: _StoredField) {
        guard let value = field.int64 else { return nil }
        self = value
    }
}

extension Int32 {
    @inlinable public init?(_storedField field: _StoredField) {
        guard let value = field.int64, let narrowed = Int32(exactly: value) else { return nil }
        self = narrowed
    }
}

extension Int16 {
    @inlinable public init?(_storedField field: _StoredField) {
        guard let value = field.int64, let narrowed = Int16(exactly: value) else { return nil }
        self = narrowed
    }
}

extension Double {
    @inlinable public init?(_storedField field: _StoredField) {
        guard let value = field.double(tagged: .double) else { return nil }
        self = value
    }
}

extension Float {
    @inlinable public init?(_storedField field: _StoredField) {
        guard field.tag == RecordFormat.Tag.float.rawValue else { return nil }
        self = Float(bitPattern: field.payload.loadUnaligned(as: UInt32.self).littleEndian)
    }
}

extension String {
    @inlinable public init?(_storedField field: _StoredField) {
        guard field.tag == RecordFormat.Tag.string.rawValue else { return nil }
        self = String(decoding: field.payload, as: UTF8.self)
    }
}

extension Date {
    @inlinable public init?(_storedField field: _StoredField) {
        guard let seconds = field.double(tagged: .date) else { return nil }
        self = Date(timeIntervalSinceReferenceDate: seconds)
    }
}
