import Foundation
@testable import KuraCore
import Kura
import Testing

/// Sub-entities (`class Video: Medium`): the model, fetches of a
/// superentity, indexes and unique constraints across a family,
/// relationships to a superentity, and a reopen.
@Suite struct EntityInheritanceTests {
    /// A store with `count` media: videos, clips and tracks in turn, with
    /// ranks that repeat every 10.
    static func filled(_ count: Int, function: String = #function) throws -> (EngineStore, PersistentContainer) {
        let store = try EngineStore(.underTest, function: function)
        let container = try store.open(.library())
        let context = container.newContext()
        for number in 0..<count {
            let medium: Medium = switch number % 3 {
            case 0: Video(context: context)
            case 1: Clip(context: context)
            default: Track(context: context)
            }
            medium.code = "m\(number)"
            medium.rank = number % 10
            medium.title = "title \(number)"
        }
        try context.save()
        return (store, container)
    }

    @Test func aSubclassOfAnEntityClassIsItsSubEntity() throws {
        let model = try ManagedObjectModel.library()
        let medium = try #require(model.entity(named: "Medium"))
        let video = try #require(model.entity(named: "Video"))
        let clip = try #require(model.entity(named: "Clip"))
        #expect(medium.isAbstract && !video.isAbstract)
        #expect(video.superentity === medium && clip.superentity === video && medium.superentity == nil)
        #expect(medium.subentities.map(\.name) == ["Video", "Track"])
        #expect(clip.isKind(of: medium) && !medium.isKind(of: clip))
        #expect(clip.attributes.map(\.name) == ["code", "rank", "title", "seconds", "source"])
        #expect(clip.relationships.map(\.name) == ["rack", "notes", "sequel"])
        #expect(Set(clip.indexes.map(\.name)) == Set(medium.indexes.map(\.name)))
    }

    class Base: ManagedObject {
        @Attribute var shared: String = ""
    }

    final class Derived: Base {
        @Attribute var own: Int = 0
    }

    final class Flat: Base {
        override class var superentityName: String? { nil }
        @Attribute var own: Int = 0
    }

    @Test func aModelWithoutTheSuperclassesEntityMakesTheSubclassARoot() throws {
        let both = try ManagedObjectModel(Base.self, Derived.self, Flat.self)
        #expect(both.entity(named: "Derived")?.superentity?.name == "Base")
        #expect(both.entity(named: "Flat")?.superentity == nil)
        let alone = try ManagedObjectModel(Derived.self)
        let derived = try #require(alone.entity(named: "Derived"))
        #expect(derived.superentity == nil && derived.attributes.map(\.name) == ["shared", "own"])
    }

    @Test func aSubEntityMustBeginWithItsSuperentitysProperties() throws {
        let base = try EntityDescription(name: "Base", attributes: [AttributeDescription(name: "a", type: .string)])
        let wrong = try EntityDescription(name: "Wrong", attributes: [AttributeDescription(name: "b", type: .string)],
                                          relationships: [], indexes: [], managedObjectClass: ManagedObject.self,
                                          inverseResolvers: [:], superentityName: "Base")
        #expect(throws: KuraError.self) { try ManagedObjectModel(entities: [base, wrong]) }
        let orphan = try EntityDescription(name: "Orphan", superentity: base, isAbstract: false, attributes: [])
        #expect(throws: KuraError.self) { try ManagedObjectModel(entities: [orphan]) }
    }

    @Test func anAbstractEntityHasNoObjectsOfItsOwn() throws {
        let store = try TestStore()
        let container = try store.open(.library())
        #expect(throws: KuraError.self) { try container.newContext().insertNewObject(forEntityName: "Medium") }
    }

    @Test func aFetchOfTheSuperentityReturnsEveryMembersObjectsAsTheirClass() throws {
        let (store, container) = try Self.filled(30)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let all = try context.fetch(FetchRequest<Medium>())
        #expect(all.count == 30)
        #expect(all.filter { $0 is Clip }.count == 10 && all.filter { $0 is Track }.count == 10)
        #expect(all.filter { type(of: $0) == Video.self }.count == 10)
        #expect(Set(all.map(\.code)) == Set((0..<30).map { "m\($0)" }))
        // Video includes its Clips, unless asked not to.
        #expect(try context.fetch(FetchRequest<Video>()).count == 20)
        var own = FetchRequest<Video>()
        own.includesSubentities = false
        #expect(try context.fetch(own).count == 10)
        #expect(try context.count(for: FetchRequest<Medium>()) == 30)
        #expect(try context.count(for: own) == 10)
        #expect(try context.fetchObjectIDs(FetchRequest<Medium>()).map(\.entity.name).filter { $0 == "Track" }.count == 10)
    }

    /// The superentity's fetch, checked against a brute-force filter of
    /// every object, with unsaved inserts, changes and deletions of each member.
    @Test func aSuperentityFetchMatchesBruteForceWithUnsavedChanges() throws {
        let (store, container) = try Self.filled(60)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let clip = Clip(context: context)
        clip.code = "new clip"
        clip.rank = 3
        let track = Track(context: context)
        track.code = "new track"
        track.rank = 7
        let stored = try context.fetch(FetchRequest<Medium>().sorted(by: "code"))
        stored[0].rank = 3             // a video now matches rank == 3
        context.delete(stored[1])     // a clip gone
        stored[2].title = "changed"

        let everything = try context.fetch(FetchRequest<Medium>())
        let byRankThenCode: (Medium, Medium) -> Bool = { ($0.rank, $0.code) < ($1.rank, $1.code) }
        let cases: [(FetchRequest<Medium>, (Medium) -> Bool, ((Medium, Medium) -> Bool)?)] = [
            (FetchRequest<Medium>(predicate: try FetchPredicate(format: "rank == 3")), { $0.rank == 3 }, nil),
            (FetchRequest<Medium>(predicate: try FetchPredicate(format: "rank >= 5 AND title BEGINSWITH 'title'"))
                .sorted(by: "rank", ascending: false).sorted(by: "code"),
             { $0.rank >= 5 && $0.title.hasPrefix("title") }, { ($1.rank, $0.code) < ($0.rank, $1.code) }),
            (FetchRequest<Medium>(predicate: try FetchPredicate(format: "code IN {'m1', 'm2', 'new clip', 'new track'}")),
             { ["m1", "m2", "new clip", "new track"].contains($0.code) }, nil),
            (FetchRequest<Medium>().sorted(by: "rank").sorted(by: "code").limited(to: 7, offset: 4), { _ in true }, byRankThenCode),
        ]
        for (request, matches, order) in cases {
            var brute = everything.filter(matches)
            if let order { brute.sort(by: order) }
            let expected = Array(brute.dropFirst(request.fetchOffset).prefix(request.fetchLimit == 0 ? .max : request.fetchLimit))
            let fetched = try context.fetch(request)
            if order == nil {
                #expect(Set(fetched.map(\.code)) == Set(expected.map(\.code)), "\(request)")
            } else {
                #expect(fetched.map(\.code) == expected.map(\.code), "\(request)")
            }
            #expect(try context.count(for: request) == expected.count, "\(request)")
        }
        #expect(!everything.contains { $0 === stored[1] })
        #expect(everything.contains { $0 === clip } && everything.contains { $0 === track })
    }

    @Test func aUniqueConstraintOfTheSuperentityHoldsAcrossItsSubEntities() throws {
        let (store, container) = try Self.filled(3)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let track = Track(context: context)
        track.code = "m0"   // a Video's
        #expect(throws: KuraError.self) { try context.save() }
        #expect(context.hasChanges)
        // A merge policy can't make a Track of a Video: still a violation.
        context.mergePolicy = .mergeByPropertyObjectTrump
        #expect(throws: KuraError.self) { try context.save() }
        track.code = "m99"
        try context.save()
        #expect(try container.store.check().isConsistent)
    }

    @Test func anIndexOfTheSuperentityAnswersForEveryMember() throws {
        let (store, container) = try Self.filled(900)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let request = FetchRequest<Medium>(predicate: try FetchPredicate(format: "rank == 4"))
        let lookup = FetchRequest<Medium>(predicate: try FetchPredicate(format: "code == 'm400'"))
        let plan = try context.explain(lookup).description
        #expect(plan.contains("UNIQUE INDEX code") && plan.contains("SUB-ENTITIES"), "\(plan)")
        #expect(try context.fetch(lookup).map(\.code) == ["m400"])
        #expect(try context.fetch(lookup).first is Clip)
        #expect(try context.fetch(request).count == 90)
        let tracks = FetchRequest<Track>(predicate: try FetchPredicate(format: "rank == 4"))
        #expect(try context.fetch(tracks).allSatisfy { $0.rank == 4 })
        #expect(try context.fetch(tracks).count == 30)
        let byCode = FetchRequest<Clip>(predicate: try FetchPredicate(format: "code == 'm0'"))
        #expect(try context.fetch(byCode).isEmpty)  // m0 is a Video, not a Clip
        #expect(try context.fetch(FetchRequest<Video>(predicate: try FetchPredicate(format: "code == 'm1'"))).first is Clip)
    }

    @Test func aRelationshipToTheSuperentityHoldsAnyMember() throws {
        let (store, container) = try Self.filled(6)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let rack = Rack(context: context)
        rack.name = "front"
        let media = try context.fetch(FetchRequest<Medium>())
        for medium in media { medium.rack = rack }
        rack.featured = media.first { $0 is Track }
        let note = Note(context: context)
        note.text = "good"
        note.subject = media.first { $0 is Clip }
        try context.save()

        let reader = container.newContext()
        let stored = try #require(try reader.first(FetchRequest<Rack>()))
        #expect(stored.media.count == 6)
        #expect(Set(stored.media.map { String(describing: type(of: $0)) }) == ["Video", "Clip", "Track"])
        #expect(stored.featured is Track)
        let storedNote = try #require(try reader.first(FetchRequest<Note>()))
        #expect(storedNote.subject is Clip)
        #expect((storedNote.subject as? Clip)?.notes.count == 1)
        // A predicate through the relationship reads each member's record.
        let onRack = FetchRequest<Medium>(predicate: try FetchPredicate(format: "rack.name == 'front'"))
        #expect(try reader.fetch(onRack).count == 6)
        let aboutClips = FetchRequest<Note>(predicate: try FetchPredicate(format: "subject.code == %@", "m1"))
        #expect(try reader.fetch(aboutClips).count == 1)
        // Cascade from a sub-entity's inherited relationship.
        reader.delete(try #require(storedNote.subject))
        try reader.save()
        #expect(try reader.count(for: FetchRequest<Note>()) == 0)
        #expect(try container.store.check().isConsistent)
    }

    @Test func aStoreWithSubEntitiesSurvivesAReopen() throws {
        let (store, container) = try Self.filled(12)
        let ids = try container.newContext().fetchObjectIDs(FetchRequest<Medium>().sorted(by: "code"))
        let again = try store.reopen(container, .library())
        let context = again.newContext()
        let fetched = try context.fetch(FetchRequest<Medium>().sorted(by: "code"))
        #expect(fetched.map(\.objectID.uriRepresentation) == ids.map(\.uriRepresentation))
        let clip = Clip(context: context)
        clip.code = "after"
        try context.save()
        #expect(try again.store.check().isConsistent)
        // Opened without the app's classes: the stored model has the family.
        if store.engine != .memory { again.close() }
        let plain = try PersistentContainer(store: store.description())
        let stored = try #require(plain.model.entity(named: "Clip"))
        #expect(stored.superentity?.name == "Video" && plain.model.entity(named: "Medium")?.isAbstract == true)
        #expect(try plain.newContext().count(for: FetchRequest(entityName: "Medium")) == 13)
    }
}

extension EntityInheritanceTests {
    @Test func entityInAPredicateNamesOneMemberOfTheFamily() throws {
        let (store, container) = try Self.filled(30)
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        let unsaved = Clip(context: context)
        unsaved.code = "unsaved"
        let videos = try context.fetch(FetchRequest<Medium>(predicate: try FetchPredicate(format: "entity == 'Video'")))
        #expect(videos.count == 10 && videos.allSatisfy { type(of: $0) == Video.self })
        let notTracks = FetchRequest<Medium>(predicate: try FetchPredicate(format: "entity != 'Track' AND rank < 5"))
        #expect(try context.fetch(notTracks).allSatisfy { !($0 is Track) && $0.rank < 5 })
        #expect(try context.count(for: notTracks) == 11)  // 10 stored of rank < 5, and the unsaved clip
        let either = FetchRequest<Medium>(predicate: try FetchPredicate(format: "entity.name IN {'Clip', 'Track'}"))
        #expect(try context.count(for: either) == 21)
        // Through a child context, pending objects are judged by their own entity.
        let child = context.newChildContext()
        #expect(try child.fetch(FetchRequest<Medium>(predicate: try FetchPredicate(format: "entity == 'Clip'"))).count == 11)
        #expect(throws: KuraError.self) { try context.fetch(FetchRequest<Medium>(predicate: try FetchPredicate(format: "entity == 'Rack'"))) }
        #expect(throws: KuraError.self) { try context.fetch(FetchRequest<Medium>(predicate: try FetchPredicate(format: "entity > 'Clip'"))) }
        // A related object's entity: refused, saying what can be tested.
        for format in ["ANY media.entity == 'Track'", "featured.entity == 'Video'", "ANY media.entity.name == 'Clip'"] {
            #expect(throws: KuraError.self, "\(format)") {
                try context.fetch(FetchRequest<Rack>(predicate: try FetchPredicate(format: format)))
            }
            do {
                _ = try context.fetch(FetchRequest<Rack>(predicate: try FetchPredicate(format: format)))
            } catch {
                #expect("\(error)".contains("only the evaluated object's own entity"), "\(error)")
            }
        }
    }
}

extension EntityInheritanceTests {
    @Test(.timeLimit(.minutes(2))) func anObservedFetchOfTheSuperentityHearsOfEverySubEntitysSaves() async throws {
        let (store, container) = try Self.filled(3)
        defer { withExtendedLifetime(store) {} }
        let observer = container.newContext()
        var results = observer.results(for: FetchRequest<Medium>().sorted(by: "code")).makeAsyncIterator()
        let first = try #require(try await results.next())
        #expect(first.objects.map(\.code) == ["m0", "m1", "m2"])
        let writer = container.newContext()
        let clip = Clip(context: writer)
        clip.code = "m3"
        try writer.save()
        let second = try #require(try await results.next())
        #expect(second.objects.map(\.code) == ["m0", "m1", "m2", "m3"])
        #expect(second.difference.inserted == [3])
        let track = try #require(try writer.first(FetchRequest<Track>()))
        track.code = "a"
        try writer.save()
        let third = try #require(try await results.next())
        #expect(third.objects.map(\.code) == ["a", "m0", "m1", "m3"])
    }
}

extension EntityInheritanceTests {
    @Test func batchedFetchesAndPrefetchingLoadEachMemberAsItsClass() throws {
        let (store, container) = try Self.filled(30)
        defer { withExtendedLifetime(store) {} }
        let writer = container.newContext()
        for medium in try writer.fetch(FetchRequest<Medium>()) {
            let note = Note(context: writer)
            note.text = medium.code
            note.subject = medium
        }
        try writer.save()

        let context = container.newContext()
        var request = FetchRequest<Medium>().sorted(by: "code")
        request.fetchBatchSize = 7
        let batched = try context.fetchBatched(request)
        #expect(batched.count == 30)
        #expect(batched.map(\.code) == (0..<30).map { "m\($0)" }.sorted())
        #expect(batched.filter { $0 is Track }.count == 10 && batched.filter { $0 is Clip }.count == 10)

        let reader = container.newContext()
        var notes = FetchRequest<Note>().sorted(by: "text")
        notes.relationshipKeyPathsForPrefetching = ["subject"]
        let fetched = try reader.fetch(notes)
        #expect(fetched.allSatisfy { $0.subject?.code == $0.text })
        #expect(Set(fetched.compactMap { $0.subject.map { String(describing: type(of: $0)) } }) == ["Video", "Clip", "Track"])
    }
}

extension EntityInheritanceTests {
    @Test func otherContextsMergeASubEntitysChangesFromSavesAndFromTheHistory() throws {
        let store = try EngineStore(.underTest)
        var options = StoreOptions()
        options.tracksHistory = true
        let container = try store.open(.library(), options: options)
        let writer = container.newContext()
        let clip = Clip(context: writer)
        clip.code = "c"
        clip.title = "first"
        let track = Track(context: writer)
        track.code = "t"
        try writer.save()

        let reader = container.newContext()
        reader.automaticallyMergesChangesFromParent = true
        let held = try #require(try reader.first(FetchRequest<Medium>(predicate: \.code == "c")) as? Clip)
        let token = try container.store.lastHistoryToken()
        clip.title = "second"
        writer.delete(track)
        try writer.save()
        #expect(try reader.count(for: FetchRequest<Medium>()) == 1)
        #expect(held.title == "second", "merged at the reader's next fetch")

        let history = try container.store.history(after: token)
        let changes = try #require(history.last?.changes)
        #expect(changes.updatedObjectIDs.map(\.entity.name) == ["Clip"])
        #expect(changes.deletedObjectIDs.map(\.entity.name) == ["Track"])
        let other = container.newContext()
        let stale = try #require(try other.first(FetchRequest<Clip>()))
        other.mergeChanges(changes)
        #expect(stale.title == "second")
        #expect(try other.existingObject(with: clip.objectID, as: Clip.self) === stale)
    }
}

/// Objects made below the objects (batch inserts) and outside a context
/// are filed under their own entity, never under their family's root.
@Suite struct SubEntityFilingTests {
    @Test func aBatchInsertIntoASubEntityFilesItsObjectsUnderThatEntity() throws {
        let store = try EngineStore(.underTest)
        let container = try store.open(.library())
        let context = container.newContext()
        let clips = try context.execute(BatchInsertRequest(Clip.self, count: 2) { index, row in
            row.set(\.code, to: "c\(index)")
            row.set(\.source, to: "s\(index)")
        })
        let tracks = try context.execute(BatchInsertRequest(entityName: "Track", objects: [["code": .string("t0")]]))
        #expect(clips.objectIDs.map(\.entity.name) == ["Clip", "Clip"])
        #expect(clips.objectIDs.map(\.uriRepresentation) == ["kura://Clip/1", "kura://Clip/2"])
        #expect(tracks.objectIDs.map(\.uriRepresentation) == ["kura://Track/1"])
        let reader = container.newContext()
        #expect(try reader.fetch(FetchRequest<Clip>()).map(\.code).sorted() == ["c0", "c1"])
        #expect(try reader.count(for: FetchRequest<Video>()) == 2)
        #expect(try reader.count(for: FetchRequest<Medium>()) == 3)
        let first = try reader.existingObject(with: clips.objectIDs[0])
        #expect(type(of: first) == Clip.self)
        #expect((first as? Clip)?.source == "s0")
        #expect(try container.store.check().isConsistent)

        // The batch upsert into a sub-entity finds its own objects.
        context.mergePolicy = .mergeByPropertyObjectTrump
        let again = try context.execute(BatchInsertRequest(Clip.self, count: 2) { index, row in
            row.set(\.code, to: "c\(index + 1)")
            row.set(\.source, to: "again")
        })
        #expect(again.changes.updatedObjectIDs.count == 1 && again.changes.insertedObjectIDs.count == 1)
        #expect(try container.newContext().fetch(FetchRequest<Clip>().sorted(by: \.code)).map(\.source) == ["s0", "again", "again"])
        // Another sub-entity's object with the same unique value is refused, not merged.
        #expect(throws: KuraError.self) {
            try context.execute(BatchInsertRequest(entityName: "Track", objects: [["code": .string("c0")]]))
        }
        #expect(try container.store.check().isConsistent)
    }

    @Test func anObjectMadeOutsideAContextNamesItsOwnEntity() throws {
        let store = try EngineStore(.underTest)
        let container = try store.open(.library())
        let entity = try #require(container.model.entity(named: "Clip"))
        let clip = Clip(entity: entity, insertInto: nil)
        #expect(clip.objectID.entity.name == "Clip")
        let context = container.newContext()
        context.insert(clip)
        clip.code = "c"
        #expect(clip.objectID.entity.name == "Clip")
        try context.save()
        #expect(clip.objectID.uriRepresentation == "kura://Clip/1")
    }

    @Test func checkFindsARecordFiledUnderAnAbstractEntity() throws {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.library())
        let context = container.newContext()
        Clip(context: context).code = "c"
        try context.save()
        let medium = try #require(container.model.entity(named: "Medium"))
        let clip = try #require(container.model.entity(named: "Clip"))
        // File a copy of the clip's record under the abstract root, with the root's tag.
        try container.store.engine.storeWrite { txn in
            let records = try #require(try txn.openSpace(named: StoreLayout.recordsSpaceName(clip)))
            let rootRecords = try #require(try txn.openSpace(named: StoreLayout.recordsSpaceName(medium)))
            let record = try #require(try records.value(forKey: StoreLayout.key(clip.layout.keyTag | 1), in: txn))
            try rootRecords.put(record, forKey: StoreLayout.key(medium.layout.keyTag | 7), in: txn)
        }
        let problems = try container.store.check().problems
        #expect(problems.contains { "\($0)".contains("abstract entity") }, "\(problems)")
    }
}
