import NewsDataset
import NewsEngines
#if canImport(PostgresEngines)
import PostgresEngines
#endif

/// The News operations (attributes only) at N = `size`: one table row each.
func runNewsSuite(size: Int, options: Options) throws -> [ResultRow] {
    let iterations = options.iterations
    let dataset = NewsDataset(count: size)
    let directories = try StoreDirectories(label: "news-\(size)")
    let types = newsEngineTypes.filter { options.includes(engine: $0.name) }
    let name: (NewsEngine) -> String = { $0.name }

    let insert = Operation<NewsEngine>(name: "insert \(size) + save", unit: "objects") { engine, _ in try engine.insert(dataset.news) }
    let (inserted, engines) = try measureInsert(
        insert, makers: types.map { type in { try type.init(directory: try directories.next()) } }, iterations: iterations, name: name)
    var rows = [ResultRow(name: insert.name, unit: insert.unit, measurements: inserted)]
    progress("N=\(size): insert done")

    let rangeOp = dataset.sortOrderRange(from: 0.45, fraction: 0.1)
    let updateRange = dataset.sortOrderRange(from: 0.3, fraction: 0.1)
    let lookups = dataset.lookupIDs
    let lookupName = "\(lookups.count) getNews lookups by $objectId"
    let operations: [Operation<NewsEngine>] = [
        Operation(name: "count", unit: "counts") { engine, _ in try engine.count() },
        Operation(name: "fetch all", unit: "objects") { engine, _ in try engine.fetchAll() },
        Operation(name: "fetch all, read every title", unit: "objects") { engine, _ in try engine.fetchAllReadingTitles() },
        Operation(name: "fetch all, read every field", unit: "objects") { engine, _ in try engine.fetchAllReadingEveryField() },
        Operation(name: "all sorted by sortOrder (indexed)", unit: "objects") { engine, _ in try engine.fetchSortedBySortOrder() },
        Operation(name: "all sorted by title (not indexed)", unit: "objects") { engine, _ in try engine.fetchSortedByTitle() },
        Operation(name: "top-100 by sortOrder, index", unit: "objects") { engine, _ in try engine.fetchTop100(usingIndex: true) },
        Operation(name: "top-100 by sortOrder, no index", unit: "objects") { engine, _ in try engine.fetchTop100(usingIndex: false) },
        Operation(name: "sortOrder BETWEEN (10%), index", unit: "objects") { engine, _ in try engine.fetchRange(rangeOp) },
        Operation(name: lookupName, unit: "lookups") { engine, _ in
            (engine as? GRDBEngine)?.usesCachedStatement = false
            (engine as? GRDBTunedEngine)?.looksUpInOneRead = false
            return try engine.lookUp(lookups)
        },
        // Kura's other ways to make the same lookups (raw LMDB's own beside
        // them, for the Kura / LMDB column): a typed template, a template
        // written as #Predicate, a #Predicate capturing the id each time.
        kuraLookups("\(lookups.count) getNews lookups, typed template", .typedTemplate, lookups),
        kuraLookups("\(lookups.count) getNews lookups, #Predicate template", .predicateTemplate, lookups),
        kuraLookups("\(lookups.count) lookups, a new #Predicate each", .capturedPredicate, lookups),
        Operation(name: "update 10% + save", unit: "objects", run: { engine, iteration in
            try engine.update(updateRange, iteration: iteration)
        }, mutates: true),
        Operation(name: "delete 10% + save", unit: "objects", run: { engine, iteration in
            try engine.delete(dataset.sortOrderRange(from: Double(iteration) * 0.1, fraction: 0.1))
        }, mutates: true),
        Operation(name: "\(lookups.count) getNews lookups, GRDB cached statement", unit: "lookups", run: { engine, _ in
            let grdb = engine as! GRDBEngine
            grdb.usesCachedStatement = true
            defer { grdb.usesCachedStatement = false }
            return try engine.lookUp(lookups)
        }, takesPart: { $0 is GRDBEngine }),
        Operation(name: "\(lookups.count) getNews lookups, GRDB tuned, one read", unit: "lookups", run: { engine, _ in
            let tuned = engine as! GRDBTunedEngine
            tuned.looksUpInOneRead = true
            defer { tuned.looksUpInOneRead = false }
            return try engine.lookUp(lookups)
        }, takesPart: { $0 is GRDBTunedEngine }),
    ]
    for operation in operations where options.selects(operation.name) {
        guard engines.contains(where: operation.takesPart) else { continue }
        var row = ResultRow(name: operation.name, unit: operation.unit,
                            measurements: try measure(operation, on: engines, iterations: iterations, name: name))
        if operation.name.contains("cached statement") || operation.name.contains("one read") { row.kuraBaseline = rows.first { $0.name == lookupName }?.measurements["Kura"]?.median }
        rows.append(row)
        progress("N=\(size): \(operation.name) done")
    }
    // After deleting, every engine must hold the same number of records.
    let remaining = try engines.map { try $0.count().count }
    guard Set(remaining).count == 1 else { throw Mismatch(description: "record counts after deleting differ: \(remaining)") }
    return rows
}

/// Lookups by Kura in `style`, and by raw LMDB as in the getNews row.
private func kuraLookups(_ name: String, _ style: KuraEngine.LookupStyle, _ ids: [String]) -> Operation<NewsEngine> {
    Operation(name: name, unit: "lookups", run: { engine, _ in
        let kura = engine as? KuraEngine
        kura?.lookupStyle = style
        defer { kura?.lookupStyle = .dictionary }
        return try engine.lookUp(ids)
    }, takesPart: { $0 is KuraEngine || $0 is LMDBEngine })
}

/// Every News engine, PostgreSQL's when this build has them (see
/// `KURA_COMPARE_WITHOUT_POSTGRES` in Package.swift).
let newsEngineTypes: [NewsEngine.Type] = {
    var types: [NewsEngine.Type] = [KuraEngine.self, LMDBEngine.self, GRDBEngine.self, GRDBTunedEngine.self]
    #if canImport(PostgresEngines)
    types += [PostgresNIOEngine.self, PostgresKVEngine.self, KuraPostgresEngine.self]
    #endif
    return types
}()
