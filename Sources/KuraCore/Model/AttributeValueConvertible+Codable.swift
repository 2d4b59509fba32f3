import Foundation

/// `Codable` values as attributes: a type that conforms to `Codable` and to
/// ``AttributeValueConvertible`` (with no code of its own) is stored as its
/// JSON in a ``AttributeType/data`` attribute whose
/// ``AttributeDescription/encoding`` is ``AttributeEncoding/json``:
///
/// ```swift
/// struct Address: Codable, Hashable, AttributeValueConvertible {
///     var street: String
///     var city: String
/// }
///
/// final class Shop: ManagedObject {
///     @Attribute var address: Address?
/// }
/// ```
///
/// The encoding is stable and documented: UTF-8 JSON with sorted keys and
/// `JSONEncoder`'s defaults otherwise (dates as seconds since 2001, `Data`
/// as base64; non-finite numbers as the strings `"NaN"`, `"Infinity"`,
/// `"-Infinity"`), with `-0` written `0` (a `-0.0` reads back as `0.0`).
/// A predicate compares such values by those bytes (`\.address == home`,
/// or `#Predicate` with a captured value): that agrees with a synthesized
/// (memberwise) `==` for every value, NaN included (a value holding a NaN
/// `Double` or `Float` equals nothing, itself included, as in Swift: `==`
/// matches no object and `!=` every one). A type whose own `==` is looser
/// than its encoding (case-insensitive, or ignoring a field) is still
/// compared by its encoding. A value is decoded each time its property is read, from the
/// record, like any attribute; `kura` shows and exports the JSON as text.
///
/// A stored value is kept whole: add an optional field to the type (or one
/// with a default in a custom `init(from:)`) and stored values still
/// decode; one that no longer decodes reads as the attribute's initial
/// value (which such an attribute must have, or be optional) and
/// ``ManagedObject/value(forKey:as:)`` throws naming it.
///
/// A value can nest arrays and objects at most 500 levels deep
/// (`JSONEncoder` itself gives up a little past 510, and its recursion
/// overflowed the stack at ten thousand). A
/// deeper value, or one whose `encode(to:)` throws, can be assigned (a
/// setter can't throw), but the save that would write it fails with
/// ``KuraError/validationFailed(_:)`` naming the attribute, writes nothing
/// and keeps the context's changes; its depth is measured before
/// `JSONEncoder` runs, so no depth stops the program.
///
/// Arrays of values that conform (`[String]`, `[Int]`, `[Status]`) conform
/// too (see the extension on `Array`); dictionaries don't: wrap one in a
/// type of your own.
/// An enumeration that is both `Codable` and `RawRepresentable` is stored
/// by its raw value (see the extension on `RawRepresentable` types).
extension AttributeValueConvertible where Self: Codable {
    @inlinable public static var attributeType: AttributeType { .data }
    @inlinable public static var attributeEncoding: AttributeEncoding { .json }

    @inlinable public init?(attributeValue: AttributeValue?) {
        guard case .data(let data) = attributeValue, let value = JSONAttributeCoding.decode(Self.self, from: data) else {
            return nil
        }
        self = value
    }

    @inlinable public var attributeValue: AttributeValue? { .data(JSONAttributeCoding.encode(self)) }

    /// The JSON a predicate compares with; for a value holding NaN, bytes
    /// no stored value has, so that `==` matches nothing and `!=` everything.
    @inlinable public var comparisonValue: AttributeValue? {
        Self.attributeEncoding == .json ? .data(JSONAttributeCoding.comparisonValue(self)) : attributeValue
    }
}

/// An enumeration that is both `Codable` and `RawRepresentable` is stored by
/// its raw value, as any enumeration (the more specific of the two ways).
extension AttributeValueConvertible where Self: RawRepresentable & Codable, RawValue: AttributeValueConvertible {
    @inlinable public static var attributeType: AttributeType { RawValue.attributeType }
    @inlinable public static var attributeEncoding: AttributeEncoding { RawValue.attributeEncoding }

    @inlinable public init?(attributeValue: AttributeValue?) {
        guard let rawValue = RawValue(attributeValue: attributeValue) else { return nil }
        self.init(rawValue: rawValue)
    }

    @inlinable public var attributeValue: AttributeValue? { rawValue.attributeValue }
}

/// The JSON of ``AttributeEncoding/json`` attributes.
@usableFromInline
enum JSONAttributeCoding {
    /// The deepest a stored value's arrays and objects may nest (below
    /// `JSONEncoder`'s own limit, about 510, and ``JSONScanner``'s).
    static let maximumDepth = 500

    /// The first byte of what ``encode(_:)`` returns for a value that can't
    /// be stored (no JSON begins with it); the rest is why, in UTF-8.
    static let unstorableMarker: UInt8 = 0

    /// `value`'s JSON. A value that can't be stored (nested deeper than
    /// ``maximumDepth``, or whose own `encode(to:)` throws) gives bytes that
    /// begin with ``unstorableMarker`` and say why: a property setter can't
    /// throw, so the save that would write it fails instead, with a
    /// validation error naming the attribute (``unstorableReason(_:)``).
    @usableFromInline
    static func encode<Value: Encodable>(_ value: Value) -> Data {
        // Before JSONEncoder: it recurses through the whole value first,
        // and overflows the stack on one nested thousands of levels deep.
        guard JSONDepthProbe.fits(value, limit: maximumDepth) else {
            return unstorable("\(Value.self) nests arrays or objects more than \(maximumDepth) levels deep")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return withoutNegativeZeros(try encoder.encode(value))
        } catch let error as EncodingError {
            // Its description prints the whole value: keep what it says, not what it holds.
            switch error {
            case .invalidValue(_, let context):
                return unstorable("\(Value.self) can't be encoded as JSON: \(context.debugDescription)")
            @unknown default:
                return unstorable("\(Value.self) can't be encoded as JSON")
            }
        } catch {
            return unstorable("\(Value.self)'s encode(to:) threw: \(error)")
        }
    }

    /// What a predicate compares a JSON attribute with for `value`: its
    /// JSON, or, when a `Double` or `Float` in it is NaN, bytes that begin
    /// with ``unstorableMarker``, which no stored value does, so `==`
    /// matches nothing and `!=` everything (Swift's synthesized `==` is
    /// false for such a value, even with itself).
    @usableFromInline
    static func comparisonValue<Value: Encodable>(_ value: Value) -> Data {
        let findings = JSONDepthProbe.walk(value, limit: maximumDepth)
        return findings.holdsNaN ? unstorable("\(Value.self) holds NaN, which is equal to nothing") : encode(value)
    }

    /// `json` with each number `-0` written `0`: `-0.0 == 0.0` in Swift, and
    /// a predicate compares JSON by its bytes, so equal values must be
    /// equal bytes. (A `-0.0` inside a `Codable` value reads back as `0.0`.)
    static func withoutNegativeZeros(_ json: Data) -> Data {
        let minus = UInt8(ascii: "-"), zero = UInt8(ascii: "0"), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        let hasMinusZero = json.withUnsafeBytes { raw in
            var index = 0
            while index + 1 < raw.count {
                if raw[index] == minus && raw[index + 1] == zero { return true }
                index += 1
            }
            return false
        }
        guard hasMinusZero else { return json }
        let bytes = [UInt8](json)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var inString = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == backslash { output.append(byte); index += 1; if index < bytes.count { output.append(bytes[index]) } }
                else { if byte == quote { inString = false }; output.append(byte) }
            } else if byte == quote {
                inString = true
                output.append(byte)
            } else if byte == minus, index + 1 < bytes.count, bytes[index + 1] == zero,
                      index + 2 == bytes.count || !Self.continuesNumber(bytes[index + 2]) {
                // The number `-0` alone (not `-0.5` or `-0e3`): its sign goes.
            } else {
                output.append(byte)
            }
            index += 1
        }
        return Data(output)
    }

    /// A byte that can follow `-0` in the same JSON number.
    private static func continuesNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || (0x30...0x39).contains(byte)
    }

    private static func unstorable(_ reason: String) -> Data {
        Data([unstorableMarker] + Array(reason.utf8))
    }

    /// Why `value` can't be stored, when it is what ``encode(_:)`` made of
    /// a value that can't be; `nil` for anything else.
    static func unstorableReason(_ value: AttributeValue?) -> String? {
        guard case .data(let data) = value, data.first == unstorableMarker else { return nil }
        return String(decoding: data.dropFirst(), as: UTF8.self)
    }

    /// The value `data` holds, or `nil` when it isn't the JSON of a `Value`.
    ///
    /// Read by ``JSONSpanDecoder`` (a tenth of `JSONDecoder`'s cost for the
    /// small values attributes hold); what it doesn't read, `JSONDecoder`
    /// reads, so a value reads as it did.
    @usableFromInline
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) -> Value? {
        if let value = data.withUnsafeBytes({ try? JSONSpanDecoder.decode(type, from: $0) }) { return value }
        return try? foundationDecoder.decode(type, from: data)
    }

    /// `JSONDecoder` with the options of these attributes.
    @usableFromInline
    static var foundationDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }
}

extension JSONAttributeCoding {
    /// The elements of a list's JSON array as values of `type`, or `nil`
    /// when `data` isn't one (what a predicate reads of a list attribute).
    static func elements(of data: Data, as type: AttributeType) -> [AttributeValue]? {
        func decoded<Element: Decodable>(_: Element.Type, _ wrap: (Element) -> AttributeValue) -> [AttributeValue]? {
            decode([Element].self, from: data)?.map(wrap)
        }
        return switch type {
        case .bool: decoded(Bool.self, AttributeValue.bool)
        case .int16, .int32, .int64: decoded(Int64.self, AttributeValue.int)
        case .double: decoded(Double.self, AttributeValue.double)
        case .float: decoded(Float.self, AttributeValue.float)
        case .decimal: decoded(Decimal.self, AttributeValue.decimal)
        case .string: decoded(String.self, AttributeValue.string)
        case .date: decoded(Date.self, AttributeValue.date)
        case .uuid: decoded(UUID.self, AttributeValue.uuid)
        case .url: decoded(URL.self, AttributeValue.url)
        case .data: nil
        }
    }
}

extension EntityDescription {
    /// Throws ``KuraError/typeMismatch(entity:key:expected:found:)`` when
    /// `value`, given for attribute `number` as bytes (``setValue(_:forKey:)``,
    /// a batch request), can't be what it holds: a JSON attribute's value
    /// must be one JSON document no deeper than the store reads, and a
    /// list's a JSON array of its elements' type (`["x", 1, null]` is not a
    /// `[String]`, nor `[1, 1e400]` an `[Int]`): read back, such a value
    /// would be the attribute's initial value, invisible to predicates.
    func checkJSON(_ value: AttributeValue, at number: Int) throws {
        guard case .data(let data) = value, jsonAttributeNumbers.contains(number) else { return }
        let attribute = attributes[number]
        func refuse(_ found: String) -> KuraError {
            KuraError.typeMismatch(entity: name, key: attribute.name, expected: attribute.type, found: found)
        }
        if let reason = JSONAttributeCoding.unstorableReason(value) { throw refuse("a value that can't be stored (\(reason))") }
        let isJSON = data.withUnsafeBytes { JSONScanner(bytes: $0).document() != nil }
        guard isJSON else { throw refuse("bytes that aren't one JSON value nested fewer than \(JSONScanner.maximumDepth) levels deep") }
        if let element = attribute.elementType, JSONAttributeCoding.elements(of: data, as: element) == nil {
            throw refuse("JSON that isn't an array of \(element.displayName) values")
        }
    }
}

extension AttributeValue {
    /// The bytes of a data value as text, for messages about a JSON attribute.
    var jsonText: String? {
        guard case .data(let data) = self else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// An array of attribute values is an attribute: its JSON array, in a data
/// attribute. An array of scalars (`[String]`, `[Int]`, `[Date]`, an
/// enumeration's raw values) is a *list*, whose elements predicates test
/// one by one: `ANY tags == 'swift'`, `'swift' IN tags`,
/// `tags CONTAINS 'swift'` (membership), `ALL tags BEGINSWITH 's'`, and
/// `#Predicate { $0.tags.contains("swift") }`. No index serves such a test
/// (a fetch by one reads every record of the entity); an index over a list
/// keys the whole list.
extension Array: AttributeValueConvertible where Element: AttributeValueConvertible & Codable {
    public static var attributeElementType: AttributeType? {
        Element.attributeEncoding == .plain && Element.attributeType != .data && !Element.isOptionalAttribute
            ? Element.attributeType : nil
    }
}

/// Marks the lists a `#Predicate` may search with `contains`.
protocol AttributeList {}

extension Array: AttributeList where Element: AttributeValueConvertible & Codable {}
