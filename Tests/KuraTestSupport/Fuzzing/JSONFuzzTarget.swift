import Foundation
@_spi(Fuzzing) import KuraCore

/// Kura's JSON reader for `Codable` attributes, with Foundation's
/// `JSONDecoder` as the oracle: for every input, both decode the same value
/// or both refuse it (Kura's reader is tried first when a value is read, and
/// what it accepts is never checked by `JSONDecoder`).
public struct JSONFuzzTarget: FuzzTarget {
    public init() {}

    public var name: String { "json" }

    /// A value with the shapes a `Codable` attribute has.
    public struct Shape: Codable, Equatable, Sendable {
        var name: String
        var count: Int
        var ratio: Double
        var small: Float?
        var flag: Bool
        var tags: [String]
        var numbers: [Int64]
        var nested: Nested?
        var byName: [String: Int]
        var when: Date?
        var bytes: Data?
        var price: Decimal?

        struct Nested: Codable, Equatable, Sendable {
            var text: String
            var levels: [[Int]]
        }
    }

    private static let values: [Shape] = [
        Shape(name: "kura", count: 1, ratio: 0.5, small: 1.5, flag: true, tags: ["a", "b\"c", "蔵"], numbers: [0, -1, .max],
              nested: .init(text: "line\nbreak\u{1}", levels: [[1, 2], []]), byName: ["x": 1, "é": 2], when: Date(timeIntervalSinceReferenceDate: 3.25),
              bytes: Data([0, 1, 255]), price: Decimal(string: "12.50")),
        Shape(name: "", count: .min, ratio: .infinity, small: nil, flag: false, tags: [], numbers: [], nested: nil, byName: [:],
              when: nil, bytes: nil, price: nil),
        Shape(name: "\u{10FFFF}\\/", count: 0, ratio: -0.0, small: .nan, flag: true, tags: ["\u{0}"], numbers: [7], nested: .init(text: "", levels: [[]]),
              byName: ["": 0], when: Date(timeIntervalSinceReferenceDate: -1e9), bytes: Data(), price: Decimal(-1)),
    ]

    public var seeds: [[UInt8]] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return Self.values.map { Array(try! encoder.encode($0)) }
    }

    public var dictionary: [[UInt8]] {
        [
            "{", "}", "[", "]", ":", ",", "\"", "\\", "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\u00e9", "\\/", "null", "true",
            "false", "0", "-0", "01", "1.", ".5", "1e400", "-1e-400", "1E+2", "18446744073709551616", "9223372036854775808", "NaN",
            "\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "\u{FEFF}", " ", "\t", "\n", "\r", "\u{0B}", "\u{C0}\u{80}", "\"name\"",
            "\"count\"", "\"ratio\"", "\"tags\"", "\"nested\"", "\"levels\"", "\"byName\"", "\"when\"", "\"bytes\"", "\"price\"",
        ].map { Array($0.utf8) } + [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF], [0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]
    }

    public func run(_ input: [UInt8]) throws(FuzzFailure) -> Bool {
        let kura = Result { try FuzzingEntryPoints.decodeJSON(Shape.self, from: input) }
        let foundation = Result { try FuzzingEntryPoints.decodeJSONWithFoundation(Shape.self, from: input) }
        switch (kura, foundation) {
        case (.success(let mine), .success(let theirs)):
            guard Self.same(mine, theirs) else { throw FuzzFailure("decoded otherwise than JSONDecoder: \(mine) / \(theirs)") }
            return true
        case (.success(let mine), .failure(let error)):
            throw FuzzFailure("accepted what JSONDecoder refuses (\(error)): \(mine)")
        case (.failure, _):
            // Kura's reader refusing is safe: JSONDecoder reads it then.
            return false
        }
    }

    /// Equal, NaN included (a NaN `Float` is the same as another).
    private static func same(_ a: Shape, _ b: Shape) -> Bool {
        var (a, b) = (a, b)
        if a.small?.isNaN == true && b.small?.isNaN == true { (a.small, b.small) = (0, 0) }
        if a.ratio.isNaN && b.ratio.isNaN { (a.ratio, b.ratio) = (0, 0) }
        return a == b && a.ratio.sign == b.ratio.sign
    }
}
