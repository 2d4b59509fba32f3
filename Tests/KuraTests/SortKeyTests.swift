import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

/// A fetch sorted by one text attribute compares the texts' bytes (NFC,
/// whose UTF-8 order is the order of their Unicode scalars, `String`'s
/// documented order).
@Suite struct SortKeyTests {
    static let texts: [String?] = [
        "b", "a", nil, "\u{E9}", "e\u{301}", "Zebra", "zebra", "\u{E4}", "a\u{308}b", "", "ab", "a", nil,
        "a long title that is longer than fifteen bytes", "a long title that is longer than fifteen bytez",
        "\u{65E5}\u{672C}\u{8A9E}", "\u{1F600}", "e", "f", "\u{E9}a", "e\u{301}b",
    ]

    @Test(arguments: [true, false])
    func aSortByOneTextIsSwiftsOrderWithNilsAndTiesInInsertionOrder(_ ascending: Bool) throws {
        let store = try TestStore()
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [
                AttributeDescription(name: "text", type: .string, isOptional: true),
                AttributeDescription(name: "order", type: .int64),
            ]),
        ])
        let container = try store.open(model)
        let context = container.newContext()
        for (order, text) in Self.texts.enumerated() {
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue(text.map(AttributeValue.string), forKey: "text")
            try note.setValue(order, forKey: "order")
        }
        try context.save()

        // `String`'s order as documented: the Unicode scalars of the NFC
        // forms, compared one by one. (Swift 6.3's `<` itself isn't a strict
        // order on these: neither "e\u{301}" < "\u{E9}a" nor the reverse.)
        // Nils first ascending (last descending); equal texts, canonically
        // equivalent ones too, in the order they were saved.
        func scalars(_ text: String) -> [UInt32] { text.precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value) }
        let expected = Self.texts.indices.sorted { a, b in
            switch (Self.texts[a].map(scalars), Self.texts[b].map(scalars)) {
            case (nil, nil): return a < b
            case (nil, _): return ascending
            case (_, nil): return !ascending
            case (let x?, let y?):
                if x == y { return a < b }
                return ascending ? x.lexicographicallyPrecedes(y) : y.lexicographicallyPrecedes(x)
            }
        }
        let fetched = try container.newContext().fetch(FetchRequest(entityName: "Note").sorted(by: "text", ascending: ascending))
        let orders = try fetched.map { try $0.value(forKey: "order", as: Int.self) }
        #expect(orders == expected, "\(orders.map { Self.texts[$0] ?? "nil" }) against \(expected.map { Self.texts[$0] ?? "nil" })")
    }

    /// Sorted rows are put in order by swaps along the order's cycles:
    /// every permutation (identity, reversal, one long cycle, random ones)
    /// must give what copying each row to its place gives.
    @Test func arrangingRowsInAnOrderPutsEachWhereTheOrderSays() {
        var generator = SplitMix64(seed: 15)
        var orders: [[Int]] = [[], [0], Array(0..<7), Array((0..<9).reversed()), Array(1..<40) + [0]]
        for count in [2, 3, 5, 16, 100, 1000] {
            for _ in 0..<5 { orders.append(Array(0..<count).shuffled(using: &generator)) }
        }
        for order in orders {
            let rows = order.indices.map { "row \($0)" }
            var arranged = rows
            RowOrdering.arrange(&arranged, in: order)
            #expect(arranged == order.map { rows[$0] }, "order \(order)")
        }
    }
}
