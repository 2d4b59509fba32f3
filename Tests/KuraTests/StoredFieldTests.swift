import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// One typed attribute of every kind a Swift property can have, and an
/// optional of each: a fetched object reads the common ones straight from
/// its record's bytes (`StoredField`), the others through `AttributeValue`.
final class EveryType: ManagedObject {
    @Attribute var flag: Bool = false
    @Attribute var int: Int = 0
    @Attribute var int64: Int64 = 0
    @Attribute var int32: Int32 = 0
    @Attribute var int16: Int16 = 0
    @Attribute var double: Double = 0
    @Attribute var float: Float = 0
    @Attribute var text: String = ""
    @Attribute var date: Date = .distantPast
    @Attribute var decimal: Decimal = 0
    @Attribute var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Attribute var bytes: Data = Data()
    @Attribute var link: URL = URL(string: "https://example.com")!
    @Attribute var maybeFlag: Bool?
    @Attribute var maybeInt: Int?
    @Attribute var maybeInt16: Int16?
    @Attribute var maybeDouble: Double?
    @Attribute var maybeFloat: Float?
    @Attribute var maybeText: String?
    @Attribute var maybeDate: Date?
    @Attribute var maybeDecimal: Decimal?

    /// Every property's value, compared as text.
    var described: [String] {
        ["\(flag)", "\(int)", "\(int64)", "\(int32)", "\(int16)", "\(double)", "\(float)", text,
         "\(date.timeIntervalSinceReferenceDate)", "\(decimal)", uuid.uuidString, bytes.base64EncodedString(),
         link.absoluteString, "\(maybeFlag as Any)", "\(maybeInt as Any)", "\(maybeInt16 as Any)",
         "\(maybeDouble as Any)", "\(maybeFloat as Any)", "\(maybeText as Any)",
         "\(maybeDate?.timeIntervalSinceReferenceDate as Any)", "\(maybeDecimal as Any)"]
    }
}

@Suite struct StoredFieldTests {
    @Test func aFetchedObjectReadsEveryTypeFromItsRecordAsItWasSet() throws {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(EveryType.self))
        let writer = container.newContext()
        let full = EveryType(context: writer)
        full.flag = true
        full.int = -7_000_000_000
        full.int64 = .max
        full.int32 = .min
        full.int16 = -300
        full.double = -0.125
        full.float = 3.5
        full.text = "Kura 蔵, a string longer than fifteen bytes"
        full.date = Date(timeIntervalSinceReferenceDate: 812_345_678.25)
        full.decimal = Decimal(string: "12.345")!
        full.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        full.bytes = Data([0, 1, 2, 255])
        full.link = URL(string: "https://example.com/kura?q=1")!
        full.maybeFlag = false
        full.maybeInt = 42
        full.maybeInt16 = 16
        full.maybeDouble = .infinity
        full.maybeFloat = -1
        full.maybeText = "short"
        full.maybeDate = Date(timeIntervalSinceReferenceDate: -1)
        full.maybeDecimal = Decimal(7)
        let empty = EveryType(context: writer)
        empty.int = 1
        try writer.save()
        let written = [full.described, empty.described]

        let fetched = try container.newContext().fetch(FetchRequest(entityName: "EveryType").sorted(by: "int"), as: EveryType.self)
        #expect(fetched.map(\.described) == written)
        // Read again once the object holds values of its own (a set decodes one).
        fetched[0].int64 = 1
        #expect(fetched[0].described.dropFirst(3) == written[0].dropFirst(3))
    }

    @Test func aStoredReadBecomesTheGettersTypeOrLeavesItToAttributeValue() {
        // A null: nil for an optional, nothing for a non-optional (whose getter then reports the missing value).
        #expect(StoredRead<Int64>.null.typed(AttributeValue.int, as: Int16?.self) == .some(nil))
        #expect(StoredRead<Int64>.null.typed(AttributeValue.int, as: Int16.self) == nil)
        // A value: as it is, or wrapped in an optional; nothing when it doesn't fit the type.
        #expect(StoredRead.value(Int64(300)).typed(AttributeValue.int, as: Int16.self) == 300)
        #expect(StoredRead.value(Int64(300)).typed(AttributeValue.int, as: Int16?.self) == .some(300))
        #expect(StoredRead.value(Int64(70_000)).typed(AttributeValue.int, as: Int16.self) == nil)
        #expect(StoredRead.value("蔵").typed(AttributeValue.string, as: String.self) == "蔵")
        // Another type than the read's, and a read that didn't happen: nothing.
        #expect(StoredRead.value("蔵").typed(AttributeValue.string, as: Int.self) == nil)
        #expect(StoredRead<String>.unavailable.typed(AttributeValue.string, as: String?.self) == nil)
    }
}
