import Foundation

/// Finds the field of a composite value a key path reads (`\Address.city`,
/// or `\Shop.address.city` from an object), as ``PropertyKeyPathNames`` finds
/// properties: from values whose fields each hold a placeholder of their
/// own, by which field the key path gives back.
enum CompositeProbe {
    /// The path of the field of `type` (a composite value's type) that
    /// `keyPath` reads, or `nil` when it reads none (a computed property) or
    /// `type` was never seen as a composite.
    static func fieldPath(of keyPath: AnyKeyPath, in type: Any.Type) -> String? {
        guard let fields = CompositeFields.registered(type), let codable = type as? any Codable.Type else { return nil }
        let table = CompositeFieldTable(fields)
        var candidates: Set<String>?
        for variant in 0..<PropertyProbe.variants {
            let placeholders = placeholders(for: fields.map(\.type), variant: variant)
            guard let (value, given) = probe(codable, placeholders, table), let result = value[keyPath: keyPath] else { return nil }
            let found = paths(giving: AnyOptional.unwrapped(result), among: given)
            candidates = candidates.map { $0.intersection(found) } ?? found
        }
        guard let candidates, candidates.count == 1 else { return nil }
        return candidates.first
    }

    /// A value of `type` whose fields hold `values`, and its fields as it
    /// encodes them (a field whose type has no value for the placeholder
    /// holds its initial value instead).
    private static func probe(
        _ type: any Codable.Type, _ values: [AttributeValue?], _ table: CompositeFieldTable
    ) -> (Any, [CompositeField])? {
        func made<Value: Codable>(_: Value.Type) -> (Any, [CompositeField])? {
            guard let value = try? CompositeDecoder.decode(Value.self, from: values, table: table),
                  let fields = try? CompositeFields.fields(of: value, discovering: false)
            else { return nil }
            return (value, fields)
        }
        return made(type)
    }

    /// The paths of the fields among `fields` that hold `value`, or of the
    /// nested values whose fields hold what `value`'s fields hold. A key
    /// path's field is the one path every variant of the probe gives.
    static func paths(giving value: Any?, among fields: [CompositeField]) -> Set<String> {
        if let convertible = value as? any AttributeValueConvertible {
            let given = convertible.attributeValue
            return Set(fields.filter { $0.value == given }.map(\.path))
        }
        guard let nested = value as? any Encodable, let nestedFields = try? CompositeFields.fields(of: nested, discovering: false) else {
            return []
        }
        let byPath = Dictionary(fields.map { ($0.path, $0.value) }, uniquingKeysWith: { first, _ in first })
        return CompositeFieldTable(fields).nestedPaths.filter { prefix in
            nestedFields.allSatisfy { field in byPath["\(prefix).\(field.path)"].map { $0 == field.value } ?? false }
        }
    }

    /// Placeholders for fields of `types`, in order, each unlike the others
    /// of its type: strings, numbers, dates… carry their position; the `Bool`
    /// fields' count in binary spreads over the variants.
    static func placeholders(for types: [AttributeType], variant: Int) -> [AttributeValue] {
        var bools = 0
        return types.enumerated().map { position, type in
            let tag = position + 1
            switch type {
            case .bool:
                defer { bools += 1 }
                return .bool((bools >> variant) & 1 == 1)
            case .int16, .int32, .int64: return .int(Int64(tag * 8 + variant))
            case .double: return .double(Double(tag) + Double(variant) / 8)
            case .float: return .float(Float(tag) + Float(variant) / 8)
            case .decimal: return .decimal(Decimal(tag) + Decimal(variant) / 8)
            case .string: return .string("Kura probe \(tag).\(variant)")
            case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(tag * 8 + variant)))
            case .uuid:
                return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: tag), UInt8(variant))))
            case .data: return .data(Data([UInt8(truncatingIfNeeded: tag), UInt8(variant)]))
            case .url: return .url(URL(string: "https://probe.invalid/\(tag)/\(variant)")!)
            }
        }
    }
}
