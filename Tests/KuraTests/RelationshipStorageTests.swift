import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// One type per relationship storage kind (`RelationshipStorage`): the
/// model's relationships get their kinds and spaces, and each kind reads
/// back, for a migration, exactly the members its faults read.
@Suite struct RelationshipStorageTests {
    @Test func eachRelationshipGetsItsKindAndItsSpaces() throws {
        let model = try RelationshipCheckTests.model()
        let person = try #require(model.entity(named: "Person"))
        let club = try #require(model.entity(named: "Club"))
        let passport = try #require(model.entity(named: "Passport"))
        func kind(_ entity: EntityDescription, _ name: String) throws -> String {
            let link = try #require(entity.links.first { $0.name == name })
            return "\(link.storageType): " + link.spaceNames.map { "\($0.name) (\($0.part))" }.joined(separator: ", ")
        }
        #expect(try kind(person, "passport") == "ToOneReferences: kura.ref.Person.passport (references)")
        #expect(try kind(passport, "holder") == "ToOneReferences: kura.ref.Passport.holder (references)")
        #expect(try kind(person, "clubs") == "JoinedMembers: kura.join.Person.clubs (members)")
        #expect(try kind(club, "members") == "JoinedMembers: kura.join.Club.members (members)")
        #expect(try kind(person, "favorites") == """
            JoinedMembers: kura.join.Person.favorites (members), kura.rjoin.Person.favorites (members, reverse), \
            kura.order.Person.favorites (order)
            """)
        let ordered = try ManagedObjectModel(entities: [
            EntityDescription(name: "List", attributes: [], relationships: [.toMany("items", destination: "Item", inverse: "list", isOrdered: true)]),
            EntityDescription(name: "Item", attributes: [], relationships: [.toOne("list", destination: "List")]),
        ])
        let list = try #require(ordered.entity(named: "List"))
        #expect(try kind(list, "items") == "InverseReferences: kura.order.List.items (order)")
        // Only a joined to-many writes its members itself; a to-many of a to-one's inverse is that to-one's entries.
        #expect(try #require(person.links.first { $0.name == "clubs" }).storageType.keepsMemberEntries)
        #expect(!(try #require(list.links.first { $0.name == "items" }).storageType.keepsMemberEntries))
        #expect(!(try #require(person.links.first { $0.name == "passport" }).storageType.keepsMemberEntries))
        for entity in model.entities + ordered.entities {
            #expect(entity.links.reduce(0) { $0 + $1.spaceNames.count } <= 3 * entity.links.count)
        }
    }

    @Test func everyKindListsForAMigrationTheMembersItsFaultsRead() throws {
        let store = try TestStore(engine: .underTest)
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "List", attributes: [AttributeDescription(name: "name", type: .string, isOptional: true)], relationships: [
                .toMany("items", destination: "Item", inverse: "list", isOrdered: true),
                .toMany("tags", destination: "Item", inverse: "taggedIn"),
                .toMany("picks", destination: "Item", isOrdered: true),
            ]),
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "name", type: .string, isOptional: true)], relationships: [
                .toOne("list", destination: "List"),
                .toMany("taggedIn", destination: "List", inverse: "tags"),
            ]),
        ])
        let container = try store.open(model)
        defer { container.close() }
        let context = container.newContext()
        var lists: [ManagedObject] = []
        var items: [ManagedObject] = []
        for number in 0..<3 { lists.append(try context.insertNewObject(forEntityName: "List")); _ = number }
        for _ in 0..<8 { items.append(try context.insertNewObject(forEntityName: "Item")) }
        // Orders that differ from key order, so a list read ascending would be caught.
        try lists[0].mutableSetValue(forKey: "items").set([items[5], items[1], items[3]])
        try lists[1].mutableSetValue(forKey: "items").set([items[7], items[0]])
        try lists[0].mutableSetValue(forKey: "tags").set([items[2], items[6]])
        try lists[2].mutableSetValue(forKey: "tags").set([items[2]])
        try lists[2].mutableSetValue(forKey: "picks").set([items[4], items[2], items[0]])
        try context.save()
        // A move: item 4 (key) to the front.
        try lists[0].mutableSetValue(forKey: "items").insert(items[3], at: 0)
        try context.save()

        let persistent = container.store
        try persistent.read { txn in
            for entity in model.entities {
                for storage in persistent.spaces(for: entity).relationships {
                    let listed = try storage.allMembers(store: persistent, in: txn)
                    #expect(listed.map(\.owner) == listed.map(\.owner).sorted(), "\(storage.link.name)")
                    for (owner, members) in listed where storage.link.isToMany {
                        #expect(members == (try persistent.memberKeys(of: storage.link, owner: owner, in: txn)),
                                "\(entity.name).\(storage.link.name) of \(owner)")
                    }
                }
            }
            let items = persistent.storage(of: try #require(model.entity(named: "List")?.links.first))
            let first = try items.allMembers(store: persistent, in: txn).first
            #expect(first?.members == [4, 6, 2], "list 1's items as moved: item 4, then 6 and 2")
        }
    }
}
