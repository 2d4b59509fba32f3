import Foundation
@testable import KuraCore
import Testing

/// Kura's own JSON reading of Codable attributes (``JSONSpanDecoder``) reads
/// what `JSONEncoder` wrote as `JSONDecoder` does.
@Suite struct JSONSpanDecoderTests {
    enum Shape: Codable, Hashable {
        case circle(radius: Double)
        case polygon([Double], closed: Bool)
        case empty
    }

    final class Base: Codable {
        var name = "base"
    }

    struct Everything: Codable, Hashable {
        var text: String
        var escaped: String
        var flag: Bool
        var small: Int8
        var big: UInt64
        var negative: Int
        var double: Double
        var float: Float
        var notANumber: Double
        var infinite: Float
        var decimal: Decimal
        var date: Date
        var data: Data
        var url: URL
        var uuid: UUID
        var optional: String?
        var missing: Int?
        var shapes: [Shape]
        var byName: [String: Int]
        var byNumber: [Int: String]
        var nested: [[String?]]
    }

    static let sample = Everything(
        text: "Kyōto 京都", escaped: "quote \" backslash \\ tab \t newline \n nul-ish \u{1} emoji 🍵 slash /",
        flag: true, small: -128, big: .max, negative: -42, double: 0.1 + 0.2, float: 3.14159, notANumber: .nan,
        infinite: -.infinity, decimal: Decimal(string: "12345.6789")!, date: Date(timeIntervalSinceReferenceDate: 1_234.5),
        data: Data([0, 1, 2, 250, 255]), url: URL(string: "https://example.com/a%20b?q=1")!,
        uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, optional: "here", missing: nil,
        shapes: [.circle(radius: 2), .polygon([1, 2.5], closed: true), .empty],
        byName: ["b": 2, "a": 1], byNumber: [3: "three", -1: "minus one"], nested: [["x", nil], []])

    static func bytes<Value: Encodable>(_ value: Value) -> Data {
        JSONAttributeCoding.encode(value)
    }

    static func treeDecoded<Value: Decodable>(_ type: Value.Type, _ data: Data) throws -> Value {
        try data.withUnsafeBytes { try JSONSpanDecoder.decode(type, from: $0) }
    }

    @Test func everythingJSONEncoderWritesReadsBackAsJSONDecoderReadsIt() throws {
        let data = Self.bytes(Self.sample)
        let tree = try Self.treeDecoded(Everything.self, data)
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        let foundation = try decoder.decode(Everything.self, from: data)
        // (NaN is unequal to itself: compare it apart.)
        #expect(tree.notANumber.isNaN && foundation.notANumber.isNaN)
        var comparable = tree
        comparable.notANumber = 0
        var expected = foundation
        expected.notANumber = 0
        #expect(comparable == expected)
        var sample = Self.sample
        sample.notANumber = 0
        #expect(comparable == sample)
        #expect(try Self.treeDecoded(Base.self, Self.bytes(Base())).name == "base")
    }

    @Test func whitespaceEscapesAndNumbersFollowTheGrammar() throws {
        let written = Data(#" { "text" : "a\u00e9\ud83c\udf75\/" , "values" : [ 1 , -0.5e2 , 2E+1 , 0 ] } "#.utf8)
        struct Loose: Decodable { let text: String; let values: [Double] }
        let loose = try Self.treeDecoded(Loose.self, written)
        #expect(loose.text == "aé🍵/" && loose.values == [1, -50, 20, 0])
        // An integer written with an exponent or a fraction is JSONDecoder's to read, by its rules.
        let unusual = Data("[1e3, 2.0]".utf8)
        #expect(throws: (any Error).self) { try Self.treeDecoded([Int].self, unusual) }
        #expect(JSONAttributeCoding.decode([Int].self, from: unusual) == (try? JSONDecoder().decode([Int].self, from: unusual)))
        // A lone surrogate, and invalid UTF-8 in a key no property reads, make no document (as for JSONDecoder).
        #expect(throws: (any Error).self) { try Self.treeDecoded([String].self, Data(#"["\udc00"]"#.utf8)) }
        #expect(throws: (any Error).self) { try Self.treeDecoded([String: Int].self, Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) }
        #expect(try Self.treeDecoded([String: Int].self, Data(#"{"a\"b": 1, "\u00e9": 2}"#.utf8)) == ["a\"b": 1, "é": 2])
        struct Escaped: Decodable { let café: Int }
        #expect(try Self.treeDecoded(Escaped.self, Data(#"{"caf\u00e9": 3}"#.utf8)).café == 3)
        #expect(try Self.treeDecoded(Int64.self, Data("-9223372036854775808".utf8)) == .min)
        #expect(throws: (any Error).self) { try Self.treeDecoded(Int64.self, Data("9223372036854775808".utf8)) }
        for bad in ["", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"open", "[1] 2", "\"bad \\x\"", "\"\u{1}\"", "tru", "{\"a\":1,}", "\"\\ud83c\""] {
            #expect(throws: (any Error).self, "\(bad)") { try Self.treeDecoded([Int].self, Data(bad.utf8)) }
        }
        #expect(throws: (any Error).self) { try Self.treeDecoded(Int8.self, Data("300".utf8)) }
        #expect(throws: (any Error).self) { try Self.treeDecoded(Int.self, Data("1.5".utf8)) }
        #expect(throws: (any Error).self) { try Self.treeDecoded(String.self, Data([0x22, 0xFF, 0x22])) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: (any Error).self) { try Self.treeDecoded([Int].self, Data(deep.utf8)) }
    }

    @Test func jsonThatIsNoValueOfTheTypeIsNil() throws {
        #expect(JSONAttributeCoding.decode(Everything.self, from: Data("{\"text\": 1}".utf8)) == nil)
        #expect(JSONAttributeCoding.decode([Int].self, from: Data("[1, \"two\"]".utf8)) == nil)
        #expect(JSONAttributeCoding.decode([Int].self, from: Data("[1, 2]".utf8)) == [1, 2])
    }
}
