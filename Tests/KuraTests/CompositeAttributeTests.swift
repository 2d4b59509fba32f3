import Foundation
@testable import KuraCore
import Kura
import Testing

enum PlaceKind: String, Codable, Sendable, AttributeValueConvertible {
    case shop, office, stall
}

struct GeoPoint: Codable, Hashable, Sendable {
    var latitude: Double
    var longitude: Double
}

struct PostalAddress: Codable, Hashable, Sendable {
    var street: String
    var city: String
    var postcode: String?
    var kind: PlaceKind
    var location: GeoPoint
    var isVerified: Bool
    var isOpen: Bool
    var tags: [String]

    static let blank = PostalAddress(
        street: "", city: "", postcode: nil, kind: .shop, location: GeoPoint(latitude: 0, longitude: 0),
        isVerified: false, isOpen: true, tags: [])
}

final class Branch: ManagedObject {
    @Attribute var name: String = ""
    @Composite var address = PostalAddress.blank
    @Relationship var chain: Franchise?
    override class var indexes: [IndexDescription] { [.index("address.city")] }
}

final class Franchise: ManagedObject {
    @Attribute var name: String = ""
    @Relationship(inverse: \Branch.chain) var shops: Set<Branch>
}

/// Composite attributes (``Composite``): a `Codable` struct whose fields are
/// stored flattened, one attribute each, searchable, sortable and indexable.
@Suite struct CompositeAttributeTests {
    static let places: [(String, String, String, String?, PlaceKind, Double)] = [
        ("Ippodo", "Teramachi", "Kyoto", "604-0915", .shop, 35.01),
        ("Nishiki", "Nishikikoji", "Kyoto", nil, .stall, 35.005),
        ("Kuromon", "Nipponbashi", "Osaka", "542-0073", .stall, 34.66),
        ("Office", "Umeda", "Osaka", nil, .office, 34.70),
        ("Tsukiji", "Tsukiji", "Tokyo", "104-0045", .stall, 35.66),
    ]

    static func filled(function: String = #function) throws -> (EngineStore, PersistentContainer) {
        let store = try EngineStore(.underTest, function: function)
        let container = try store.open(ManagedObjectModel(Branch.self, Franchise.self))
        let context = container.newContext()
        let chain = Franchise(context: context)
        chain.name = "Kansai"
        for (name, street, city, postcode, kind, latitude) in places {
            let shop = Branch(context: context)
            shop.name = name
            shop.address = PostalAddress(
                street: street, city: city, postcode: postcode, kind: kind, location: GeoPoint(latitude: latitude, longitude: 135),
                isVerified: kind == .shop, isOpen: kind != .office, tags: [city.lowercased()])
            if city != "Tokyo" { shop.chain = chain }
        }
        try context.save()
        return (store, container)
    }

    /// Shops elsewhere, enough that an index search beats a scan.
    static func addShopsElsewhere(_ container: PersistentContainer) throws {
        let context = container.newContext()
        for number in 0..<300 {
            let shop = Branch(context: context)
            shop.name = "shop \(number)"
            shop.address.city = "Nara \(number)"
            shop.address.street = "Sanjo"
            shop.address.location.latitude = 34.68
        }
        try context.save()
    }

    static func request(_ format: String, _ arguments: Any?...) throws -> FetchRequest<Branch> {
        FetchRequest(predicate: try FetchPredicate(format: format, argumentArray: arguments))
    }

    static func names(_ context: ManagedObjectContext, _ request: FetchRequest<Branch>) throws -> [String] {
        try context.fetch(request).map(\.name).sorted()
    }

    @Test func eachFieldIsAnAttributeNamedAfterThePropertyAndTheField() throws {
        let entity = try EntityDescription(Branch.self)
        #expect(entity.attributes.map(\.name) == [
            "name", "address.street", "address.city", "address.postcode", "address.kind", "address.location.latitude",
            "address.location.longitude", "address.isVerified", "address.isOpen", "address.tags",
        ])
        #expect(entity.attribute(named: "address.postcode")?.isOptional == true)
        #expect(entity.attribute(named: "address.city")?.isOptional == false)
        #expect(entity.attribute(named: "address.kind")?.type == .string)
        #expect(entity.attribute(named: "address.kind")?.defaultValue == .string("shop"))
        #expect(entity.attribute(named: "address.isOpen")?.defaultValue == .bool(true))
        #expect(entity.attribute(named: "address.tags")?.elementType == .string)
        #expect(entity.indexes.map(\.name) == ["address_city"])
        #expect(entity.composites.map(\.name) == ["address"])
    }

    @Test func valuesSurviveAReopenAndOnlyChangedFieldsAreChanges() throws {
        let (store, container) = try Self.filled()
        let again = try store.reopen(container, ManagedObjectModel(Branch.self, Franchise.self))
        let context = again.newContext()
        let ippodo = try #require(try context.first(FetchRequest<Branch>(predicate: \.name == "Ippodo")))
        #expect(ippodo.address == PostalAddress(
            street: "Teramachi", city: "Kyoto", postcode: "604-0915", kind: .shop, location: GeoPoint(latitude: 35.01, longitude: 135),
            isVerified: true, isOpen: true, tags: ["kyoto"]))
        #expect(try ippodo.value(forKey: "address.city") == .string("Kyoto"))
        ippodo.address.postcode = nil
        ippodo.address.location.latitude = 35.02
        #expect(Set(ippodo.changedValues().keys) == ["address.postcode", "address.location.latitude"])
        try context.save()
        let fresh = again.newContext()
        let read = try #require(try fresh.first(FetchRequest<Branch>(predicate: \.name == "Ippodo")))
        #expect(read.address.postcode == nil && read.address.location.latitude == 35.02 && read.address.street == "Teramachi")
    }

    @Test func textPredicatesAndSortsReadFieldsAndUseTheirIndex() throws {
        let (store, container) = try Self.filled()
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let kyoto = try Self.request("address.city == %@", "Kyoto")
        #expect(try Self.names(context, kyoto) == ["Ippodo", "Nishiki"])
        try Self.addShopsElsewhere(container)
        #expect(try context.explain(kyoto).description.contains("USING INDEX address_city"))
        #expect(try Self.names(context, kyoto) == ["Ippodo", "Nishiki"])
        #expect(try Self.names(context, Self.request("address.location.latitude > 35 AND address.postcode != nil"))
            == ["Ippodo", "Tsukiji"])
        #expect(try Self.names(context, Self.request("address.kind == 'stall' AND ANY address.tags == 'osaka'")) == ["Kuromon"])
        #expect(try Self.names(context, Self.request("address.isOpen == NO")) == ["Office"])
        // Through a relationship, and a to-many's members.
        #expect(try Self.names(context, Self.request("chain.name == 'Kansai' AND address.city BEGINSWITH 'O'")) == ["Kuromon", "Office"])
        let chains = try context.fetch(FetchRequest<Franchise>(predicate: try FetchPredicate(format: "ANY shops.address.city == 'Osaka'")))
        #expect(chains.map(\.name) == ["Kansai"])
        let sorted = try context.fetch(FetchRequest<Branch>(sortBy: [FetchSortDescriptor(key: "address.location.latitude", ascending: false)]))
        #expect(sorted.map(\.name).prefix(4) == ["Tsukiji", "Ippodo", "Nishiki", "Office"] && sorted.last?.name == "Kuromon")
        // The composite itself is no value to compare.
        #expect(throws: KuraError.self) { try context.fetch(Self.request("address == nil")) }
    }

    @Test func typedPredicatesAndKeyPathsReachFields() throws {
        let (store, container) = try Self.filled()
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        #expect(PropertyKeyPathNames.path(of: \Branch.address.city) == "address.city")
        #expect(PropertyKeyPathNames.path(of: \Branch.address.location.longitude) == "address.location.longitude")
        #expect(PropertyKeyPathNames.path(of: \Branch.address.isOpen) == "address.isOpen")
        #expect(PropertyKeyPathNames.path(of: \Branch.address.isVerified) == "address.isVerified")
        #expect(PropertyKeyPathNames.path(of: \Branch.address.kind) == "address.kind")
        #expect(try Self.names(context, FetchRequest(predicate: \.address.city == "Osaka")) == ["Kuromon", "Office"])
        let city = "Kyoto"
        let kyoto = FetchRequest<Branch>(predicate: #Predicate { $0.address.city == city })
        #expect(try Self.names(context, kyoto) == ["Ippodo", "Nishiki"])
        try Self.addShopsElsewhere(container)
        #expect(try context.explain(kyoto).description.contains("USING INDEX address_city"))
        #expect(try Self.names(context, kyoto) == ["Ippodo", "Nishiki"])
        let north = FetchRequest<Branch>(predicate: #Predicate { $0.address.location.latitude > 35 && $0.address.isOpen })
        #expect(try Self.names(context, north) == ["Ippodo", "Nishiki", "Tsukiji"])
        let stall = PlaceKind.stall
        let stalls = FetchRequest<Branch>(predicate: #Predicate { $0.address.kind == stall && $0.address.tags.contains("osaka") })
        #expect(try Self.names(context, stalls) == ["Kuromon"])
        let chained = FetchRequest<Branch>(predicate: #Predicate { $0.chain?.name == "Kansai" && $0.address.postcode == nil })
        #expect(try Self.names(context, chained) == ["Nishiki", "Office"])
        let sorted = try context.fetch(FetchRequest<Branch>(sortBy: [FetchSortDescriptor(\Branch.address.street)]))
        #expect(sorted.map(\.name).first == "Kuromon" && sorted.map(\.name).last == "Office")
    }

    @Test func unsavedChangesAreSeenByFetches() throws {
        let (store, container) = try Self.filled()
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let tsukiji = try #require(try context.first(FetchRequest<Branch>(predicate: \.name == "Tsukiji")))
        tsukiji.address.city = "Kyoto"
        #expect(try Self.names(context, Self.request("address.city == 'Kyoto'")) == ["Ippodo", "Nishiki", "Tsukiji"])
        #expect(try context.count(for: Self.request("address.city == 'Tokyo'")) == 0)
    }

    @Test func aFieldAddedToTheStructIsAnAttributeAddedByAnInferredMigration() throws {
        let store = try EngineStore(.underTest)
        let first = try store.open(ManagedObjectModel(Branch.self, Franchise.self))
        let context = first.newContext()
        let shop = Branch(context: context)
        shop.name = "Ippodo"
        shop.address.city = "Kyoto"
        try context.save()
        let second = try store.reopen(first, ManagedObjectModel(BranchWithPhone.self, Franchise.self))
        defer { withExtendedLifetime(store) {} }
        let report = try #require(second.store.lastMigration)
        #expect(Set(report.differences.map(\.change)) == [.attributeAdded])
        let read = try #require(try second.newContext().first(FetchRequest<BranchWithPhone>()))
        #expect(read.address.city == "Kyoto" && read.address.phone == nil && read.address.floor == 1)
        #expect(try second.newContext().count(for: FetchRequest<BranchWithPhone>(predicate: try FetchPredicate(format: "address.floor == 1"))) == 1)
    }

    @Test func aPathToAValueNestedInACompositeIsRefusedNamingItsFields() throws {
        let entity = try EntityDescription(Branch.self)
        let model = try ManagedObjectModel(entities: [entity, try EntityDescription(Franchise.self)])
        let request = FetchRequest(entityName: "Branch", predicate: try FetchPredicate(format: "address.location == nil"))
        let store = try TestStore()
        let container = try store.open(model)
        #expect {
            try container.newContext().fetch(request)
        } throws: { error in
            let text = "\(error)"
            return text.contains("address.location.latitude") && text.contains("address.location.longitude")
                && !text.contains("address.street") && text.contains("nested")
        }
        #expect {
            try container.newContext().fetch(FetchRequest(entityName: "Branch", predicate: try FetchPredicate(format: "address.nowhere == 1")))
        } throws: { error in
            "\(error)".contains("no field nowhere")
        }
    }

    @Test func aCompositeThatCantBeFlattenedIsAnInvalidModel() throws {
        #expect {
            try EntityDescription(BranchWithList.self)
        } throws: { error in
            "\(error)".contains("BranchWithList.hours") && "\(error)".contains("AttributeValueConvertible")
        }
        #expect {
            try EntityDescription(BranchWithMissingNested.self)
        } throws: { error in
            "\(error)".contains("location") && "\(error)".contains("nil in the initial value")
        }
        #expect(throws: KuraError.self) {
            try EntityDescription(name: "Bad", attributes: [
                AttributeDescription(name: "address", type: .string), AttributeDescription(name: "address.city", type: .string),
            ])
        }
        #expect(throws: KuraError.self) {
            try EntityDescription(name: "Bad", attributes: [AttributeDescription(name: "address.", type: .string)])
        }
    }

    @Test func aPlainEntityDeclaresFieldsByName() throws {
        let entity = try EntityDescription(name: "Venue", attributes: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "place.city", type: .string, defaultValue: .string("")),
            AttributeDescription(name: "place.floor", type: .int64, isOptional: true),
        ], indexes: [.index("place.city")])
        #expect(entity.composites.map(\.name) == ["place"])
        let store = try EngineStore(.underTest)
        let container = try store.open(ManagedObjectModel(entities: [entity]))
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let venue = try context.insertNewObject(forEntityName: "Venue")
        try venue.setValue("hall", forKey: "title")
        try venue.setValue("Nara", forKey: "place.city")
        try context.save()
        let found = try context.fetch(FetchRequest(entityName: "Venue", predicate: try FetchPredicate(format: "place.city == 'Nara'")))
        #expect(found.count == 1)
    }
}

struct PostalAddressWithPhone: Codable, Hashable {
    var street: String
    var city: String
    var postcode: String?
    var kind: PlaceKind
    var location: GeoPoint
    var isVerified: Bool
    var isOpen: Bool
    var tags: [String]
    var phone: String?
    var floor: Int
}

final class BranchWithPhone: ManagedObject {
    override class var entityName: String { "Branch" }
    @Attribute var name: String = ""
    @Composite var address = PostalAddressWithPhone(
        street: "", city: "", postcode: nil, kind: .shop, location: GeoPoint(latitude: 0, longitude: 0),
        isVerified: false, isOpen: true, tags: [], phone: nil, floor: 1)
    @Relationship var chain: Franchise?
    override class var indexes: [IndexDescription] { [.index("address.city")] }
}

struct Timetable: Codable, Hashable {
    var day: Int
    var hours: [GeoPoint]
}

final class BranchWithList: ManagedObject {
    @Composite var hours = Timetable(day: 0, hours: [])
}

struct MaybeLocated: Codable, Hashable {
    var name: String
    var location: GeoPoint?
}

final class BranchWithMissingNested: ManagedObject {
    @Composite var place = MaybeLocated(name: "", location: nil)
}
