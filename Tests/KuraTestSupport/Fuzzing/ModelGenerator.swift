import Foundation
import Kura

/// Random stored-model documents: the right shape with names, types,
/// defaults, indexes and templates that are often wrong in the ways a
/// damaged or hand-edited store would be (duplicates, unknown names, bad
/// defaults, templates on missing entities or with bad predicates).
struct ModelGenerator {
    var generator: SplitMix64

    private static let names = ["Thing", "Note", "Thing", "", "a b", "_x", "NOT", "蔵", "name", "count", "id", "x"]
    private static let types = AttributeType.allCases.map(\.rawValue) + ["bogus", ""]
    private static let defaults = ["", "0", "-1", "1.5", "true", "maybe", "nan", "inf", "AQID", "not base64",
                                   "00000000-0000-4000-8000-000000000000", "https://example.com", "9999999999999999999999"]
    private static let predicates = ["name == $name", "count > 3", "x == 1", "name BEGINSWITH[c] 'a'", "count BETWEEN $range",
                                     "(", "id == $id AND count == $count", "TRUEPREDICATE", "name MATCHES '('", "count == 'text'"]

    private mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &generator)! }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }

    private mutating func some<T>(_ range: ClosedRange<Int>, _ make: (inout ModelGenerator) -> T) -> [T] {
        (0..<Int.random(in: range, using: &generator)).map { _ in make(&self) }
    }

    mutating func document() -> [UInt8] {
        let entities = some(0...3) { $0.entity() }
        var document: [String: Any] = ["entities": entities]
        if chance(70) { document["templates"] = some(0...3) { $0.template(entities) } }
        return Array((try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])) ?? Data())
    }

    private mutating func entity() -> [String: Any] {
        let attributes: [[String: Any]] = some(0...5) { generator in
            var attribute: [String: Any] = [
                "name": generator.pick(Self.names), "type": generator.pick(Self.types), "optional": generator.chance(50),
            ]
            if generator.chance(30) {
                attribute["defaultValue"] = ["type": generator.pick(Self.types), "text": generator.pick(Self.defaults)]
            }
            return attribute
        }
        let attributeNames = attributes.map { $0["name"] as! String }
        let indexes: [[String: Any]] = some(0...2) { generator in
            [
                "name": generator.pick(Self.names),
                "attributes": generator.some(0...2) { $0.chance(80) && !attributeNames.isEmpty ? $0.pick(attributeNames) : $0.pick(Self.names) },
                "unique": generator.chance(50),
            ]
        }
        var entity: [String: Any] = ["name": pick(Self.names), "attributes": attributes, "indexes": indexes]
        if chance(50) {
            entity["relationships"] = some(0...3) { generator -> [String: Any] in
                var relationship: [String: Any] = [
                    "name": generator.pick(Self.names), "destination": generator.pick(Self.names),
                    "toMany": generator.chance(50), "ordered": generator.chance(20), "optional": generator.chance(70),
                    "minimumCount": generator.pick([0, 0, 1, -1, 3]),
                    "deleteRule": generator.pick(["nullify", "cascade", "deny", "noAction", "bogus"]),
                ]
                if generator.chance(60) { relationship["inverse"] = generator.pick(Self.names) }
                if generator.chance(20) { relationship["maximumCount"] = generator.pick([0, 1, 2, 5]) }
                return relationship
            }
        }
        return entity
    }

    private mutating func template(_ entities: [[String: Any]]) -> [String: Any] {
        let entity = chance(85) && !entities.isEmpty ? pick(entities)["name"] as! String : pick(Self.names)
        var template: [String: Any] = [
            "name": pick(Self.names), "entity": entity,
            "sortDescriptors": some(0...2) { generator in
                ["key": generator.pick(Self.names), "ascending": generator.chance(50),
                 "comparison": generator.pick(FetchSortDescriptor.Comparison.allCases.map(\.rawValue) + ["bogus"])]
            },
            "fetchLimit": pick([0, 1, 10, -1]), "fetchOffset": pick([0, 5, -3]),
            "resultType": pick(["managedObject", "managedObjectID", "dictionary", "count", "bogus"]),
            "propertiesToFetch": some(0...2) { $0.pick(Self.names) }, "includesPendingChanges": chance(50),
        ]
        if chance(80) { template["predicate"] = pick(Self.predicates) }
        return template
    }
}
