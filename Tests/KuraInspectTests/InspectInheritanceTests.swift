import Foundation
import Kura
@testable import KuraInspect
import KuraTestSupport
import Testing

/// `kura` on a store with sub-entities: the tree, schemas naming the
/// superentity, fetches of a superentity showing every member's objects.
@Suite struct InspectInheritanceTests {
    static func mediaStore(_ path: String) throws {
        let media = try EntityDescription(name: "Media", isAbstract: true, attributes: [
            AttributeDescription(name: "code", type: .string),
        ], indexes: [.unique("code")])
        let video = try EntityDescription(name: "Video", superentity: media, isAbstract: false, attributes: [
            AttributeDescription(name: "seconds", type: .int64, defaultValue: .int(0)),
        ])
        let clip = try EntityDescription(name: "Clip", superentity: video, isAbstract: false, attributes: [])
        let audio = try EntityDescription(name: "Audio", superentity: media, isAbstract: false, attributes: [])
        let shelf = try EntityDescription(name: "Shelf", attributes: [AttributeDescription(name: "name", type: .string)])
        let container = try PersistentContainer(
            path: path, model: try ManagedObjectModel(entities: [media, video, clip, audio, shelf]))
        let context = container.newContext()
        for (entity, code) in [("Video", "v1"), ("Clip", "c1"), ("Audio", "a1"), ("Audio", "a2")] {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValue(code, forKey: "code")
        }
        try context.save()
        container.close()
    }

    @Test func entitiesShowTheFamilyAsATreeAndSchemaNamesTheSuperentity() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("media.kura")
        try Self.mediaStore(path)
        let (entities, error) = try runSession(path: path, ["entities"])
        #expect(error == nil)
        #expect(entities == """
            entity            objects  attributes     indexes
            ----------------  -------  -------------  ------------------------
            Media (abstract)        4  code           unique index code (code)
              Video                 2  code, seconds  unique index code (code)
                Clip                1  code, seconds  unique index code (code)
              Audio                 2  code           unique index code (code)
            Shelf                   0  name           
            """)
        let (schema, _) = try runSession(path: path, ["schema Video"])
        #expect(schema.hasPrefix("entity Video, a sub-entity of Media; sub-entities: Clip\n"))
        let (fetched, _) = try runSession(path: path, ["fetch Media where code BEGINSWITH 'a'"])
        #expect(fetched.contains("a1") && fetched.contains("a2") && !fetched.contains("v1"))
        let (shown, showError) = try runSession(path: path, ["show kura://Clip/1"])
        #expect(showError == nil && shown.contains("c1"), "\(shown)")
    }

    @Test func anExportOfAFamilyWritesEachObjectAsItsOwnEntityAndImportsBack() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("media.kura")
        try Self.mediaStore(path)
        let source = try PersistentContainer(path: path)
        var whole: [String] = []
        #expect(try ObjectExport.export(nil, from: source, format: .jsonl) { whole.append($0) } == 4)
        let text = whole.joined(separator: "\n")
        #expect(text.contains("kura://Clip/1") && text.contains("kura://Audio/2") && !text.contains("kura://Media/"))
        var media: [String] = []
        #expect(try ObjectExport.export(FetchRequest(entityName: "Media"), from: source, format: .jsonl) { media.append($0) } == 4)
        #expect(media.joined(separator: "\n").contains("\"seconds\":0"), "a Video's own columns")
        #expect(throws: InspectError.self) {
            try ObjectExport.export(FetchRequest(entityName: "Media"), from: source, format: .csv) { _ in }
        }

        let copyPath = directory.file("copy.kura")
        let copy = try PersistentContainer(path: copyPath, model: source.model)
        let summary = try ObjectImport.run(text, format: .jsonl, into: copy)
        #expect(summary.insertedCounts == ["Video": 1, "Clip": 1, "Audio": 2])
        #expect(try copy.newContext().count(for: FetchRequest(entityName: "Media")) == 4)
        #expect(try copy.store.check().isConsistent)
        #expect(throws: (any Error).self) {
            try ObjectImport.run("{\"code\":\"x\"}", format: .jsonl, entityName: "Media", into: copy)
        }
    }
}
