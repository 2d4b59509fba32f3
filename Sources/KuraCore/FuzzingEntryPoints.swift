import Foundation

/// The decoders and the predicate compiler, reachable without a store, for
/// the fuzz harnesses (`kura-fuzz` and the fuzz tests).
///
/// Not API: import with `@_spi(Fuzzing) import Kura`. Each entry point runs
/// the same code a store runs on bytes it reads from its file.
@_spi(Fuzzing) public enum FuzzingEntryPoints {
    /// A record's values and its to-ones' references.
    public struct DecodedRecord: Equatable, CustomStringConvertible {
        public var values: [AttributeValue?]
        public var references: [UInt64?]
        public var description: String { "\(values) \(references)" }
    }

    /// Checks a whole record of `entity` the way ``PersistentStore/check()``
    /// does, then decodes every value and reference.
    public static func decodeRecord(_ bytes: [UInt8], of entity: EntityDescription) throws -> DecodedRecord {
        try bytes.withUnsafeBytes { raw in
            let view = try RecordView(validating: raw, entity: entity)
            return DecodedRecord(values: (0..<entity.attributes.count).map { view.value($0, of: entity) },
                                 references: entity.links.compactMap(\.field).map { view.reference($0) })
        }
    }

    /// Reads a record of `entity` the way a fetch does: the header first,
    /// then each value checked just before it is decoded.
    public static func decodeRecordLazily(_ bytes: [UInt8], of entity: EntityDescription) throws -> DecodedRecord {
        try bytes.withUnsafeBytes { raw in
            let view = try RecordView(checkingHeader: raw, entity: entity)
            let values = try (0..<entity.attributes.count).map { number in
                try view.checkValues([number], of: entity)
                return view.value(number, of: entity)
            }
            let references = try entity.links.compactMap(\.field).map { field in
                if field < view.count { try view.checkField(field, of: entity.layout) }
                return view.reference(field)
            }
            return DecodedRecord(values: values, references: references)
        }
    }

    /// The bytes a store writes for `values` (one per attribute of `entity`,
    /// in order) and `references` (one per to-one, in order). Fewer values
    /// than attributes, and no references, make a record written before the
    /// later attributes existed.
    public static func encodeRecord(
        _ values: [AttributeValue?], references: [UInt64?] = [], rowVersion: UInt64 = 1, of entity: EntityDescription
    ) -> [UInt8] {
        var layout = entity.layout
        if values.count < entity.attributes.count {
            precondition(references.isEmpty, "a record older than some attributes predates the to-ones too")
            layout = RecordLayout(identityFor: Array(entity.attributes.prefix(values.count)), relationships: [],
                                  indexes: [], entityName: entity.name)
        }
        return RecordFormat.encode(ContiguousArray(values), references: references, rowVersion: rowVersion, layout: layout)
    }

    /// Rebuilds a model from the bytes a store keeps, as opening a store does.
    public static func decodeModel(_ bytes: [UInt8]) throws -> ManagedObjectModel {
        try ManagedObjectModel.decode(bytes)
    }

    /// The bytes a store keeps for `model`.
    public static func encodeModel(_ model: ManagedObjectModel) throws -> [UInt8] {
        try model.encoded()
    }

    /// Decodes a `Codable` attribute's JSON as a fetch does: Kura's own
    /// reader (``JSONSpanDecoder``), without falling back to `JSONDecoder`.
    public static func decodeJSON<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try bytes.withUnsafeBytes { try JSONSpanDecoder.decode(type, from: $0) }
    }

    /// Decodes with `JSONDecoder` set as Kura sets it for JSON attributes:
    /// what ``decodeJSON(_:from:)`` must agree with.
    public static func decodeJSONWithFoundation<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONAttributeCoding.foundationDecoder.decode(type, from: Data(bytes))
    }

    /// The words the predicate parser reads as keywords.
    public static var predicateKeywords: Set<String> { PredicateParser.keywords }

    /// Compiles `predicate` for `entity` and evaluates it on `values`, as a
    /// fetch filters a record.
    public static func evaluate(_ predicate: FetchPredicate, on values: [AttributeValue?], of entity: EntityDescription) throws -> Bool {
        try predicate.compiled(for: entity).evaluate(on: ValuesSource(values: values))
    }

    private struct ValuesSource: AttributeSource {
        let values: [AttributeValue?]

        func attributeValue(_ number: Int) -> AttributeValue? { values[number] }
    }
}
