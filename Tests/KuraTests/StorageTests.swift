import Foundation
import Kura
import KuraTestSupport
import Testing

/// One attribute of every type, optional, to round-trip values and nil.
final class Everything: ManagedObject {
    @Attribute var flag: Bool?
    @Attribute var small: Int16?
    @Attribute var medium: Int32?
    @Attribute var large: Int64?
    @Attribute var double: Double?
    @Attribute var float: Float?
    @Attribute var decimal: Decimal?
    @Attribute var text: String?
    @Attribute var date: Date?
    @Attribute var uuid: UUID?
    @Attribute var data: Data?
    @Attribute var url: URL?
}

@Suite struct StorageTests {
    typealias Values = (Bool?, Int16?, Int32?, Int64?, Double?, Float?, Decimal?, String?, Date?, UUID?, Data?, URL?)

    static let cases: [Values] = [
        (nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil),
        (true, .min, .min, .min, -.greatestFiniteMagnitude, -.infinity, Decimal(string: "-12345678901234567890.123456789")!,
         "", Date(timeIntervalSinceReferenceDate: -1e9), UUID(), Data(), URL(string: "file:///")!),
        (false, .max, .max, .max, .infinity, .leastNonzeroMagnitude, Decimal(string: "0.000000001")!,
         "ÉTÉ déjà vu — 東京 🚀 e\u{301}", Date(timeIntervalSinceReferenceDate: 1e9 + 0.5),
         UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
         Data((0..<20_000).map { UInt8($0 % 256) }), URL(string: "https://example.com/ü?q=1#f")!),
        (true, 0, 0, 0, -0.0, 1.5, 0, "\0null\0inside", Date(timeIntervalSinceReferenceDate: 0), UUID(),
         Data([0, 0, 0]), URL(string: "kura://News/1")!),
    ]

    @Test func everyAttributeTypeRoundTripsThroughTheStoreWithNilAndExtremes() throws {
        let store = try TestStore()
        var ids: [ObjectID] = []
        do {
            let container = try store.open(ManagedObjectModel(Everything.self))
            let context = container.newContext()
            for values in Self.cases {
                let object = Everything(context: context)
                (object.flag, object.small, object.medium, object.large, object.double, object.float, object.decimal,
                 object.text, object.date, object.uuid, object.data, object.url) = values
                ids.append(object.objectID)
            }
            try context.save()
            ids = context.registeredObjects.map(\.objectID).sorted { $0.primaryKey! < $1.primaryKey! }
            container.close()
        }
        let container = try store.open(ManagedObjectModel(Everything.self))
        let context = container.newContext()
        for (id, expected) in zip(ids, Self.cases) {
            let object = try context.existingObject(with: id) as! Everything
            #expect(object.flag == expected.0)
            #expect(object.small == expected.1)
            #expect(object.medium == expected.2)
            #expect(object.large == expected.3)
            #expect(object.double == expected.4 && object.double?.sign == expected.4?.sign)
            #expect(object.float == expected.5)
            #expect(object.decimal == expected.6)
            #expect(object.text == expected.7)
            #expect(object.text?.unicodeScalars.elementsEqual(expected.7?.unicodeScalars ?? "".unicodeScalars) ?? (expected.7 == nil))
            #expect(object.date == expected.8)
            #expect(object.uuid == expected.9)
            #expect(object.data == expected.10)
            #expect(object.url == expected.11)
        }
    }

    @Test func aHundredThousandObjectsAreSavedAndReadBack() throws {
        let store = try TestStore()
        let count = 100_000
        do {
            let container = try store.open(.news())
            let context = container.newContext()
            for index in 0..<count {
                let news = News(context: context)
                news.title = "Title \(index)"
                news.sortOrder = index &* 7919 % count
            }
            try context.save()
            container.close()
        }
        let container = try store.open(.news())
        let context = container.newContext()
        let all = try context.fetch(FetchRequest(entityName: "News"), as: News.self)
        #expect(all.count == count)
        var titles = Set<String>()
        var orders = Set<Int>()
        var objectIds = Set<String>()
        for news in all {
            titles.insert(news.title)
            orders.insert(news.sortOrder)
            objectIds.insert(news.objectId)
        }
        #expect(titles.count == count && orders.count == count && objectIds.count == count)
        #expect(all.first?.objectID.primaryKey == 1 && all.last?.objectID.primaryKey == UInt64(count))
    }
}
