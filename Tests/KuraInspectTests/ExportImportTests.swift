import Foundation
import Kura
@testable import KuraInspect
import KuraTestSupport
import Testing

/// `export` and `import`: lossless for every attribute type and for
/// references, in one save, with errors that name the line.
@Suite struct ExportImportTests {
    /// Every attribute type, a to-one, a to-many and an ordered to-many.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [
                AttributeDescription(name: "flag", type: .bool, isOptional: true),
                AttributeDescription(name: "small", type: .int16, isOptional: true),
                AttributeDescription(name: "big", type: .int64, isOptional: true),
                AttributeDescription(name: "ratio", type: .double, isOptional: true),
                AttributeDescription(name: "single", type: .float, isOptional: true),
                AttributeDescription(name: "price", type: .decimal, isOptional: true),
                AttributeDescription(name: "name", type: .string, isOptional: true),
                AttributeDescription(name: "when", type: .date, isOptional: true),
                AttributeDescription(name: "uuid", type: .uuid, isOptional: true),
                AttributeDescription(name: "bytes", type: .data, isOptional: true),
                AttributeDescription(name: "link", type: .url, isOptional: true),
                AttributeDescription(name: "details", type: .data, isOptional: true, encoding: .json),
            ], relationships: [
                .toOne("owner", destination: "Owner"),
                .toMany("tags", destination: "Tag", inverse: "items"),
            ], indexes: [.unique("uuid")]),
            EntityDescription(name: "Owner", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("items", destination: "Item", inverse: "owner", isOrdered: true)]),
            EntityDescription(name: "Tag", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("items", destination: "Item")]),
        ])
    }

    /// A store with awkward values: extremes, nils, text needing escapes,
    /// dates with fractions of seconds, empty strings and data.
    static func fill(_ container: PersistentContainer, count: Int) throws {
        let context = container.newContext()
        var generator = SystemRandomNumberGenerator()
        let owners = try (0..<3).map { number in
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue("owner \(number)", forKey: "name")
            return owner
        }
        let tags = try ["a", "b,c", "d\"e"].map { name in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try tag.setValue(name, forKey: "name")
            return tag
        }
        for number in 0..<count {
            let item = try context.insertNewObject(forEntityName: "Item")
            let blank = number % 7 == 3  // every attribute nil
            func set(_ value: AttributeValue?, _ key: String) throws { try item.setValue(blank ? nil : value, forKey: key) }
            try set(.bool(number.isMultiple(of: 2)), "flag")
            try set(.int(Int64(Int16.random(in: .min ... .max, using: &generator))), "small")
            try set(.int(number == 0 ? .min : number == 1 ? .max : Int64.random(in: .min ... .max, using: &generator)), "big")
            try set(.double(number == 2 ? .infinity : Double.random(in: -1e300...1e300, using: &generator)), "ratio")
            try set(.float(Float.random(in: -1e30...1e30, using: &generator)), "single")
            try set(.decimal(Decimal(string: "\(number).\(UInt32.random(in: 0...UInt32.max, using: &generator))")!), "price")
            try set(.string(["", "plain", "comma, and \"quotes\"", "line\nbreak\r\n", "tab\tand \u{1}", "蔵 😀", " spaced "][number % 7]), "name")
            try set(.date(Date(timeIntervalSinceReferenceDate: Double.random(in: -3e9...3e9, using: &generator))), "when")
            try item.setValue(.uuid(UUID()), forKey: "uuid")
            try set(.data(Data((0..<(number % 5)).map { _ in UInt8.random(in: 0...255, using: &generator) })), "bytes")
            try set(.url(URL(string: "https://example.com/\(number)?q=a%20b")!), "link")
            // A Codable value's JSON, as Kura writes it (keys sorted), with text needing escapes.
            try set(.data(Data(#"{"name":"comma, \"quoted\" 蔵","number":\#(number),"tags":["a","b"]}"#.utf8)), "details")
            if number % 4 != 0 { try item.setObject(owners[number % 3], forKey: "owner") }
            try item.mutableSetValue(forKey: "tags").set(Array(tags.prefix(number % 4)))
        }
        try context.save()
    }

    /// Compares every object of `source` with its import in `copy`,
    /// attribute by attribute and reference by reference (through the new IDs).
    static func expectSameObjects(_ source: PersistentContainer, _ copy: PersistentContainer, newIDs: [String: ObjectID]) throws {
        let sourceContext = source.newContext()
        let copyContext = copy.newContext()
        var compared = 0
        for entity in source.model.entities {
            let copyCount = try copyContext.count(for: FetchRequest(entityName: entity.name))
            let objects = try sourceContext.fetch(FetchRequest(entityName: entity.name))
            #expect(copyCount == objects.count, "\(entity.name)")
            for object in objects {
                let newID = try #require(newIDs[object.objectID.uriRepresentation])
                let imported = try copyContext.existingObject(with: copy.model.objectID(forURIRepresentation: newID.uriRepresentation))
                for attribute in entity.attributes {
                    let original = try object.value(forKey: attribute.name)
                    let value = try imported.value(forKey: attribute.name)
                    if case .double(let number)? = original, number.isNaN { continue }
                    #expect(value == original, "\(object.objectID) \(attribute.name)")
                }
                for relationship in entity.relationships {
                    let expected = try (relationship.isToMany ? object.objects(forKey: relationship.name)
                                        : [try object.object(forKey: relationship.name)].compactMap { $0 })
                        .map { newIDs[$0.objectID.uriRepresentation]?.uriRepresentation }
                    let actual = try (relationship.isToMany ? imported.objects(forKey: relationship.name)
                                      : [try imported.object(forKey: relationship.name)].compactMap { $0 })
                        .map { Optional($0.objectID.uriRepresentation) }
                    if relationship.isOrdered {
                        #expect(actual == expected, "\(object.objectID) \(relationship.name)")
                    } else {
                        #expect(Set(actual) == Set(expected), "\(object.objectID) \(relationship.name)")
                    }
                }
                compared += 1
            }
        }
        #expect(compared > 0)
    }

    @Test func anExportImportedIntoAnEmptyStoreGivesTheSameObjectsAndReferences() throws {
        let directory = try TemporaryDirectory()
        let source = try PersistentContainer(path: directory.file("source.kura"), model: Self.model())
        try Self.fill(source, count: 300)
        var lines: [String] = []
        let written = try ObjectExport.export(nil, from: source, format: .jsonl) { lines.append($0) }
        #expect(written == 306)

        let copy = try PersistentContainer(path: directory.file("copy.kura"), model: Self.model())
        let summary = try ObjectImport.run(lines.joined(separator: "\n"), format: .jsonl, into: copy)
        #expect(summary.insertedCounts == ["Item": 300, "Owner": 3, "Tag": 3])
        try Self.expectSameObjects(source, copy, newIDs: summary.newObjectIDs)

        // Exporting the copy gives the same text, IDs aside.
        var again: [String] = []
        try ObjectExport.export(nil, from: copy, format: .jsonl) { again.append($0) }
        #expect(again.joined(separator: "\n").count == lines.joined(separator: "\n").count)
    }

    @Test func aCSVExportOfOneEntityReadsBackExactlyNilsAndEmptyStringsApart() throws {
        let directory = try TemporaryDirectory()
        let source = try PersistentContainer(path: directory.file("source.kura"), model: Self.model())
        try Self.fill(source, count: 60)
        let copy = try PersistentContainer(path: directory.file("copy.kura"), model: Self.model())
        // Owners and tags first (their to-manys come back through the items' inverses), then the items,
        // whose references are mapped to the new IDs field by field.
        var newIDs: [String: ObjectID] = [:]
        for entity in ["Owner", "Tag", "Item"] {
            var text: [String] = []
            try ObjectExport.export(FetchRequest(entityName: entity), from: source, format: .csv) { text.append($0) }
            var reader = CSVText.Reader(text.joined(separator: "\n"))
            var records: [String] = []
            while let record = try reader.next() {
                let fields = entity == "Item" ? record.fields : Array(record.fields.prefix(2))
                records.append(CSVText.record(fields.enumerated().map { position, field in
                    guard position > 0, let field, field.hasPrefix("kura://") else { return field }
                    return field.split(separator: " ").map { newIDs[String($0)]?.uriRepresentation ?? String($0) }.joined(separator: " ")
                }))
            }
            let summary = try ObjectImport.run(records.joined(separator: "\n"), format: .csv, into: copy)
            newIDs.merge(summary.newObjectIDs) { first, _ in first }
        }
        try Self.expectSameObjects(source, copy, newIDs: newIDs)
    }

    @Test func aBadLineIsNamedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let store = try PersistentContainer(path: directory.file("store.kura"), model: Self.model())
        let good = #"{"name":"ok","uuid":"\#(UUID().uuidString)"}"#
        func failure(_ text: String, format: ExportFormat = .jsonl) -> String? {
            do {
                _ = try ObjectImport.run(text, format: format, entityName: "Item", into: store)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(failure(good + "\n" + #"{"small": 70000}"#) == "line 2: small: '70000' is not a Int16")
        #expect(failure(good + "\n\n" + #"{"name": "x""#) == "line 3: not JSON: expected , or }, found the end at character 13")
        #expect(failure(#"{"nmae": "x"}"#) == "line 1: Item has no property 'nmae' (did you mean 'name'?)")
        #expect(failure(#"{"owner": "kura://Owner/9"}"#) == "line 1: owner: kura://Owner/9 is neither in the text nor in the store")
        #expect(failure(#"{"when": "2026-13-01T00:00:00Z"}"#) == "line 1: when: '2026-13-01T00:00:00Z' is not a Date")
        #expect(failure("name,small\nok,1\n\"open,2\n", format: .csv) == "line 3: a quoted field that starts on line 3 is not closed")
        // The save fails on the unique UUID: the second object is named, and the first.
        let uuid = UUID().uuidString
        let duplicate = failure(#"{"name":"a"}"# + "\n" + #"{"uuid":"\#(uuid)"}"# + "\n" + #"{"name":"b"}"# + "\n" + #"{"uuid":"\#(uuid)"}"#)
        #expect(duplicate == "line 4: nothing was imported: unique index Item.uuid already holds (\(uuid)), from line 2")
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == 0)
        // A clash with a stored object names the line of the text's.
        let stored = UUID().uuidString
        #expect(failure(#"{"uuid":"\#(stored)"}"#) == nil)
        #expect(failure(#"{"name":"c"}"# + "\n" + #"{"uuid":"\#(stored)"}"#)
            == "line 2: nothing was imported: unique index Item.uuid already holds (\(stored))")
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == 1)
    }

    /// Found by the outside hostile-input suite: invalid UTF-8 became U+FFFD
    /// and the import succeeded (two different bad keys then collided).
    @Test func textThatIsNotUTF8IsRefusedWithTheLineAndColumnNotReplaced() throws {
        let directory = try TemporaryDirectory()
        let store = try PersistentContainer(path: directory.file("store.kura"), model: Self.model())
        func failure(_ bytes: [UInt8], format: ExportFormat) -> String? {
            do {
                _ = try ObjectImport.run(utf8: bytes, format: format, entityName: "Item", into: store)
                return nil
            } catch {
                return error.description
            }
        }
        let jsonl = Array(#"{"name":"ok"}"#.utf8) + [0x0A] + Array(#"{"name":"é"#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(failure(jsonl, format: .jsonl)?.hasPrefix("line 2: column 11: the byte 0xFF is not UTF-8") == true, "\(String(describing: failure(jsonl, format: .jsonl)))")
        let csv = Array("name\nok\nbad".utf8) + [0xC3, 0x28] + [0x0A]
        #expect(failure(csv, format: .csv)?.hasPrefix("line 3: column 4: the byte 0xC3 is not UTF-8") == true)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == 0)
        // Valid text in every script, emoji included, goes in byte for byte.
        let valid = Array(#"{"name":"日本語 👨‍👩‍👧 é"}"#.utf8)
        #expect(failure(valid, format: .jsonl) == nil)
    }

    @Test func theUTF8CheckAgreesWithTheStandardLibrary() {
        var generator = SplitMix64(seed: 20_261_127)
        let pieces: [[UInt8]] = [[0x41], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80], [0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80],
                                 [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x80, 0x80], [0xF5], [0xFF], [0xC3], [0xE2, 0x82], [0x0A]]
        for _ in 0..<5_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &generator) { bytes += pieces.randomElement(using: &generator)! }
            let valid = String(validating: bytes, as: UTF8.self) != nil
            #expect((UTF8Validation.firstInvalid(in: bytes) == nil) == valid, "\(bytes)")
        }
    }

    @Test func anImportIntoTheCallersContextRefusesPendingChangesAndRollsBackAFailure() throws {
        let directory = try TemporaryDirectory()
        let store = try PersistentContainer(path: directory.file("store.kura"), model: Self.model())
        let context = store.newContext()
        let pending = try context.insertNewObject(forEntityName: "Item")
        try pending.setValue("pending", forKey: "name")
        #expect(throws: ObjectImport.Failure.self) {
            try ObjectImport.run(utf8: Array(#"{"name":"a"}"#.utf8), format: .jsonl, entityName: "Item", in: context)
        }
        #expect(context.insertedObjects.count == 1, "the caller's own change is left alone")
        context.rollback()
        // A bad second line: the first line's object leaves the context again.
        let text = #"{"name":"a","uuid":"\#(UUID().uuidString)"}"# + "\n" + #"{"small":"x"}"#
        #expect(throws: ObjectImport.Failure.self) {
            try ObjectImport.run(utf8: Array(text.utf8), format: .jsonl, entityName: "Item", in: context)
        }
        #expect(!context.hasChanges && context.registeredObjects.isEmpty)
        let summary = try ObjectImport.run(
            utf8: Array(#"{"objectID":"kura://Item/7","name":"b","uuid":"\#(UUID().uuidString)"}"#.utf8), format: .jsonl, in: context)
        #expect(summary.objectIDs.count == 1 && summary.objectIDs[0].old.uriRepresentation == "kura://Item/7")
        #expect(summary.newObjectIDs["kura://Item/7"] == summary.objectIDs[0].new)
        #expect(try context.existingObject(with: summary.objectIDs[0].new).value(forKey: "name") == .string("b"))
    }

    @Test func importRunsTheClassesHooksOnlyWhenAsked() throws {
        final class Stamped: ManagedObject {
            nonisolated(unsafe) static var awakened = 0
            override func awakeFromInsert() {
                super.awakeFromInsert()
                Self.awakened += 1
            }
        }
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)], managedObjectClass: Stamped.self),
        ])
        let store = try PersistentContainer(path: directory.file("store.kura"), model: model)
        _ = try ObjectImport.run(#"{"text":"a"}"#, format: .jsonl, entityName: "Note", into: store)
        #expect(Stamped.awakened == 0)
        _ = try ObjectImport.run(#"{"text":"b"}"#, format: .jsonl, entityName: "Note", into: store, runsHooks: true)
        #expect(Stamped.awakened == 1)
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Note")) == 2)
    }

    @Test func theToolExportsImportsAndBacksUpWhileAnotherProcessWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("growing.kura")
        // Another process saves 300 batches while the copies are made.
        let writer = try Helper.start(["growth-writer", path, "1", "300", "20", "200"])
        // Once the store exists (a loaded machine can take seconds to start
        // the writer), a moment for some saves.
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: path) && Date() < deadline { usleep(20_000) }
        usleep(300_000)
        let plain = try KuraTool.run(["backup", path, directory.file("copy.kura")])
        let compact = try KuraTool.run(["backup", path, directory.file("compact.kura"), "--compact"])
        _ = Helper.read(writer, untilLineStartingWith: "wrote")
        #expect(try writer.wait() == .exited(0))
        #expect(plain.status == 0 && plain.output.hasPrefix("backed up to "), "\(plain.error)")
        #expect(compact.status == 0 && compact.output.contains(", compacted)"), "\(compact.error)")
        for copy in ["copy.kura", "compact.kura"] {
            let check = try KuraTool.run(["check", directory.file(copy)])
            #expect(check.status == 0 && check.output.contains("ok: "), "\(copy): \(check.output) \(check.error)")
            // Whole saves only: a multiple of 20 objects.
            let count = try KuraTool.run(["count", directory.file(copy), "Blob"])
            #expect((Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1) % 20 == 0, "\(count.output)")
        }
        // A backup never overwrites.
        let again = try KuraTool.run(["backup", path, directory.file("copy.kura")])
        #expect(again.status == 1 && again.error.contains("the file exists"), "\(again.error)")

        // kura export → kura import into the copy (new IDs) doubles it.
        let export = try KuraTool.run(["export", path, "Blob", "where", "batch < 1000010", "--format", "csv"])
        #expect(export.status == 0 && export.output.hasPrefix("objectID,batch,payload\n"), "\(export.error)")
        let file = directory.file("blobs.csv")
        try export.output.write(toFile: file, atomically: true, encoding: .utf8)
        let before = try KuraTool.run(["count", directory.file("compact.kura"), "Blob"]).output
        let imported = try KuraTool.run(["import", directory.file("compact.kura"), file])
        #expect(imported.status == 0 && imported.output.hasPrefix("imported 200 objects (200 Blob)"), "\(imported.output) \(imported.error)")
        let after = try KuraTool.run(["count", directory.file("compact.kura"), "Blob"]).output
        #expect(Int(after.trimmingCharacters(in: .whitespacesAndNewlines)) == (Int(before.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) + 200)
    }

    @Test func aJSONAttributeShowsAndExportsAsItsText() throws {
        let directory = try TemporaryDirectory()
        let source = try PersistentContainer(path: directory.file("source.kura"), model: Self.model())
        try Self.fill(source, count: 2)
        var lines: [String] = []
        try ObjectExport.export(FetchRequest(entityName: "Item"), from: source, format: .jsonl) { lines.append($0) }
        #expect(lines[0].contains(#""details":"{\"name\":\"comma, \\\"quoted\\\" 蔵\",\"number\":0,\"tags\":[\"a\",\"b\"]}""#), "\(lines[0])")
        let context = source.newContext()
        let row = try ObjectExport.row(of: try context.fetch(FetchRequest(entityName: "Item"))[0], entity: source.model.entity(named: "Item")!)
        #expect(row.contains(.json(#"{"name":"comma, \"quoted\" 蔵","number":0,"tags":["a","b"]}"#)))
    }

    @Test func aCompositesFieldsAreColumnsNamedByTheirPathsAndImportBack() throws {
        let directory = try TemporaryDirectory()
        let venue = try EntityDescription(name: "Venue", attributes: [
            AttributeDescription(name: "title", type: .string),
            AttributeDescription(name: "place.city", type: .string),
            AttributeDescription(name: "place.location.latitude", type: .double, isOptional: true),
        ], indexes: [.index("place.city")])
        let path = directory.file("venues.kura")
        let source = try PersistentContainer(path: path, model: ManagedObjectModel(entities: [venue]))
        let context = source.newContext()
        for (title, city, latitude) in [("hall", "Nara", 34.68), ("park", "Kyoto", nil)] as [(String, String, Double?)] {
            let object = try context.insertNewObject(forEntityName: "Venue")
            try object.setValue(title, forKey: "title")
            try object.setValue(city, forKey: "place.city")
            try object.setValue(latitude.map(AttributeValue.double), forKey: "place.location.latitude")
        }
        try context.save()
        var csv: [String] = []
        try ObjectExport.export(FetchRequest(entityName: "Venue"), from: source, format: .csv) { csv.append($0) }
        #expect(csv.first?.contains("place.city,place.location.latitude") == true, "\(csv)")
        var jsonl: [String] = []
        try ObjectExport.export(FetchRequest(entityName: "Venue"), from: source, format: .jsonl) { jsonl.append($0) }
        #expect(jsonl[0].contains(#""place.city":"Nara""#) && jsonl[0].contains(#""place.location.latitude":34.68"#), "\(jsonl)")
        let copy = try PersistentContainer(path: directory.file("copy.kura"), model: source.model)
        _ = try ObjectImport.run(jsonl.joined(separator: "\n"), format: .jsonl, into: copy)
        let found = try copy.newContext().fetch(FetchRequest(entityName: "Venue", predicate: try FetchPredicate(format: "place.city == 'Nara'")))
        #expect(try found.map { try $0.value(forKey: "place.location.latitude") } == [.double(34.68)])
        source.close()
        let (schema, error) = try runSession(path: path, ["schema Venue", "fetch Venue where place.city == 'Kyoto'"])
        #expect(error == nil && schema.contains("place.location.latitude  Double  yes") && schema.contains("park") && !schema.contains("hall"), "\(schema)")
    }
}

/// What `kura export` writes of JSON attributes and lists, `kura import`
/// reads back byte for byte; what isn't of a list's element type is refused
/// with its line.
@Suite struct JSONAttributeImportTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Doc", attributes: [
                AttributeDescription(name: "name", type: .string, isOptional: true),
                AttributeDescription(name: "body", type: .data, isOptional: true, encoding: .json),
                AttributeDescription(name: "words", type: .data, isOptional: true, encoding: .json, elementType: .string),
                AttributeDescription(name: "counts", type: .data, isOptional: true, encoding: .json, elementType: .int64),
            ]),
        ])
    }

    static func nested(_ levels: Int) -> String {
        String(repeating: "[", count: levels) + "1" + String(repeating: "]", count: levels)
    }

    @Test(arguments: [FetchRequestExportFormat.jsonl, .csv])
    func deeplyNestedJSONExportsAndImportsBackByteForByte(format: FetchRequestExportFormat) throws {
        let directory = try TemporaryDirectory()
        let source = try PersistentContainer(path: directory.file("source.kura"), model: Self.model())
        let context = source.newContext()
        let bodies = [1, 64, 65, 200, 511].map(Self.nested) + [#"{"a":"#.appending(Self.nested(300)) + "}"]
        for (number, body) in bodies.enumerated() {
            let doc = try context.insertNewObject(forEntityName: "Doc")
            try doc.setValue(.string("d\(number)"), forKey: "name")
            try doc.setValue(.data(Data(body.utf8)), forKey: "body")
        }
        try context.save()
        var lines: [String] = []
        try ObjectExport.export(FetchRequest(entityName: "Doc").sorted(by: "name"), from: source, format: format.export) { lines.append($0) }
        let target = try PersistentContainer(path: directory.file("target.kura"), model: Self.model())
        _ = try ObjectImport.run(lines.joined(separator: "\n") + "\n", format: format.export, entityName: "Doc", into: target)
        let read = try target.newContext().fetch(FetchRequest(entityName: "Doc").sorted(by: "name"))
        #expect(try read.map { try $0.value(forKey: "body") } == bodies.map { .data(Data($0.utf8)) })
    }

    @Test func aListOfTheWrongElementTypeIsRefusedWithItsLine() throws {
        let directory = try TemporaryDirectory()
        let store = try PersistentContainer(path: directory.file("store.kura"), model: Self.model())
        func failure(_ text: String) -> String? {
            do {
                _ = try ObjectImport.run(text, format: .jsonl, entityName: "Doc", into: store)
                return nil
            } catch {
                return error.description
            }
        }
        let good = #"{"name":"ok","words":"[\"a\",\"b\"]","counts":"[1,-2]"}"#
        #expect(failure(good) == nil)
        for bad in [#""words":"[\"x\",1,null]""#, #""counts":"[1,1e400]""#, #""counts":"[1,\"2\"]""#, #""words":"{\"a\":1}""#] {
            let message = failure(good + "\n" + "{" + bad + "}")
            #expect(message?.hasPrefix("line 2: ") == true && message?.contains("isn't an array of") == true, "\(bad): \(String(describing: message))")
        }
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Doc")) == 1, "nothing of a failed import is written")
        // The library refuses the same bytes given directly.
        let context = store.newContext()
        let doc = try context.insertNewObject(forEntityName: "Doc")
        #expect(throws: KuraError.self) { try doc.setValue(.data(Data(#"["x",1]"#.utf8)), forKey: "words") }
        #expect(throws: KuraError.self) { try doc.setValue(.data(Data("not json".utf8)), forKey: "body") }
        #expect(throws: KuraError.self) {
            try context.execute(BatchInsertRequest(entityName: "Doc", objects: [["counts": .data(Data("[1.5]".utf8))]]))
        }
    }
}

/// The two export formats a JSON attribute goes through.
enum FetchRequestExportFormat: CaseIterable, Sendable {
    case jsonl, csv
    var export: ExportFormat { self == .jsonl ? .jsonl : .csv }
}
