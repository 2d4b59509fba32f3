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
    let delete = Operation<BatchEngine>(name: "batch delete 10%", unit: "objects") { engine, _ in try engine.batchDelete(range) }
    if options.selects(delete.name) {
        let (deleted, afterDelete) = try measureInsert(delete, makers: filled, iterations: options.iterations, name: name)
        let remaining = try afterDelete.map { try $0.count().count }
        guard Set(remaining).count == 1 else { throw Mismatch(description: "records after the batch delete differ: \(remaining)") }
        rows.append(ResultRow(name: delete.name, unit: delete.unit, measurements: deleted))
        progress("batch N=\(size): delete done")
    }

    let update = Operation<BatchEngine>(name: "batch update 10% (title, dateUpdated)", unit: "objects") { engine, iteration in
        try engine.batchUpdate(range, iteration: iteration)
    }
    if options.selects(update.name) {
        let (updated, afterUpdate) = try measureInsert(update, makers: filled, iterations: options.iterations, name: name)
        let titles = try afterUpdate.map { try $0.fetchAllReadingTitles().total }
        guard Set(titles).count == 1 else { throw Mismatch(description: "titles after the batch update differ: \(titles)") }
        rows.append(ResultRow(name: update.name, unit: update.unit, measurements: updated))
        progress("batch N=\(size): update done")
    }

    let insert = Operation<BatchEngine>(name: "batch insert \(size)", unit: "objects") { engine, _ in try engine.batchInsert(dataset.news) }
    if options.selects(insert.name) {
        let (inserted, afterInsert) = try measureInsert(insert, makers: empty, iterations: options.iterations, name: name)
        let fields = try afterInsert.map { try $0.fetchAllReadingEveryField().total }
        guard Set(fields).count == 1 else { throw Mismatch(description: "values after the batch insert differ: \(fields)") }
        rows.append(ResultRow(name: insert.name, unit: insert.unit, measurements: inserted))
        progress("batch N=\(size): insert done")
    }

    let typed = Operation<BatchEngine>(name: "batch insert \(size), typed rows (Kura)", unit: "objects") { engine, _ in
        try engine.batchInsertTyped(dataset.news)
    }
    if options.selects(typed.name) {
        let (typedInserted, afterTyped) = try measureInsert(typed, makers: empty, iterations: options.iterations, name: name)
        let typedFields = try afterTyped.map { try $0.fetchAllReadingEveryField().total }
        guard Set(typedFields).count == 1 else { throw Mismatch(description: "values after the typed batch insert differ: \(typedFields)") }
        rows.append(ResultRow(name: typed.name, unit: typed.unit, measurements: typedInserted))
        progress("batch N=\(size): typed insert done")
    }

    return resultTable(title: "Batch requests, N = \(size)", rows: rows)
}

/// The engines with batch work: the News engines that conform to
/// `BatchEngine` (with PostgreSQL, Kura on it and hand-written SQL).
let batchEngineTypes: [NewsEngine.Type] = newsEngineTypes.filter { $0 is BatchEngine.Type }
