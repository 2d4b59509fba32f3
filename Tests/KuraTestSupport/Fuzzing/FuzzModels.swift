import Foundation
import Kura

/// The entity and sample values the fuzz targets decode and evaluate
/// against: one optional attribute of every type, and relationships (two
/// to-ones, whose references records hold after the attributes).
enum FuzzModels {
    static let attributeNames = [
        "flag", "small", "medium", "count", "ratio", "weight", "price", "name", "date", "id", "blob", "link",
    ]

    static let relationshipNames = ["parent", "children", "owner"]

    static let model: ManagedObjectModel = try! ManagedObjectModel(entities: [makeThing()])

    /// A new `Thing` entity, for a model of its own (an entity with
    /// relationships belongs to one model).
    static func makeThing() -> EntityDescription {
        let attributes = zip(attributeNames, AttributeType.allCases).map { name, type in
            AttributeDescription(name: name, type: type, isOptional: true)
        }
        return try! EntityDescription(name: "Thing", attributes: attributes, relationships: [
            .toOne("parent", destination: "Thing", inverse: "children"),
            .toMany("children", destination: "Thing"),
            .toOne("owner", destination: "Thing"),
        ], indexes: [.unique("id"), .index("name", "count")])
    }

    static let thing: EntityDescription = model.entity(named: "Thing")!

    /// A reference for each to-one of `thing`, for row `row`.
    static func references(row: Int) -> [UInt64?] {
        [row % 3 == 0 ? nil : UInt64(row + 1), row % 2 == 0 ? UInt64.max : nil]
    }

    /// Rows of values for `thing`: every type, edge values, and nils.
    static func rows(count: Int, seed: UInt64) -> [[AttributeValue?]] {
        var generator = SplitMix64(seed: seed)
        let strings = ["", "Kura", "蔵", "e\u{301}", "a%b_c", "line\nbreak", String(repeating: "x", count: 40)]
        let doubles: [Double] = [0, -0.0, 1.5, -2.25, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, 1e-300]
        return (0..<count).map { row in
            AttributeType.allCases.map { type -> AttributeValue? in
                if row > 0 && Int.random(in: 0..<5, using: &generator) == 0 { return nil }
                let number = Int64.random(in: -1000...1000, using: &generator)
                switch type {
                case .bool: return .bool(Bool.random(using: &generator))
                case .int16: return .int(Int64(Int16.random(in: .min ... .max, using: &generator)))
                case .int32: return .int(number * 100_000)
                case .int64: return .int(row == 1 ? .min : (row == 2 ? .max : number))
                case .double: return .double(doubles.randomElement(using: &generator)!)
                case .float: return .float(Float(number) / 8)
                case .decimal: return .decimal(Decimal(number) / 100)
                case .string: return .string(strings.randomElement(using: &generator)!)
                case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(number) * 3600))
                case .uuid: return .uuid(UUID(uuidString: String(format: "%08X-0000-4000-8000-%012X", row, number & 0xFFFF))!)
                case .data: return .data(Data((0..<Int.random(in: 0...8, using: &generator)).map { UInt8($0 * 31 & 0xFF) }))
                case .url: return .url(URL(string: "https://example.com/\(row)?q=\(number)")!)
                }
            }
        }
    }
}
