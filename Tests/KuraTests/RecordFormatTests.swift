import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

@Suite struct RecordFormatTests {
    static let entity = try! EntityDescription(name: "R", attributes: [
        AttributeDescription(name: "a", type: .int64),
        AttributeDescription(name: "b", type: .string, isOptional: true),
        AttributeDescription(name: "c", type: .bool),
        AttributeDescription(name: "d", type: .url, isOptional: true),
        AttributeDescription(name: "added", type: .int32, defaultValue: .int(7)),
    ])
    /// `R` before `added` existed: records it wrote have four fields.
    static let older = try! EntityDescription(name: "R", attributes: Array(entity.attributes.prefix(4)))

    @Test func aRecordDecodesValueByValueAndOlderRecordsReadDefaultsForNewAttributes() throws {
        let bytes = RecordFormat.encode([.int(-3), .string("héllo"), .bool(true), nil], rowVersion: 9, layout: Self.older.layout)
        try bytes.withUnsafeBytes { raw in
            let view = try RecordView(validating: raw, entity: Self.entity)
            #expect(view.rowVersion == 9)
            #expect(view.value(0, of: Self.entity) == .int(-3))
            #expect(view.value(1, of: Self.entity) == .string("héllo"))
            #expect(view.value(2, of: Self.entity) == .bool(true))
            #expect(view.value(3, of: Self.entity) == nil)
            #expect(view.value(4, of: Self.entity) == .int(7), "a record written before the attribute existed")
        }
    }

    /// A set compares the new value with the stored one from the record's
    /// bytes where they decide, and says when only decoding can tell.
    @Test func aStoredValueIsComparedWithANewOneFromItsBytesWhereTheyDecide() throws {
        let entity = try EntityDescription(name: "S", attributes: [
            AttributeDescription(name: "i", type: .int64), AttributeDescription(name: "t", type: .string, isOptional: true),
            AttributeDescription(name: "b", type: .bool), AttributeDescription(name: "d", type: .double),
            AttributeDescription(name: "w", type: .date), AttributeDescription(name: "u", type: .string),
            AttributeDescription(name: "x", type: .decimal),
        ])
        let when = Date(timeIntervalSinceReferenceDate: 12.5)
        let bytes = RecordFormat.encode(
            [.int(-3), nil, .bool(false), .double(.nan), .date(when), .string("caf\u{E9}"), .decimal(1)], rowVersion: 1,
            layout: entity.layout)
        bytes.withUnsafeBytes { raw in
            let view = RecordView(trusted: raw)
            func same(_ number: Int, _ value: AttributeValue?) -> Bool? { view.storedValue(number, of: entity, isSameAs: value) }
            #expect(same(0, .int(-3)) == true && same(0, .int(3)) == false && same(0, nil) == false)
            #expect(same(1, nil) == true && same(1, .string("")) == false)
            #expect(same(2, .bool(false)) == true && same(2, .bool(true)) == false)
            #expect(same(3, .double(.nan)) == true && same(3, .double(0)) == false)
            #expect(same(4, .date(when)) == true && same(4, .date(when.addingTimeInterval(1))) == false)
            #expect(same(5, .string("caf\u{E9}")) == true)
            #expect(same(5, .string("cafe\u{301}")) == nil, "canonically equivalent bytes: only decoding can tell")
            #expect(same(5, .string("cafe")) == nil, "one side not ASCII")
            #expect(same(6, .decimal(1)) == nil, "decimals are decoded")
            #expect(same(0, .string("-3")) == nil, "a tag that isn't the value's type")
        }
        let ascii = RecordFormat.encode([.int(0), .string("abc"), .bool(true), .double(0), .date(when), .string("abc"), .decimal(0)],
                                        rowVersion: 1, layout: entity.layout)
        ascii.withUnsafeBytes { raw in
            let view = RecordView(trusted: raw)
            #expect(view.storedValue(5, of: entity, isSameAs: .string("abd")) == false, "two ASCII texts of other bytes differ")
            #expect(view.storedValue(5, of: entity, isSameAs: .string("abc")) == true)
        }
    }

    @Test func valuesNotLoadedAreCopiedFromTheBaseRecordAndOnesItPredatesGetTheirDefault() throws {
        let base = RecordFormat.encode([.int(-3), .string("héllo"), .bool(true), .url(URL(string: "https://a.b")!)],
                                       rowVersion: 4, layout: Self.older.layout)
        var loaded = AttributeMask()
        loaded.insert(0)
        // Only `a` is given; `b`, `c`, `d` come from the base, `added` (after the base's fields) is its default.
        let bytes = RecordFormat.encode([.int(5), nil, nil, nil, nil], rowVersion: 5, layout: Self.entity.layout,
                                        unloaded: ChangeSet.Unloaded(record: base, loaded: loaded))
        let full = RecordFormat.encode([.int(5), .string("héllo"), .bool(true), .url(URL(string: "https://a.b")!), .int(7)],
                                       rowVersion: 5, layout: Self.entity.layout)
        #expect(bytes == full)
        loaded.insert(1)
        let cleared = RecordFormat.encode([.int(5), nil, nil, nil, nil], rowVersion: 5, layout: Self.entity.layout,
                                          unloaded: ChangeSet.Unloaded(record: base, loaded: loaded))
        try cleared.withUnsafeBytes { raw in
            let view = try RecordView(validating: raw, entity: Self.entity)
            #expect(view.value(1, of: Self.entity) == nil, "a loaded value is written as given, nil included")
            #expect(view.value(3, of: Self.entity) == .url(URL(string: "https://a.b")!))
        }
    }

    @Test func damagedRecordsAreRefusedNotMisread() throws {
        let good = RecordFormat.encode([.int(1), .string("x"), .bool(false), .url(URL(string: "https://a.b")!)], rowVersion: 1, layout: Self.older.layout)
        var damaged: [[UInt8]] = []
        damaged.append([])
        damaged.append(Array(good.prefix(5)))
        var version = good; version[0] = 2; damaged.append(version)
        var tag = good; tag[11 + 4 * 4] = 7; damaged.append(tag)                 // int stored with a string tag
        var offset = good; offset[11] = 200; damaged.append(offset)              // offset past the end
        damaged.append(good + [0])                                               // trailing byte
        var count = good; count[9] = 9; damaged.append(count)                    // more values than attributes
        var url = RecordFormat.encode([.int(1), nil, .bool(true), nil], rowVersion: 1, layout: Self.older.layout)
        url[url.count - 1] = RecordFormat.Tag.url.rawValue
        damaged.append(url)
        for bytes in damaged {
            #expect(throws: RecordError.self, "\(bytes)") {
                try bytes.withUnsafeBytes { _ = try RecordView(validating: $0, entity: Self.entity) }
            }
        }
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20_000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))) }
            // Any outcome but a crash is fine; a record that validates must decode.
            bytes.withUnsafeBytes { raw in
                if let view = try? RecordView(validating: raw, entity: Self.entity) {
                    for number in 0..<Self.entity.attributes.count { _ = view.value(number, of: Self.entity) }
                }
            }
        }
    }
}
