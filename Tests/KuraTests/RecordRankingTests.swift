import Foundation
import Kura
@testable import KuraCore
import KuraEngineConformance
import KuraTestSupport
import Testing

/// A top-K by an unindexed numeric attribute without a predicate: on an
/// engine that narrows it (PostgreSQL: ranks read on the server) the
/// results are exactly the full sort's first rows, whatever the values
/// (negative, nil, NaN, ties) and the context's unsaved changes.
@Suite struct RecordRankingTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Reading", attributes: [
                AttributeDescription(name: "label", type: .string),
                AttributeDescription(name: "count", type: .int64, isOptional: true),
                AttributeDescription(name: "level", type: .double, isOptional: true),
                AttributeDescription(name: "taken", type: .date, isOptional: true),
                AttributeDescription(name: "small", type: .int16, defaultValue: .int(0)),
            ])
        ])
    }

    static func labels(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { try $0.value(forKey: "label", as: String.self) }
    }

    /// Every top-K (limits 1 to past the end, with offsets, both ways) by
    /// each numeric attribute equals the full sort's first rows.
    static func check(_ context: ManagedObjectContext, _ label: String) throws {
        for key in ["count", "level", "taken", "small"] {
            for ascending in [true, false] {
                var all = FetchRequest(entityName: "Reading").sorted(by: key, ascending: ascending)
                all.allowsIndexes = false
                let full = try labels(try context.fetch(all))
                for (offset, limit) in [(0, 1), (0, 7), (3, 20), (0, 100), (0, 700)] {
                    let top = all.limited(to: limit, offset: offset)
                    let expected = Array(full.dropFirst(offset).prefix(limit))
                    #expect(try labels(try context.fetch(top)) == expected, "\(label): \(key) \(ascending ? "ascending" : "descending") \(offset)+\(limit)")
                }
            }
        }
    }

    @Test func aTopKByAnUnindexedNumberIsTheFullSortsFirstRows() throws {
        let store = try EngineStore(.underTest)
        let container = try store.open(Self.model())
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        var generator = SplitMix64(seed: 2026_11_28)
        for number in 0..<600 {
            let reading = try context.insertNewObject(forEntityName: "Reading")
            try reading.setValue("r\(number)", forKey: "label")
            let pick = Int.random(in: 0..<10, using: &generator)
            // Few distinct values (ties), negatives, extremes, nils, NaN.
            let count: Int64? = pick == 0 ? nil : [Int64.min, -5, -1, 0, 3, 3, 7, 1 << 40, .max][pick - 1]
            try reading.setValue(count.map { .int($0) }, forKey: "count")
            let level: Double? = pick == 1 ? nil : pick == 2 ? .nan : [-.infinity, -2.5, -0.0, 0, 1e-300, 2.5, 2.5, .infinity][pick % 8]
            try reading.setValue(level.map { .double($0) }, forKey: "level")
            let taken: Date? = pick == 3 ? nil : Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -20...20, using: &generator)) * 86_400)
            try reading.setValue(taken.map { .date($0) }, forKey: "taken")
            try reading.setValue(.int(Int64(Int.random(in: -3...3, using: &generator))), forKey: "small")
        }
        try context.save()

        try Self.check(container.newContext(), "stored")
        // Unsaved changes: the best stored ones changed, new ones inserted, some deleted.
        let changing = container.newContext()
        var request = FetchRequest(entityName: "Reading").sorted(by: "count", ascending: false).limited(to: 30)
        request.allowsIndexes = false
        for (position, reading) in try changing.fetch(request).enumerated() {
            if position % 3 == 0 { try reading.setValue(.int(-100), forKey: "count") }
            if position % 3 == 1 { changing.delete(reading) }
        }
        for number in 0..<5 {
            let reading = try changing.insertNewObject(forEntityName: "Reading")
            try reading.setValue("new \(number)", forKey: "label")
            try reading.setValue(.int(Int64(number)), forKey: "count")
            try reading.setValue(.double(Double(number)), forKey: "level")
        }
        try Self.check(changing, "with unsaved changes")
    }

    @Test func anEngineOnAServerSendsOnlyTheRecordsATopKNeeds() throws {
        let store = try EngineStore(.underTest)
        let container = try store.open(Self.model())
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        for number in 0..<1_000 {
            let reading = try context.insertNewObject(forEntityName: "Reading")
            try reading.setValue("r\(number)", forKey: "label")
            try reading.setValue(number % 10 == 0 ? nil : .int(Int64(number % 500)), forKey: "count")
        }
        try context.save()
        let entity = try #require(container.store.model.entity(named: "Reading"))
        let number = try #require(entity.attributes.firstIndex { $0.name == "count" })
        let ranking = try #require(RecordRanking(entity: entity, attribute: number, descending: true, count: 10))
        #expect(RecordRanking(entity: entity, attribute: try #require(entity.attributes.firstIndex { $0.name == "label" }),
                              descending: true, count: 10) == nil, "a string has no rank")
        var sent = 0
        let narrowed = try container.store.engine.storeRead { txn in
            try txn.forEachRanked(in: container.store.spaces(for: entity).records, by: ranking) { _ in sent += 1; return true }
        }
        if store.engine == .postgres {
            // The 10 highest counts are 499 … 495, twice each (ties kept), and the 100 nils.
            #expect(narrowed && sent == 100 + 10, "\(sent) sent")
        } else {
            #expect(!narrowed && sent == 0, "an engine in this process scans")
        }
    }

    @Test func aTopKOfMostlyDistinctValuesIsNarrowedInOnePass() throws {
        let store = try EngineStore(.underTest)
        let container = try store.open(Self.model())
        defer { withExtendedLifetime(store) {} }
        let context = container.newContext()
        var generator = SplitMix64(seed: 2026_11_29)
        // Distinct values but for a few nils, NaNs and ties: the first
        // records by rank hold what a top-K needs, in one statement.
        for number in 0..<1_000 {
            let reading = try context.insertNewObject(forEntityName: "Reading")
            try reading.setValue("r\(number)", forKey: "label")
            let rare = number % 97 == 0
            try reading.setValue(rare ? nil : .int(Int64.random(in: -1_000_000...1_000_000, using: &generator)), forKey: "count")
            try reading.setValue(.double(rare ? .nan : Double.random(in: -1e9...1e9, using: &generator)), forKey: "level")
            try reading.setValue(rare ? nil : .date(Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &generator))), forKey: "taken")
            try reading.setValue(.int(Int64(number % 2_000 - 1_000)), forKey: "small")
        }
        try context.save()
        try Self.check(container.newContext(), "distinct")

        let entity = try #require(container.store.model.entity(named: "Reading"))
        let number = try #require(entity.attributes.firstIndex { $0.name == "count" })
        for descending in [true, false] {
            let ranking = try #require(RecordRanking(entity: entity, attribute: number, descending: descending, count: 10))
            var sent = 0
            let narrowed = try container.store.engine.storeRead { txn in
                try txn.forEachRanked(in: container.store.spaces(for: entity).records, by: ranking) { _ in sent += 1; return true }
            }
            if store.engine == .postgres {
                // The first 74 by rank (10 asked, 64 of room): the 11 nils among them.
                #expect(narrowed && sent == 74, "\(sent) sent")
            } else {
                #expect(!narrowed && sent == 0, "an engine in this process scans")
            }
        }
    }
}
