import Foundation
@testable import KuraCore
import Kura
import Testing

/// Migrations of a model with sub-entities: properties added to a
/// superentity reach its sub-entities at the same fields, a new sub-entity
/// joins the family's indexes, an empty one can go, one with objects can't,
/// and an entity can't change family in place.
@Suite struct InheritanceMigrationTests {
    static func media(version: String, rank: Bool = false, audio: Bool = false) throws -> ManagedObjectModel {
        var attributes = [AttributeDescription(name: "code", type: .string, defaultValue: .string("")),
                          AttributeDescription(name: "title", type: .string, defaultValue: .string(""))]
        var indexes: [IndexDescription] = [.unique("code")]
        if rank {
            attributes.append(AttributeDescription(name: "rank", type: .int64, defaultValue: .int(5)))
            indexes.append(.index("rank"))
        }
        let media = try EntityDescription(name: "Media", isAbstract: true, attributes: attributes, indexes: indexes)
        var videoAttributes = [AttributeDescription(name: "seconds", type: .double, defaultValue: .double(0))]
        if rank { videoAttributes.append(AttributeDescription(name: "fps", type: .int64, defaultValue: .int(24))) }
        let video = try EntityDescription(name: "Video", superentity: media, isAbstract: false, attributes: videoAttributes)
        var entities = [media, video]
        if audio {
            entities.append(try EntityDescription(name: "Audio", superentity: media, isAbstract: false, attributes: [
                AttributeDescription(name: "bitrate", type: .int64, defaultValue: .int(128)),
            ]))
        }
        return try ManagedObjectModel(versionIdentifier: version, entities: entities)
    }

    static func insert(_ entity: String, code: String, into container: PersistentContainer) throws {
        let context = container.newContext()
        let object = try context.insertNewObject(forEntityName: entity)
        try object.setValue(.string(code), forKey: "code")
        try context.save()
    }

    @Test func attributesAddedToASuperentityAndANewSubEntityJoinTheFamily() throws {
        let store = try EngineStore(.underTest)
        var container = try store.open(Self.media(version: "1"))
        for number in 0..<5 { try Self.insert("Video", code: "v\(number)", into: container) }

        container = try store.reopen(container, Self.media(version: "2", rank: true, audio: true))
        let context = container.newContext()
        let videos = try context.fetch(FetchRequest(entityName: "Video"))
        #expect(videos.count == 5)
        #expect(try videos.allSatisfy { try $0.value(forKey: "rank") == .int(5) && $0.value(forKey: "fps") == .int(24) })
        try Self.insert("Audio", code: "a0", into: container)
        // The family's unique index holds for the new member.
        #expect(throws: KuraError.self) { try Self.insert("Audio", code: "v1", into: container) }
        let ranked = FetchRequest(entityName: "Media", predicate: try FetchPredicate(format: "rank == 5"))
        #expect(try container.newContext().count(for: ranked) == 6)
        #expect(try container.store.check().isConsistent)
        // The new fields agree across the family after another reopen.
        container = try store.reopen(container, Self.media(version: "2", rank: true, audio: true))
        let video = try container.model.requireEntity(named: "Video")
        let media = try container.model.requireEntity(named: "Media")
        #expect(Array(video.layout.attributeFields.prefix(3)) == media.layout.attributeFields)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Media")) == 6)
        #expect(try container.store.check().isConsistent)
    }

    @Test func aSubEntityWithObjectsIsNotRemovedButAnEmptyOneIs() throws {
        let store = try EngineStore(.underTest)
        var container = try store.open(Self.media(version: "1", audio: true))
        try Self.insert("Video", code: "v", into: container)
        try Self.insert("Audio", code: "a", into: container)
        // Even a newer version, which may remove data, keeps Audio's objects.
        if store.engine != .memory { container.close() }
        #expect {
            try store.open(Self.media(version: "2"))
        } throws: { error in
            // Said as it is: no version identifier would allow it.
            guard let error = error as? KuraError, error.code == .migrationFailed,
                  let reason = error.migrationFailures.first?.reason, reason.kind == .subentityHasObjects else { return false }
            let text = "\(error)"
            return reason.entity == "Audio" && reason.count == 1 && reason.superentity == "Media" && text.contains("delete them first") && !text.contains("newer versionIdentifier")
        }
        container = try store.open(Self.media(version: "1", audio: true))
        let context = container.newContext()
        for audio in try context.fetch(FetchRequest(entityName: "Audio")) { context.delete(audio) }
        try context.save()
        container = try store.reopen(container, Self.media(version: "2"))
        #expect(container.model.entity(named: "Audio") == nil)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Media")) == 1)
        #expect(try container.store.check().isConsistent)
    }

    @Test func anEntityCantChangeItsSuperentityInPlace() throws {
        let store = try EngineStore(.underTest)
        let flat = try ManagedObjectModel(versionIdentifier: "1", entities: [
            try EntityDescription(name: "Media", attributes: [AttributeDescription(name: "code", type: .string, defaultValue: .string("")),
                                                                AttributeDescription(name: "title", type: .string, defaultValue: .string(""))]),
            try EntityDescription(name: "Video", attributes: [AttributeDescription(name: "code", type: .string, defaultValue: .string("")),
                                                                AttributeDescription(name: "title", type: .string, defaultValue: .string("")),
                                                                AttributeDescription(name: "seconds", type: .double, defaultValue: .double(0))]),
        ])
        let container = try store.open(flat)
        try Self.insert("Video", code: "v", into: container)
        do {
            _ = try store.reopen(container, Self.media(version: "2"))
            Issue.record("Video became a sub-entity in place")
        } catch let error as KuraError {
            #expect("\(error)".contains("superentity"), "\(error)")
        }
    }
}
