import Foundation
import Kura
@testable import KuraInspect
import KuraTestSupport
import Testing

/// JSON lines read ahead on a thread of their own while the lines before are inserted.
@Suite struct JSONLinesReadingTests {
    @Test func linesReadAheadOnAnotherThreadAreInsertedInOrderAndTheFirstProblemIsNamed() throws {
        let directory = try TemporaryDirectory()
        let store = try PersistentContainer(path: directory.file("store.kura"), model: ExportImportTests.model())
        // Several chunks of lines (JSONLinesReading.chunkSize each), so that reading runs ahead on its own thread.
        let count = JSONLinesReading.chunkSize * 3 + 100
        var lines = (1...count).map { #"{"objectID":"kura://Item/\#($0)","name":"n\#($0)","big":\#($0)}"# }
        func failure(_ lines: [String]) -> String? {
            do {
                _ = try ObjectImport.run(lines.joined(separator: "\n"), format: .jsonl, into: store)
                return nil
            } catch {
                return error.description
            }
        }
        // A bad line in a late chunk is named; so is a problem the inserting side finds on an earlier line.
        var broken = lines
        broken[count - 50] = #"{"name": "x""#
        #expect(failure(broken)?.hasPrefix("line \(count - 49): not JSON") == true)
        broken[1500] = lines[10]
        #expect(failure(broken) == "line 1501: objectID 'kura://Item/11' appears twice")
        #expect(try store.newContext().count(for: FetchRequest(entityName: "Item")) == 0)

        lines.append("")
        #expect(failure(lines) == nil)
        let items = try store.newContext().fetch(FetchRequest(entityName: "Item"))
        #expect(items.count == count)
        // New IDs follow the order objects were inserted in: the text's.
        #expect(try items.allSatisfy { try $0.value(forKey: "big", as: Int64.self) == Int64($0.objectID.uriRepresentation.split(separator: "/").last!)! })
    }
}
