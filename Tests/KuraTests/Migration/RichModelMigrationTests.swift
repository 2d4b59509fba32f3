import Foundation
import Kura
@testable import KuraCore
import Testing

enum ListingState: String, Codable, Sendable, AttributeValueConvertible {
    case draft, listed, sold
}

struct ListingTerms: Codable, Hashable, Sendable, AttributeValueConvertible {
    var deposit: Int
    var notes: [String]
}

struct Spot: Codable, Hashable, Sendable {
    var city: String
    var floor: Int
}

class Listing: ManagedObject {
    override class var isAbstract: Bool { true }
    @Attribute(.unique) var code: String = ""
    @Attribute(.indexed) var status: ListingState = .draft
    @Attribute var tags: [String] = []
    @Composite var spot = Spot(city: "", floor: 0)
    @Attribute var terms: ListingTerms?
    override class var indexes: [IndexDescription] { [.index("spot.city")] }
}

final class Flat: Listing {
    @Attribute var rooms: Int = 1
}

final class Plot: Listing {
    @Attribute var area: Double = 0
}

struct SpotWithPhone: Codable, Hashable, Sendable {
    var city: String
    var floor: Int
    var phone: String?
}

/// The next version: an attribute on the superentity, a field in the composite.
class ListingV2: ManagedObject {
    override class var entityName: String { "Listing" }
    override class var isAbstract: Bool { true }
    @Attribute(.unique) var code: String = ""
    @Attribute(.indexed) var status: ListingState = .draft
    @Attribute var tags: [String] = []
    @Composite var spot = SpotWithPhone(city: "", floor: 0)
    @Attribute var terms: ListingTerms?
    @Attribute var agent: String?
    override class var indexes: [IndexDescription] { [.index("spot.city")] }
}

final class FlatV2: ListingV2 {
    override class var entityName: String { "Flat" }
    @Attribute var rooms: Int = 1
}

final class PlotV2: ListingV2 {
    override class var entityName: String { "Plot" }
    @Attribute var area: Double = 0
}

/// A model with every kind of value and an entity family survives a
/// reopen, an upsert and an inferred migration, on every engine.
@Suite struct RichModelMigrationTests {
    static func fill(_ container: PersistentContainer) throws {
        let context = container.newContext()
        let flat = Flat(context: context)
        flat.code = "F1"
        flat.status = .listed
        flat.tags = ["balcony", "quiet"]
        flat.spot = Spot(city: "Kyoto", floor: 3)
        flat.terms = ListingTerms(deposit: 2, notes: ["no pets"])
        flat.rooms = 2
        let plot = Plot(context: context)
        plot.code = "P1"
        plot.tags = ["corner"]
        plot.spot = Spot(city: "Nara", floor: 0)
        plot.area = 120.5
        try context.save()
        // The same code again: an update of the stored Flat, not a second one.
        let importer = container.newContext()
        importer.mergePolicy = .mergeByPropertyObjectTrump
        let again = Flat(context: importer)
        again.code = "F1"
        again.rooms = 3
        again.status = .sold
        try importer.save()
    }

    static func codes(_ context: ManagedObjectContext, _ format: String) throws -> [String] {
        try context.fetch(FetchRequest(entityName: "Listing", predicate: try FetchPredicate(format: format)))
            .map { try $0.value(forKey: "code", as: String.self) }.sorted()
    }

    @Test func everyKindOfValueSurvivesAReopenAnUpsertAndAMigration() throws {
        let store = try EngineStore(.underTest)
        let model = try ManagedObjectModel(Listing.self, Flat.self, Plot.self)
        let first = try store.open(model)
        try Self.fill(first)
        let reopened = try store.reopen(first, try ManagedObjectModel(Listing.self, Flat.self, Plot.self))
        let flats = try reopened.newContext().fetch(FetchRequest<Flat>())
        #expect(flats.count == 1)
        let flat = try #require(flats.first)
        #expect(flat.rooms == 3 && flat.status == .sold && flat.tags == ["balcony", "quiet"])
        #expect(flat.spot == Spot(city: "Kyoto", floor: 3) && flat.terms == ListingTerms(deposit: 2, notes: ["no pets"]))

        let migrated = try store.reopen(reopened, try ManagedObjectModel(ListingV2.self, FlatV2.self, PlotV2.self))
        defer { withExtendedLifetime(store) {} }
        let report = try #require(migrated.store.lastMigration)
        #expect(Set(report.differences.map(\.change)) == [.attributeAdded])
        let context = migrated.newContext()
        let all = try context.fetch(FetchRequest<ListingV2>(sortBy: [FetchSortDescriptor(key: "code")]))
        #expect(all.map(\.code) == ["F1", "P1"])
        #expect(all.map { String(describing: type(of: $0)) } == ["FlatV2", "PlotV2"])
        let migratedFlat = try #require(all.first as? FlatV2)
        #expect(migratedFlat.rooms == 3 && migratedFlat.status == .sold && migratedFlat.tags == ["balcony", "quiet"])
        #expect(migratedFlat.spot == SpotWithPhone(city: "Kyoto", floor: 3, phone: nil) && migratedFlat.agent == nil)
        #expect(migratedFlat.terms == ListingTerms(deposit: 2, notes: ["no pets"]))
        #expect((all.last as? PlotV2)?.area == 120.5)
        #expect(try Self.codes(context, "spot.city == 'Nara' AND ANY tags == 'corner' AND status == 'draft'") == ["P1"])
        #expect(try Self.codes(context, "entity == 'Flat' AND spot.floor > 2") == ["F1"])
        // The new field and attribute are written and read like the others.
        migratedFlat.spot.phone = "075-000"
        migratedFlat.agent = "Mori"
        try context.save()
        #expect(try Self.codes(migrated.newContext(), "spot.phone != nil AND agent == 'Mori'") == ["F1"])
        #expect(try migrated.store.check().isConsistent)
    }
}
