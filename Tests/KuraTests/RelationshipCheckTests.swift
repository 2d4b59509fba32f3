import Foundation
import Kura
import KuraLMDB
import KuraTestSupport
import Testing

/// `check()` finds every kind of damage to relationship entries: each test
/// saves a small graph through a context, damages one database with raw
/// LMDB writes, and expects the problem named.
@Suite struct RelationshipCheckTests {
    /// Ann (Person 1) holds Passport 1, Bob (Person 2) Passport 2; Ann is in
    /// the chess (Club 1) and go (Club 2) clubs, Bob in chess; Ann's ordered
    /// favorites (no inverse) are go, then chess.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                .toOne("passport", destination: "Passport", inverse: "holder"),
                .toMany("clubs", destination: "Club", inverse: "members"),
                .toMany("favorites", destination: "Club", isOrdered: true),
            ]),
            EntityDescription(name: "Passport", attributes: [AttributeDescription(name: "number", type: .string)],
                              relationships: [.toOne("holder", destination: "Person")]),
            EntityDescription(name: "Club", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("members", destination: "Person")]),
        ])
    }

    /// Saves the graph, applies `damage` to the closed file, and returns
    /// what `check()` reports on reopening. On LMDB whatever the suite's
    /// engine: the damage is written to the file.
    func report(function: String = #function, damage: (Environment) throws -> Void) throws -> StoreCheckReport {
        let store = try TestStore(engine: .lmdb, function: function)
        do {
            let container = try store.open(Self.model())
            let context = container.newContext()
            func make(_ entity: String, _ key: String, _ value: String) throws -> ManagedObject {
                let object = try context.insertNewObject(forEntityName: entity)
                try object.setValue(value, forKey: key)
                return object
            }
            let ann = try make("Person", "name", "Ann")
            let bob = try make("Person", "name", "Bob")
            try ann.setObject(try make("Passport", "number", "P1"), forKey: "passport")
            try bob.setObject(try make("Passport", "number", "P2"), forKey: "passport")
            let chess = try make("Club", "name", "chess")
            let go = try make("Club", "name", "go")
            try ann.mutableSetValue(forKey: "clubs").set([chess, go])
            try bob.mutableSetValue(forKey: "clubs").insert(chess)
            try ann.mutableSetValue(forKey: "favorites").set([go, chess])
            try context.save()
            #expect([ann, bob, chess, go].map(\.objectID.primaryKey) == [1, 2, 1, 2])
            container.close()
        }
        let environment = try Environment(path: store.path)
        try damage(environment)
        environment.close()
        let container = try store.open(Self.model())
        defer { container.close() }
        return try container.store.check()
    }

    static func key(_ key: UInt64) -> [UInt8] { withUnsafeBytes(of: key.bigEndian, Array.init) }
    static func pair(_ first: UInt64, _ second: UInt64) -> [UInt8] { key(first) + key(second) }

    func write(_ environment: Environment, _ name: String, _ body: (Database, borrowing Transaction) throws -> Void) throws {
        let database = try #require(try environment.database(named: name))
        try environment.write { txn in try body(database, txn) }
    }

    @Test func anUndamagedGraphIsConsistentAndItsEntriesAreCounted() throws {
        let report = try report { _ in }
        #expect(report.isConsistent, "\(report.problems)")
        let person = try #require(report.entities.first { $0.entity == "Person" })
        #expect(person.relationshipEntries == ["passport": 2, "clubs": 3, "favorites": 2])
        #expect(report.entities.first { $0.entity == "Club" }?.relationshipEntries == ["members": 3])
    }

    @Test func aReferenceWithoutItsIndexEntryIsFound() throws {
        let report = try report { environment in
            try write(environment, "kura.ref.Person.passport") { database, txn in
                let deleted = try database.delete(Self.pair(1, 1), in: txn)
                #expect(deleted)
            }
        }
        #expect(report.problems.contains("Person.passport: 1 references have no index entry"), "\(report.problems)")
    }

    @Test func anIndexEntryNoRecordHoldsIsFound() throws {
        let report = try report { environment in
            try write(environment, "kura.ref.Person.passport") { database, txn in
                try database.put([], forKey: Self.pair(2, 1), in: txn)
            }
        }
        #expect(report.problems.contains("Person.passport: an index entry names a reference no record holds"), "\(report.problems)")
    }

    @Test func oneToOneSidesThatDisagreeAreFound() throws {
        // Swap Ann's and Bob's records: Person 2 now points to Passport 1, whose holder is Person 1.
        let report = try report { environment in
            try write(environment, "kura.records.Person") { database, txn in
                let ann = try #require(try database.value(forKey: Self.key(1), in: txn))
                let bob = try #require(try database.value(forKey: Self.key(2), in: txn))
                try database.put(bob, forKey: Self.key(1), in: txn)
                try database.put(ann, forKey: Self.key(2), in: txn)
            }
        }
        #expect(report.problems.contains("Person.passport of record 2 points to Passport 1, whose holder points to 1"), "\(report.problems)")
    }

    @Test func membersAndOwnersThatDontExistAreFound() throws {
        let report = try report { environment in
            try write(environment, "kura.records.Club") { database, txn in
                let deleted = try database.delete(Self.key(2), in: txn)
                #expect(deleted)
            }
            try write(environment, "kura.join.Person.clubs") { database, txn in
                try database.put([], forKey: Self.pair(7, 1), in: txn)
            }
        }
        #expect(report.problems.contains("Person.clubs of record 1 points to Club 2, which doesn't exist"), "\(report.problems)")
        #expect(report.problems.contains("Person.favorites of record 1 points to Club 2, which doesn't exist"))
        #expect(report.problems.contains("Person.clubs: an entry names record 7, which doesn't exist"))
    }

    @Test func aManyToManyHeldOnOneSideOnlyIsFound() throws {
        let report = try report { environment in
            try write(environment, "kura.join.Club.members") { database, txn in
                let deleted = try database.delete(Self.pair(1, 2), in: txn)
                #expect(deleted)
            }
        }
        #expect(report.problems.contains("Person.clubs: record 2 holds Club 1, but the other side doesn't hold it"), "\(report.problems)")
    }

    @Test func aMissingReverseEntryOfAToManyWithoutInverseIsFound() throws {
        let report = try report { environment in
            try write(environment, "kura.rjoin.Person.favorites") { database, txn in
                let deleted = try database.delete(Self.pair(1, 1), in: txn)
                #expect(deleted)
            }
        }
        #expect(report.problems.contains("Person.favorites: record 1 holds Club 1, but the other side doesn't hold it"), "\(report.problems)")
        #expect(report.problems.contains("Person.favorites: its reverse entries don't match its entries"))
    }

    /// The order entries of Ann's favorites: (tag, order key or member key, value).
    func orderEntries(_ environment: Environment) throws -> [(key: [UInt8], value: [UInt8])] {
        let database = try #require(try environment.database(named: "kura.order.Person.favorites"))
        return try environment.read { txn in
            var entries: [(key: [UInt8], value: [UInt8])] = []
            try database.forEach(in: txn, range: .prefix(Self.key(1))) { entries.append((Array($0.key), Array($0.value))); return true }
            return entries
        }
    }

    @Test func anOrderThatDoesNotListTheMembersIsFound() throws {
        let report = try report { environment in
            let entries = try orderEntries(environment)
            // Two members, two entries each: go, then chess, in order; then their positions.
            #expect(entries.map { $0.key.count } == [17, 17, 17, 17])
            #expect(entries.prefix(2).map(\.value) == [Self.key(2), Self.key(1)])
            try write(environment, "kura.order.Person.favorites") { database, txn in
                let deleted = [try database.delete(entries[1].key, in: txn), try database.delete(Self.key(1) + [1] + Self.key(1), in: txn)]
                #expect(deleted == [true, true])
            }
        }
        #expect(report.problems.contains("Person.favorites: the order of record 1 lists 1 members, its entries 2"), "\(report.problems)")
    }

    @Test func anOrderWhosePositionsDisagreeWithItsSequenceIsFound() throws {
        let report = try report { environment in
            try write(environment, "kura.order.Person.favorites") { database, txn in
                try database.put(Self.key(12345), forKey: Self.key(1) + [1] + Self.key(1), in: txn)
            }
        }
        #expect(report.problems.contains("Person.favorites: the order of record 1 has 2 members in order, 2 positions, 1 agreeing"),
                "\(report.problems)")
    }

    @Test func aMalformedOrderEntryIsFound() throws {
        let report = try report { environment in
            try write(environment, "kura.order.Person.favorites") { database, txn in
                try database.put(Self.key(2), forKey: Self.key(1), in: txn)  // a list, as format 4 kept them
            }
        }
        #expect(report.problems.contains("Person.favorites: 1 order entries are malformed"), "\(report.problems)")
    }
}
