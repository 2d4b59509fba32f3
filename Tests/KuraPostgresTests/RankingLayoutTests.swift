// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import Kura
@testable import KuraCore
@testable import KuraPostgres
import KuraTestSupport
import Testing

/// The server reads a record's rank by KuraCore's description of the record
/// format (``RecordRanking/Layout``), and by nothing of its own: records laid
/// out otherwise, and described so, are ranked as well. An offset of the
/// format written into KuraPostgres would misread them.
@Suite struct RankingLayoutTests {
    /// A layout unlike Kura's in every number.
    static let shifted = RecordRanking.Layout(fieldCountOffset: 5, fieldCountWidth: 2, endTableOffset: 23, endWidth: 4, payloadWidth: 8)

    /// A record of `layout` with two integer fields: `id`, then `rank`.
    static func record(id: Int64, rank: Int64, layout: RecordRanking.Layout) -> [UInt8] {
        func littleEndian(_ value: UInt64, width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes = [UInt8](repeating: 0xEE, count: layout.endTableOffset)
        bytes.replaceSubrange(layout.fieldCountOffset..<(layout.fieldCountOffset + layout.fieldCountWidth), with: littleEndian(2, width: layout.fieldCountWidth))
        let valueWidth = 1 + layout.payloadWidth
        bytes += littleEndian(UInt64(valueWidth), width: layout.endWidth) + littleEndian(UInt64(2 * valueWidth), width: layout.endWidth)
        for value in [id, rank] {
            bytes += [RecordFormat.Tag.int.rawValue] + littleEndian(UInt64(bitPattern: value), width: layout.payloadWidth)
        }
        return bytes
    }

    @Test func recordsOfAnotherLayoutDescribedSoAreRankedOnTheServer() throws {
        let url = try PostgresTestServer.shared.get().newDatabase()
        let engine = try PostgresEngine(servers: PostgresURL.servers(url))
        defer { engine.close() }
        var generator = SplitMix64(seed: 20_261_202)
        let ranks = (0..<300).map { _ in Int64(generator.next() % 1_000) }
        try engine.write { txn in
            let space = try txn.createSpace(named: "records")
            for (id, rank) in ranks.enumerated() {
                try Self.record(id: Int64(id), rank: rank, layout: Self.shifted).withUnsafeBytes { value in
                    try StoreLayout.key(UInt64(id + 1)).withUnsafeBytes { try txn.put(value, forKey: $0, in: space, flags: []) }
                }
            }
        }
        let ranking = RecordRanking(field: 1, tag: RecordFormat.Tag.int.rawValue, descending: true, count: 10, layout: Self.shifted)
        var sent: [Int64] = []
        let narrowed = try engine.read { txn in
            let space = try #require(try txn.openSpace(named: "records"))
            return try #require(txn as? PostgresTransaction).forEachRanked(in: space, by: ranking) { entry in
                let value = Array(entry.value)
                let payload = value.count - Self.shifted.payloadWidth
                sent.append(Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(value[payload + $1]) << (8 * $1) }))
                return true
            }
        }
        #expect(narrowed)
        let topTen = Array(ranks.sorted(by: >).prefix(10))
        #expect(Set(sent).isSuperset(of: topTen), "the server sent \(sent.sorted(by: >).prefix(12)), the top ten are \(topTen)")
        #expect(sent.count < ranks.count / 2, "the server sent \(sent.count) of \(ranks.count) records")
    }
}
#endif
