import Kura
@_spi(Fuzzing) import KuraCore

/// The record decoder: the bytes a store reads for an object.
///
/// Properties: the whole-record check (as `check` and `show` run it) and
/// the value-by-value check (as fetches run it) accept exactly the same
/// records and decode the same values; an accepted record encodes again to
/// bytes that decode to those values.
public struct RecordFuzzTarget: FuzzTarget {
    public init() {}

    public var name: String { "record" }

    public var seeds: [[UInt8]] {
        let rows = FuzzModels.rows(count: 24, seed: 3)
        // Records written before later attributes existed hold fewer values.
        return rows.enumerated().map { number, row in
            let isOld = number % 6 == 5
            return FuzzingEntryPoints.encodeRecord(
                Array(row.prefix(isOld ? number % row.count : row.count)),
                references: isOld ? [] : FuzzModels.references(row: number), rowVersion: UInt64(number + 1),
                of: FuzzModels.thing)
        }
    }

    public var dictionary: [[UInt8]] {
        // The tags, fixed-size payloads, and decimal and URL text.
        (0...12).map { [UInt8($0)] } + [
            [UInt8](repeating: 0, count: 8), [UInt8](repeating: 0xFF, count: 8), [UInt8](repeating: 0, count: 16),
            [0, 0, 0xC0, 0x7F], Array("1.25".utf8), Array("-0".utf8), Array("1e999".utf8), Array("NaN".utf8),
            Array("https://example.com/".utf8), Array("%zz".utf8), Array("::".utf8), [0xC3, 0xA9], [0xE8, 0x94, 0xB5], [0xFF, 0xFE],
        ]
    }

    public func generate(using generator: inout SplitMix64) -> [UInt8]? {
        var records = RecordGenerator(generator: generator)
        defer { generator = records.generator }
        return records.record()
    }

    public func run(_ input: [UInt8]) throws(FuzzFailure) -> Bool {
        let entity = FuzzModels.thing
        let whole = Result { try FuzzingEntryPoints.decodeRecord(input, of: entity) }
        let lazy = Result { try FuzzingEntryPoints.decodeRecordLazily(input, of: entity) }
        switch (whole, lazy) {
        case (.failure, .failure):
            return false
        case (.success(let values), .success(let lazyValues)):
            guard values == lazyValues else { throw FuzzFailure("the two decoders read different values: \(values) and \(lazyValues)") }
            let encoded = FuzzingEntryPoints.encodeRecord(values.values, references: values.references, of: entity)
            guard let again = try? FuzzingEntryPoints.decodeRecord(encoded, of: entity) else {
                throw FuzzFailure("the values \(values) encode to a record that does not decode")
            }
            guard again == values else { throw FuzzFailure("the values \(values) decode as \(again) after encoding") }
            return true
        case (.success, .failure(let error)), (.failure(let error), .success):
            throw FuzzFailure("one decoder accepts the record, the other refuses it: \(error)")
        }
    }
}
