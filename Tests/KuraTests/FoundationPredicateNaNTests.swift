import Foundation
import Kura
import Testing

final class Reading: ManagedObject {
    @Attribute var label: String = ""
    @Attribute var value: Double = 0
    @Attribute var other: Double = 0
    @Attribute var single: Float = 0
    @Attribute var optional: Double?
    @Attribute var samples: [Double] = []
}

/// Converted `#Predicate`s follow Swift with NaN, as Foundation's own
/// `evaluate` decides: NaN compares false with everything, `!=` true.
@Suite struct FoundationPredicateNaNTests {
    static let values: [Double] = [.nan, -.infinity, -1, -0.0, 0, 1, .infinity]

    static func store() throws -> (TestStore, PersistentContainer) {
        let store = try TestStore()
        let container = try store.open(ManagedObjectModel(Reading.self))
        let context = container.newContext()
        for (position, value) in values.enumerated() {
            for other in values {
                let reading = Reading(context: context)
                reading.label = "\(position) \(other)"
                reading.value = value
                reading.other = other
                reading.single = Float(value)
                reading.optional = position % 3 == 0 ? nil : value
                reading.samples = [other, value]
            }
        }
        try context.save()
        return (store, container)
    }

    @Test func comparisonsWithNaNAnswerWhatSwiftAnswers() throws {
        let (store, container) = try Self.store()
        defer { withExtendedLifetime(store) {} }
        let nan = Double.nan
        let floatNaN = Float.nan
        let listed: [Double] = [1, .nan]
        let (infinity, minusInfinity) = (Double.infinity, -Double.infinity)
        let predicates: [(String, Predicate<Reading>)] = [
            ("== nan", #Predicate { $0.value == nan }),
            ("!= nan", #Predicate { $0.value != nan }),
            ("> -inf", #Predicate { $0.value > minusInfinity }),
            (">= -1", #Predicate { $0.value >= -1 }),
            ("< inf", #Predicate { $0.value < infinity }),
            ("<= 1", #Predicate { $0.value <= 1 }),
            ("< nan", #Predicate { $0.value < nan }),
            ("nan < value", #Predicate { nan < $0.value }),
            ("-1 < value", #Predicate { -1 < $0.value }),
            ("== other", #Predicate { $0.value == $0.other }),
            ("!= other", #Predicate { $0.value != $0.other }),
            ("< other", #Predicate { $0.value < $0.other }),
            ("<= other", #Predicate { $0.value <= $0.other }),
            ("> other", #Predicate { $0.value > $0.other }),
            (">= other", #Predicate { $0.value >= $0.other }),
            ("float > -1", #Predicate { $0.single > -1 }),
            ("float != float nan", #Predicate { $0.single != floatNaN }),
            ("optional == nan", #Predicate { $0.optional == nan }),
            ("optional != nan", #Predicate { $0.optional != nan }),
            ("optional > 0", #Predicate { ($0.optional ?? 0) > 0 }),
            ("value - other > 0", #Predicate { $0.value - $0.other > 0 }),
            ("value * 0 == 0", #Predicate { $0.value * 0 == 0 }),
            ("in list", #Predicate { listed.contains($0.value) }),
            ("samples contain nan", #Predicate { $0.samples.contains(nan) }),
            ("samples contain 1", #Predicate { $0.samples.contains(1) }),
            ("not > 0", #Predicate { !($0.value > 0) }),
        ]
        let context = container.newContext()
        let all = try context.fetch(FetchRequest<Reading>())
        #expect(all.count == Self.values.count * Self.values.count)
        for (name, predicate) in predicates {
            let expected = Set(try all.filter { try predicate.evaluate($0) }.map(\.label))
            let fetched = Set(try context.fetch(FetchRequest<Reading>(predicate: predicate)).map(\.label))
            #expect(fetched == expected, "\(name): \(fetched.symmetricDifference(expected).sorted())")
            // With the objects unsaved too (the context's own evaluation).
            let pending = container.newContext()
            let reading = Reading(context: pending)
            reading.label = "pending"
            reading.value = .nan
            reading.other = .nan
            reading.single = .nan
            reading.optional = .nan
            reading.samples = [.nan]
            let withPending = Set(try pending.fetch(FetchRequest<Reading>(predicate: predicate)).map(\.label))
            let pendingExpected = expected.union(try predicate.evaluate(reading) ? ["pending"] : [])
            #expect(withPending == pendingExpected, "\(name), unsaved: \(withPending.symmetricDifference(pendingExpected).sorted())")
        }
    }
}
