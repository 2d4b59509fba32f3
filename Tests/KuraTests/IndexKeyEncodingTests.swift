import Foundation
import Kura
@testable import KuraCore
import KuraTestSupport
import Testing

@Suite struct IndexKeyEncodingTests {
    static func randomValue(_ type: AttributeType, using generator: inout SplitMix64) -> AttributeValue? {
        if Int.random(in: 0..<10, using: &generator) == 0 { return nil }
        let edgeInts: [Int64] = [.min, .min + 1, -256, -1, 0, 1, 255, 256, .max - 1, .max]
        let edgeDoubles: [Double] = [-.infinity, -.greatestFiniteMagnitude, -1, -.leastNonzeroMagnitude, -0.0, 0,
                                     .leastNonzeroMagnitude, 1, .greatestFiniteMagnitude, .infinity, .nan]
        let alphabet: [String] = ["", "a", "b", "ab", "\0", "a\0", "a\0b", "é", "e\u{301}", "Z", "z", "ß", "東", "🚀", "\u{FF}"]
        func text() -> String {
            (0..<Int.random(in: 0...3, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
        }
        switch type {
        case .bool: return .bool(.random(using: &generator))
        case .int16, .int32, .int64:
            return .int(Bool.random(using: &generator) ? edgeInts.randomElement(using: &generator)! : Int64.random(in: -1000...1000, using: &generator))
        case .double:
            return .double(Bool.random(using: &generator) ? edgeDoubles.randomElement(using: &generator)! : Double.random(in: -1e6...1e6, using: &generator))
        case .float: return .float(Float(Double.random(in: -1e3...1e3, using: &generator)))
        case .decimal:
            let texts = ["0", "-0.5", "0.5", "1", "1.2", "1.25", "12", "-12", "-1.25", "-1.2", "99999999999999999999", "0.000001", "-0.000001", "100", "10"]
            return .decimal(Decimal(string: texts.randomElement(using: &generator)!)!)
        case .string: return .string(text())
        case .url: return .url(URL(string: "https://k.dev/" + ["a", "b", "ab", "%C3%A9"].randomElement(using: &generator)!)!)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -5...5, using: &generator)) * 1e8))
        case .uuid:
            return .uuid(UUID(uuidString: ["00000000-0000-0000-0000-000000000000", "FFFFFFFF-0000-0000-0000-000000000000",
                                           "10000000-0000-0000-0000-000000000001"].randomElement(using: &generator)!)!)
        case .data:
            return .data(Data((0..<Int.random(in: 0...3, using: &generator)).map { _ in [0x00, 0x01, 0xFF].randomElement(using: &generator)! }))
        }
    }

    @Test(arguments: AttributeType.allCases)
    func memcmpOrderOfIndexKeysIsTheValueOrder(_ type: AttributeType) {
        var generator = SplitMix64(seed: UInt64(type.rawValue.hashValue & 0xFFFF))
        for _ in 0..<3000 {
            let a = Self.randomValue(type, using: &generator)
            let b = Self.randomValue(type, using: &generator)
            let keyOrder = IndexKeyEncoding.encode([a]).lexicographicallyPrecedes(IndexKeyEncoding.encode([b]))
                ? -1 : (IndexKeyEncoding.encode([a]) == IndexKeyEncoding.encode([b]) ? 0 : 1)
            let valueOrder = AttributeValue.compare(a, b).signum()
            #expect(keyOrder == valueOrder, "\(String(describing: a)) vs \(String(describing: b))")
        }
    }

    @Test func compoundKeysOrderByTheFirstValueThenTheNext() {
        let keys = [
            [AttributeValue.string("a"), .int(2)], [.string("a"), .int(10)], [.string("a\0"), .int(1)],
            [.string("ab"), .int(-1)], [nil, .int(5)], [.string(""), nil],
        ].map { IndexKeyEncoding.encode($0) }
        let sorted = keys.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(sorted == [keys[4], keys[5], keys[0], keys[1], keys[2], keys[3]])
    }

    @Test func equalValuesInDifferentUnicodeFormsGetTheSameKey() {
        #expect(IndexKeyEncoding.encode([.string("é")]) == IndexKeyEncoding.encode([.string("e\u{301}")]))
        #expect(IndexKeyEncoding.encode([.double(-0.0)]) == IndexKeyEncoding.encode([.double(0)]))
        #expect(IndexKeyEncoding.encode([.decimal(Decimal(string: "1.50")!)]) == IndexKeyEncoding.encode([.decimal(Decimal(string: "1.5")!)]))
    }
}
