import Foundation
import Kura
import KuraLMDB
import KuraTestSupport
import Testing

/// Files that are not (or no longer) good Kura stores give a clear error,
/// never a crash.
@Suite struct BadFileTests {
    @Test func everyKindOfBadFileIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel.news()

        let empty = directory.file("empty.kura")
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(throws: KuraError.notAKuraStore(path: empty)) { try PersistentContainer(path: empty, model: model) }

        let random = directory.file("random.kura")
        var generator = SplitMix64(seed: 3)
        try Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: random))
        #expect(throws: KuraError.notAKuraStore(path: random)) { try PersistentContainer(path: random, model: model) }

        let foreign = directory.file("foreign.lmdb")
        do {
            let environment = try Environment(path: foreign)
            let database = try environment.createDatabase(named: "things")
            try environment.write { txn in try database.put([1], forKey: [1], in: txn) }
        }
        #expect(throws: KuraError.notAKuraStore(path: foreign)) { try PersistentContainer(path: foreign, model: model) }

        let truncated = directory.file("truncated.kura")
        do {
            let container = try PersistentContainer(path: truncated, model: model)
            let context = container.newContext()
            for index in 0..<2000 {
                let news = News(context: context)
                news.body = String(repeating: "b", count: 300)
                news.sortOrder = index
            }
            try context.save()
            container.close()
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: truncated)[.size] as? Int)
        #expect(Glibc.truncate(truncated, off_t(size / 3)) == 0)
        #expect {
            try PersistentContainer(path: truncated, model: model)
        } throws: { error in
            if let error = error as? KuraError, error.code == .corruptStore { return error.path == truncated && error.reason!.contains("truncated") }
            return false
        }

        let future = directory.file("future.kura")
        try PersistentContainer(path: future, model: model).close()
        do {
            let environment = try Environment(path: future)
            let meta = try #require(try environment.database(named: "kura.meta"))
            try environment.write { txn in try meta.put([6, 0, 0, 0], forKey: Array("format".utf8), in: txn) }
        }
        #expect(throws: KuraError.unsupportedFormatVersion(path: future, found: 6, supported: 5)) {
            try PersistentContainer(path: future, model: model)
        }

        let other = directory.file("other.kura")
        try PersistentContainer(path: other, model: model).close()
        #expect(throws: KuraError.self) { try PersistentContainer(path: other, model: ManagedObjectModel(Sample.self)) }

        // A damaged stored model.
        let damagedModel = directory.file("model.kura")
        try PersistentContainer(path: damagedModel, model: model).close()
        do {
            let environment = try Environment(path: damagedModel)
            let meta = try #require(try environment.database(named: "kura.meta"))
            try environment.write { txn in try meta.put(Array("{\"entities\": 5}".utf8), forKey: Array("model".utf8), in: txn) }
        }
        #expect {
            try PersistentContainer(path: damagedModel, model: model)
        } throws: { error in
            if (error as? KuraError)?.code == .corruptStore { return true }
            return false
        }
    }

    /// An LMDB store of `count` news saved in order, titled "plain N" but
    /// for the one at `marked`, titled "FINDME-RECORD" (to find its bytes in
    /// the file), each with the sort order `sortOrder` gives its index.
    static func newsStore(count: Int, marked: Int, sortOrder: (Int) -> Int) throws -> TestStore {
        let store = try TestStore(engine: .lmdb)
        let container = try store.open(.news())
        let context = container.newContext()
        for index in 0..<count {
            let news = News(context: context)
            news.title = index == marked ? "FINDME-RECORD" : "plain \(index)"
            news.sortOrder = sortOrder(index)
        }
        try context.save()
        container.close()
        return store
    }

    @Test func aDamagedRecordIsReportedNotMisreadOrCrashedOn() throws {
        let store = try Self.newsStore(count: 20, marked: 7) { $0 }
        // Change the tag byte before the string "FINDME-RECORD" in the file.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let marker = Data("FINDME-RECORD".utf8)
        let found = try #require(bytes.range(of: marker))
        bytes[found.lowerBound - 1] = 0x03    // the string's tag becomes "int"
        try bytes.write(to: URL(fileURLWithPath: store.path))

        let container = try store.open(.news())
        #expect {
            try container.newContext().fetch(FetchRequest(entityName: "News"))
        } throws: { error in
            if let error = error as? KuraError, error.code == .corruptStore { return error.reason!.contains("a record of News") }
            return false
        }
        let report = try container.store.check()
        #expect(!report.isConsistent)
        #expect(report.problems.contains { $0.contains("does not decode") })
        // Records the query doesn't read are still fetched.
        #expect(try container.newContext().count(for: FetchRequest(entityName: "News", predicate: "sortOrder < 5")) == 5)
    }

    @Test func aTopKScanReportsDamageInTheRecordsItKeepsAndPassesOverTheRest() throws {
        // The last record read sorts first.
        let store = try Self.newsStore(count: 50, marked: 49) { $0 == 49 ? 0 : $0 + 1 }
        // Break the offset table of the record holding "FINDME-RECORD": its
        // header (format 1, row version 1, 7 values) starts shortly before
        // the title; the end of value 2 (body) is set past the record's end.
        // Value 6, sortOrder, stays readable.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let title = try #require(bytes.range(of: Data("FINDME-RECORD".utf8)))
        let header = Data([1, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0])
        let record = try #require(bytes.range(of: header, options: .backwards, in: (title.lowerBound - 200)..<title.lowerBound))
        let bodyEnd = record.upperBound + 2 * 4
        bytes.replaceSubrange(bodyEnd..<(bodyEnd + 4), with: [0xFF, 0xFF, 0xFF, 0x00])
        try bytes.write(to: URL(fileURLWithPath: store.path))

        let container = try store.open(.news())
        #expect(throws: KuraError.self) { try container.newContext().fetch(FetchRequest(entityName: "News")) }
        var first = FetchRequest(entityName: "News").sorted(by: "sortOrder").limited(to: 3)
        first.allowsIndexes = false
        #expect(try container.newContext().explain(first).description.hasPrefix("SCAN News"))
        // The damaged record sorts first: it is kept, so it is read whole.
        #expect {
            try container.newContext().fetch(first)
        } throws: { error in
            if let error = error as? KuraError, error.code == .corruptStore { return error.reason!.contains("a record of News") }
            return false
        }
        // Sorted the other way it can't make the cut when it is read: its sort value is
        // read, the rest of it (its header included) isn't, and the fetch
        // answers.
        var last = first
        last.sortDescriptors = [FetchSortDescriptor(key: "sortOrder", ascending: false)]
        let titles = try container.newContext().fetch(last, as: News.self).map(\.title)
        #expect(titles == ["plain 48", "plain 47", "plain 46"])
    }
}
