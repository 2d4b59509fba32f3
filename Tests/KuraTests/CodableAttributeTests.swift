import Foundation
import Kura
import Testing

struct Address: Codable, Hashable, Sendable, AttributeValueConvertible {
    var street: String
    var city: String
    var location: [Double]?
}

enum Delivery: Codable, Hashable, Sendable, AttributeValueConvertible {
    case pickup
    case courier(company: String, days: Int)
}

struct OpeningHours: Codable, Hashable, Sendable, AttributeValueConvertible {
    var byDay: [String: String]
}

final class Shop: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var address: Address?
    @Attribute var delivery: Delivery = .pickup
    @Attribute var hours: OpeningHours = OpeningHours(byDay: [:])
}

/// A later version of `Address`: one more field, optional, so stored values still decode.
struct AddressWithCountry: Codable, Hashable, Sendable, AttributeValueConvertible {
    var street: String
    var city: String
    var location: [Double]?
    var country: String?
}

final class ShopWithCountry: ManagedObject {
    override class var entityName: String { "Shop" }
    @Attribute var name: String = ""
    @Attribute var address: AddressWithCountry?
    @Attribute var delivery: Delivery = .pickup
    @Attribute var hours: OpeningHours = OpeningHours(byDay: [:])
}

/// `Codable` values as attributes: stored as JSON, compared by equality.
@Suite struct CodableAttributeTests {
    static let kyoto = Address(street: "Shijō-dōri 1", city: "Kyoto", location: [35.0037, 135.7681])

    @Test func codableValuesAreStoredAsJSONAndReadBack() throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(Shop.self)
        let attributes = try #require(model.entity(named: "Shop")).attributes
        #expect(attributes.map(\.type) == [.string, .data, .data, .data])
        #expect(attributes.map(\.encoding) == [.plain, .json, .json, .json])
        let container = try store.open(model)
        let context = container.newContext()
        let shop = Shop(context: context)
        #expect(shop.address == nil && shop.delivery == .pickup && shop.hours.byDay.isEmpty)
        shop.name = "Kura Books"
        shop.address = Self.kyoto
        shop.delivery = .courier(company: "Yamato", days: 2)
        shop.hours = OpeningHours(byDay: ["mon": "9-18", "sun": "closed"])
        try context.save()

        let reader = container.newContext()
        let read = try reader.existingObject(with: shop.objectID) as! Shop
        #expect(read.address == Self.kyoto)
        #expect(read.delivery == .courier(company: "Yamato", days: 2))
        #expect(read.hours.byDay == ["mon": "9-18", "sun": "closed"])
        // The documented encoding: JSON, keys sorted.
        let stored = try #require(try read.value(forKey: "hours"))
        #expect(stored == .data(Data(#"{"byDay":{"mon":"9-18","sun":"closed"}}"#.utf8)))
        read.address = nil
        try reader.save()
        #expect(try container.newContext().fetch(FetchRequest<Shop>())[0].address == nil)
    }

    @Test func predicatesCompareCodableValuesByEquality() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Shop.self))
        let context = container.newContext()
        for (name, city) in [("one", "Kyoto"), ("two", "Osaka"), ("three", "Kyoto")] {
            let shop = Shop(context: context)
            shop.name = name
            shop.address = city == "Kyoto" ? Self.kyoto : Address(street: "Midōsuji 2", city: city)
        }
        Shop(context: context).name = "none"
        try context.save()

        let byKeyPath = try context.fetch(FetchRequest<Shop>(predicate: \.address == Self.kyoto))
        #expect(byKeyPath.map(\.name).sorted() == ["one", "three"])
        let kyoto = Optional(Self.kyoto)
        let byFoundation = try context.fetch(FetchRequest<Shop>(predicate: #Predicate { $0.address == kyoto }))
        #expect(byFoundation.map(\.name).sorted() == ["one", "three"])
        #expect(try context.count(for: FetchRequest<Shop>(predicate: try FetchPredicate(format: "address == nil"))) == 1)
        #expect(try context.count(for: FetchRequest<Shop>(predicate: \.address != Self.kyoto)) == 2)
    }

    @Test func aFieldAddedToTheTypeReadsStoredValuesAndOneThatDoesNotDecodeReadsAsTheInitialValue() throws {
        let store = try TestStore(engine: .lmdb)
        let older = try PersistentContainer(path: store.path, model: ManagedObjectModel(Shop.self))
        let context = older.newContext()
        let shop = Shop(context: context)
        shop.address = Self.kyoto
        shop.delivery = .courier(company: "Sagawa", days: 1)
        try context.save()
        older.close()

        // A newer build with one more (optional) field reads the stored values.
        let newer = try PersistentContainer(path: store.path, model: ManagedObjectModel(ShopWithCountry.self))
        let newerContext = newer.newContext()
        let read = try #require(try newerContext.fetch(FetchRequest<ShopWithCountry>()).first)
        #expect(read.address == AddressWithCountry(street: Self.kyoto.street, city: "Kyoto", location: Self.kyoto.location, country: nil))
        read.address?.country = "Japan"
        // A payload the type has no case for (a newer build's): the initial value, and the error by name.
        try read.setValue(.data(Data(#"{"drone":{"range":5}}"#.utf8)), forKey: "delivery")
        try newerContext.save()
        #expect(read.delivery == .pickup)
        let error = try #require(throws: KuraError.self) { try read.value(forKey: "delivery", as: Delivery.self) }
        #expect(error.code == .typeMismatch && "\(error)".contains("drone"))
        newer.close()

        // The older build decodes the newer value too: JSON keys it doesn't know are left out.
        let again = try PersistentContainer(path: store.path, model: ManagedObjectModel(Shop.self))
        let reread = try #require(try again.newContext().fetch(FetchRequest<Shop>()).first)
        #expect(reread.address == Self.kyoto)
    }

    @Test func theStoredModelSaysWhichAttributesHoldJSON() throws {
        let store = try TestStore(engine: .lmdb)
        let container = try PersistentContainer(path: store.path, model: ManagedObjectModel(Shop.self))
        container.close()
        // Opened without the app's classes, as `kura` does.
        var options = StoreOptions()
        options.isReadOnly = true
        let stored = try PersistentContainer(path: store.path, options: options)
        let attributes = try #require(stored.model.entity(named: "Shop")).attributes
        #expect(attributes.map(\.encoding) == [.plain, .json, .json, .json])
        #expect(attributes[1].description == "address: JSON?")
    }
}

/// A value nested as deep as a user likes: a list of lists.
indirect enum Nesting: Codable, Hashable, Sendable, AttributeValueConvertible {
    case leaf(Int)
    case list([Nesting])

    /// A number inside `levels` arrays.
    static func nested(_ levels: Int) -> Nesting {
        var value = Nesting.leaf(levels)
        for _ in 0..<levels { value = .list([value]) }
        return value
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .leaf(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .list(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        }
    }

    init(from decoder: any Decoder) throws {
        if let number = try? decoder.singleValueContainer().decode(Int.self) {
            self = .leaf(number)
            return
        }
        var container = try decoder.unkeyedContainer()
        var items: [Nesting] = []
        while !container.isAtEnd { items.append(try container.decode(Nesting.self)) }
        self = .list(items)
    }
}

final class Tree: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var shape: Nesting?
}

/// A `Codable` value too deep to store fails its save (a setter can't throw),
/// naming the attribute, and the context keeps its changes.
@Suite struct CodableDepthTests {
    @Test(arguments: [501, 600, 10_000])
    func aValueNestedTooDeepFailsTheSaveNamingTheAttribute(levels: Int) throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Tree.self))
        let context = container.newContext()
        let tree = Tree(context: context)
        tree.name = "deep"
        tree.shape = Nesting.nested(levels)
        #expect {
            try context.save()
        } throws: { error in
            guard let error = error as? KuraError, error.code == .validationFailed,
                  let failure = error.validationFailures.first else { return false }
            return failure.key == "shape" && "\(failure)".contains("500 levels")
        }
        #expect(context.hasChanges && context.insertedObjects.count == 1)
        #expect(try container.newContext().count(for: FetchRequest<Tree>()) == 0, "nothing saved")
        // Fixed, the same context saves.
        tree.shape = Nesting.nested(3)
        try context.save()
        #expect(try container.newContext().fetch(FetchRequest<Tree>()).first?.shape == Nesting.nested(3))
    }

    @Test func aValueAtTheLimitIsStoredAndReadBack() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Tree.self))
        let context = container.newContext()
        let tree = Tree(context: context)
        tree.shape = Nesting.nested(500)
        try context.save()
        #expect(try container.newContext().fetch(FetchRequest<Tree>()).first?.shape == Nesting.nested(500))
    }

    @Test func aStoredObjectChangedToATooDeepValueKeepsItsStoredValue() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Tree.self))
        let context = container.newContext()
        Tree(context: context).shape = .leaf(1)
        try context.save()
        let editor = container.newContext()
        let tree = try #require(try editor.fetch(FetchRequest<Tree>()).first)
        tree.shape = Nesting.nested(700)
        #expect(throws: KuraError.self) { try editor.save() }
        #expect(tree.hasChanges)
        #expect(try container.newContext().fetch(FetchRequest<Tree>()).first?.shape == .leaf(1))
    }
}

struct Reading2D: Codable, Hashable, Sendable, AttributeValueConvertible {
    var x: Double
    var y: Float
}

final class Probe: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var point: Reading2D?
}

/// A predicate on a `Codable` attribute agrees with the type's synthesized `==`.
@Suite struct CodableEqualityTests {
    @Test func minusZeroEqualsZeroAndAValueHoldingNaNEqualsNothing() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Probe.self))
        let context = container.newContext()
        let points = [Reading2D(x: 0, y: 0), Reading2D(x: -0.0, y: -0.0), Reading2D(x: .nan, y: 1), Reading2D(x: 1, y: .nan),
                      Reading2D(x: -0.5, y: 2), Reading2D(x: .infinity, y: -.infinity)]
        for (number, point) in points.enumerated() {
            let probe = Probe(context: context)
            probe.name = "p\(number)"
            probe.point = point
        }
        let constants = points + [Reading2D(x: -0.0, y: 0), Reading2D(x: 0, y: -0.0)]
        func check(_ context: ManagedObjectContext, _ when: String) throws {
            let all = try context.fetch(FetchRequest<Probe>())
            for constant in constants {
                let equal = Set(try context.fetch(FetchRequest<Probe>(predicate: \.point == constant)).map(\.name))
                let expected = Set(all.filter { $0.point == constant }.map(\.name))
                #expect(equal == expected, "\(when): == \(constant): \(equal.sorted()) / \(expected.sorted())")
                let macro = Set(try context.fetch(FetchRequest<Probe>(predicate: #Predicate { $0.point == constant })).map(\.name))
                #expect(macro == expected, "\(when): #Predicate == \(constant)")
                let unequal = Set(try context.fetch(FetchRequest<Probe>(predicate: #Predicate { $0.point != constant })).map(\.name))
                let expectedUnequal = Set(all.filter { $0.point != constant }.map(\.name))
                #expect(unequal == expectedUnequal, "\(when): != \(constant): \(unequal.sorted()) / \(expectedUnequal.sorted())")
            }
        }
        try check(context, "unsaved")
        try context.save()
        try check(container.newContext(), "stored")
        // -0.0 reads back as 0.0 (they are ==).
        let read = try container.newContext().fetch(FetchRequest<Probe>(predicate: \.name == "p1"))[0].point
        #expect(read == Reading2D(x: 0, y: 0) && read?.x.sign == .plus)
    }
}
