import Foundation
import NewsDataset
import NewsEngines

/// The seeds' refresh of a feed at N = `size`: an import of N News by
/// `objectId` into a store that holds every other one of them already
/// (N/2 updated in place, N/2 new), beside an insert of N new News into an
/// empty store, for the ratio between them. Each iteration builds its
/// stores afresh (the N/2 stored ones untimed).
func runUpsertSuite(size: Int, options: Options) throws -> String {
    let dataset = NewsDataset(count: size)
    let stored = dataset.news.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    // The feed: every record, each with a new title and dateUpdated.
    let feed = dataset.news.enumerated().map { position, value in
        var value = value
        value.title = "refreshed \(position) " + value.title
        value.dateUpdated = Date(timeIntervalSinceReferenceDate: 900_000_000 + Double(position))
        return value
    }
    let directories = try StoreDirectories(label: "upsert-\(size)")
    let types = upsertingEngineTypes.filter { options.includes(engine: $0.name) }
    let name: (NewsEngine) -> String = { $0.name }

    let insert = Operation<NewsEngine>(name: "insert \(size) new + save (empty store)", unit: "objects") { engine, _ in
        try engine.insert(dataset.news)
    }
    let (inserted, _) = try measureInsert(
        insert, makers: types.map { type in { try type.init(directory: try directories.next()) } },
        iterations: options.iterations, name: name)
    progress("upsert N=\(size): insert done")
    let upsert = Operation<NewsEngine>(name: "upsert \(size), half stored + save", unit: "objects") { engine, _ in
        try (engine as! UpsertingEngine).upsert(feed)
    }
    let (upserted, engines) = try measureInsert(upsert, makers: types.map { type in
        {
            let engine = try type.init(directory: try directories.next())
            _ = try engine.insert(stored)
            return engine
        }
    }, iterations: options.iterations, name: name)
    progress("upsert N=\(size): upsert done")
    // Every engine ends with one record per objectId, and the feed's titles.
    let counts = try engines.map { try $0.count().count }
    guard counts.allSatisfy({ $0 == size }) else { throw Mismatch(description: "records after the upsert: \(counts), not \(size)") }
    let titles = try engines.map { try $0.fetchAllReadingTitles().total }
    guard Set(titles).count == 1 else { throw Mismatch(description: "titles after the upsert differ: \(titles)") }
    var table = resultTable(title: "Import by objectId, N = \(size) (half of them stored)", rows: [
        ResultRow(name: insert.name, unit: insert.unit, measurements: inserted),
        ResultRow(name: upsert.name, unit: upsert.unit, measurements: upserted),
    ])
    table += "\nUpsert / insert, each engine's own:"
    for engine in ["Kura", "raw LMDB", "GRDB", "GRDB tuned"] {
        guard let upsert = upserted[engine]?.median, let insert = inserted[engine]?.median else { continue }
        table += String(format: " %@ %.2f;", engine, upsert / insert)
    }
    return table + "\n"
}

/// The engines that import by objectId: Kura and the ones on the same machine.
let upsertingEngineTypes: [UpsertingEngine.Type] = [KuraEngine.self, LMDBEngine.self, GRDBEngine.self, GRDBTunedEngine.self]
