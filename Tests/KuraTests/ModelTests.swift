import Foundation
import Kura
import KuraTestSupport
import Testing

final class Gadget: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var nickname: String?
    @Attribute(.indexed) var rank: Int16 = 3
    @Attribute var price: Decimal = 0
    override class var entityName: String { "Device" }
    override class var indexes: [IndexDescription] { [.unique("name", "rank")] }
}

final class NoAttributes: ManagedObject {}

/// A class of a class: each level's attributes, and their initial values.
class Vehicle: ManagedObject {
    @Attribute var wheels: Int = 4
    @Attribute var maker: String = "Acme"
    @Attribute var note: String?
}

final class Truck: Vehicle {
    @Attribute var load: Double = 2.5
    @Attribute var plate: String = "K-1"
}

/// Initializes an attribute a second time in its initializer.
final class Reinitialized: ManagedObject {
    @Attribute var name: String = "first"
    required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        super.init(entity: entity, insertInto: context)
        _name = Attribute(wrappedValue: "second")
    }
}

@Suite struct ModelTests {
    @Test func anEntityIsBuiltFromAClassWithEachAttributeNamedOnce() throws {
        let entity = try EntityDescription(Gadget.self)
        #expect(entity.name == "Device")
        #expect(entity.managedObjectClass == Gadget.self)
        #expect(entity.attributes == [
            AttributeDescription(name: "name", type: .string, defaultValue: .string("")),
            AttributeDescription(name: "nickname", type: .string, isOptional: true),
            AttributeDescription(name: "rank", type: .int16, defaultValue: .int(3)),
            AttributeDescription(name: "price", type: .decimal, defaultValue: .decimal(0)),
        ])
        #expect(entity.indexes == [.index("rank"), IndexDescription(["name", "rank"], isUnique: true)])
        #expect(entity.indexes[1].name == "name_rank")
    }

    /// The initial values reach the model from the prototype the class is
    /// reflected on, each to its own attribute, superclass attributes first;
    /// objects keep none of them (an attribute's storage is one byte).
    @Test func initialValuesOfEveryLevelOfAClassReachTheirAttributes() throws {
        let entity = try EntityDescription(Truck.self)
        #expect(entity.attributes.map(\.name) == ["wheels", "maker", "note", "load", "plate"])
        #expect(entity.attributes.map(\.defaultValue) == [.int(4), .string("Acme"), nil, .double(2.5), .string("K-1")])
        #expect(try EntityDescription(Gadget.self).attributes.map(\.defaultValue) == [.string(""), nil, .int(3), .decimal(0)])
        #expect(MemoryLayout<Attribute<String>>.size == 1)
        let store = try TestStore()
        let context = try store.open(ManagedObjectModel(Truck.self)).newContext()
        let truck = Truck(context: context)
        #expect(truck.wheels == 4 && truck.maker == "Acme" && truck.note == nil && truck.load == 2.5 && truck.plate == "K-1")
        #expect(throws: KuraError.invalidModel(
            "Reinitialized initialized its @Attribute properties 2 times for 1 declared; "
                + "give attributes their initial values in their declarations, not in an initializer")) {
            try EntityDescription(Reinitialized.self)
        }
    }

    @Test func invalidModelsAreRefusedWithTheReason() throws {
        #expect(throws: KuraError.invalidModel("NoAttributes declares no @Attribute or @Relationship properties")) {
            try EntityDescription(NoAttributes.self)
        }
        #expect(throws: KuraError.invalidModel("index E.nope names unknown attribute 'nope'")) {
            try EntityDescription(name: "E", attributes: [AttributeDescription(name: "a", type: .int64)], indexes: [.index("nope")])
        }
        #expect(throws: KuraError.invalidModel("entity E has two attributes named 'a'")) {
            try EntityDescription(name: "E", attributes: [AttributeDescription(name: "a", type: .int64), AttributeDescription(name: "a", type: .string)])
        }
        #expect(throws: KuraError.invalidModel("the default of E.a is String, not Int64")) {
            try EntityDescription(name: "E", attributes: [AttributeDescription(name: "a", type: .int64, defaultValue: .string("x"))])
        }
        #expect(throws: KuraError.self) {
            try EntityDescription(name: "has space", attributes: [])
        }
        let entity = try EntityDescription(name: "E", attributes: [AttributeDescription(name: "a", type: .int64)])
        #expect(throws: KuraError.invalidModel("two entities are named E")) {
            try ManagedObjectModel(entities: [entity, try EntityDescription(name: "E", attributes: [])])
        }
    }

    @Test func theFingerprintFollowsTheSchemaOnly() throws {
        let first = try ManagedObjectModel(Gadget.self)
        let second = try ManagedObjectModel(Gadget.self)
        #expect(first.fingerprint == second.fingerprint)
        #expect(first.fingerprint.count == 16)
        let plain = try ManagedObjectModel(entities: [
            EntityDescription(name: "Device", attributes: try EntityDescription(Gadget.self).attributes,
                              indexes: [.index("rank"), IndexDescription(["name", "rank"], isUnique: true)]),
        ])
        #expect(plain.fingerprint == first.fingerprint, "a plain entity with the same schema matches")
        let other = try ManagedObjectModel(entities: [
            EntityDescription(name: "Device", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
        #expect(other.fingerprint != first.fingerprint)
    }

    @Test func aModelInUseIsFrozen() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel.news()
        #expect(!model.isFrozen)
        _ = try store.open(model)
        #expect(model.isFrozen)
    }
}
