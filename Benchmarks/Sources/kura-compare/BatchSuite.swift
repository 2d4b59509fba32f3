import Foundation
import NewsDataset
import NewsEngines

/// Work below the objects at N = `size` (issue 40): a batch delete and a
/// batch update of 10% of N News (by sortOrder, an index range), each on a
/// store filled afresh (untimed), and a batch insert of N News into an
/// empty store. Kura runs its batch requests; raw LMDB its own loops; GRDB
/// its query interface's `deleteAll`/`updateAll`; GRDB tuned and
/// postgres-nio one SQL statement.
func runBatchSuite(size: Int, options: Options) throws -> String {
    let dataset = NewsDataset(count: size)
    let range = dataset.sortOrderRange(from: 0.45, fraction: 0.1)
    let directories = try StoreDirectories(label: "batch-\(size)")
    let types = batchEngineTypes.filter { options.includes(engine: $0.name) }
    let name: (BatchEngine) -> String = { $0.name }
    let filled: [() throws -> BatchEngine] = types.map { type in
        {
            let engine = try type.init(directory: try directories.next()) as! BatchEngine
            _ = try engine.insert(dataset.news)
            return engine
        }
    }
    let empty: [() throws -> BatchEngine] = types.map { type in { try type.init(directory: try directories.next()) as! BatchEngine } }

    var rows: [ResultRow] = []
    // Runs `operation` on stores `makers` make, when selected; then every
    // engine must agree on `outcome` (what the operation left behind).
    func run(_ operation: Operation<BatchEngine>, on makers: [() throws -> BatchEngine], agreeing outcome: String,
             _ value: (BatchEngine) throws -> Int) throws {
        guard options.selects(operation.name) else { return }
        let (measured, after) = try measureInsert(operation, makers: makers, iterations: options.iterations, name: name)
        let values = try after.map(value)
        guard Set(values).count == 1 else { throw Mismatch(description: "\(outcome) after \(operation.name) differ: \(values)") }
        rows.append(ResultRow(name: operation.name, unit: operation.unit, measurements: measured))
        progress("batch N=\(size): \(operation.name) done")
    }

    try run(Operation(name: "batch delete 10%", unit: "objects") { engine, _ in try engine.batchDelete(range) },
            on: filled, agreeing: "records") { try $0.count().count }
    try run(Operation(name: "batch update 10% (title, dateUpdated)", unit: "objects") { engine, iteration in
        try engine.batchUpdate(range, iteration: iteration)
    }, on: filled, agreeing: "titles") { try $0.fetchAllReadingTitles().total }
    try run(Operation(name: "batch insert \(size)", unit: "objects") { engine, _ in try engine.batchInsert(dataset.news) },
            on: empty, agreeing: "values") { try $0.fetchAllReadingEveryField().total }
    try run(Operation(name: "batch insert \(size), typed rows (Kura)", unit: "objects") { engine, _ in
        try engine.batchInsertTyped(dataset.news)
    }, on: empty, agreeing: "values") { try $0.fetchAllReadingEveryField().total }

    return resultTable(title: "Batch requests, N = \(size)", rows: rows)
}

/// The engines with batch work: the News engines that conform to
/// `BatchEngine` (with PostgreSQL, Kura on it and hand-written SQL).
let batchEngineTypes: [NewsEngine.Type] = newsEngineTypes.filter { $0 is BatchEngine.Type }
