import NewsDataset
import NewsEngines

/// The object-graph operations at N = `size` News (N/100 Authors, N/10
/// Tags): one table row each.
func runGraphSuite(size: Int, options: Options) throws -> [ResultRow] {
    let iterations = options.iterations
    let dataset = GraphDataset(count: size)
    let directories = try StoreDirectories(label: "graph-\(size)")
    let types: [GraphEngine.Type] = [KuraGraphEngine.self, LMDBGraphEngine.self, GRDBGraphEngine.self]
        .filter { options.includes(engine: $0.name) }
    let name: (GraphEngine) -> String = { $0.name }

    let insert = Operation<GraphEngine>(
        name: "insert \(size) news, \(dataset.authorNames.count) authors, \(dataset.tagNames.count) tags + save", unit: "news"
    ) { engine, _ in try engine.insert(dataset) }
    let (inserted, engines) = try measureInsert(
        insert, makers: types.map { type in { try type.init(directory: try directories.next()) } }, iterations: iterations, name: name)
    var rows = [ResultRow(name: insert.name, unit: insert.unit, measurements: inserted)]
    progress("graph N=\(size): insert done")

    let authors = dataset.queriedAuthors
    let tags = dataset.queriedTags
    let operations: [Operation<GraphEngine>] = [
        Operation(name: "fetch all news, author prefetched", unit: "news") { engine, _ in try engine.fetchAllWithAuthor() },
        Operation(name: "\(authors.count) fetches: author.name == x (indexed)", unit: "news") { engine, _ in try engine.fetchByAuthorName(authors) },
        Operation(name: "\(tags.count) fetches: ANY tags.name == x", unit: "news") { engine, _ in try engine.fetchByTagName(tags) },
        Operation(name: "tags.@count >= 3", unit: "news") { engine, _ in try engine.fetchWithAtLeastThreeTags() },
        Operation(name: "walk \(dataset.authorNames.count) authors, count each one's news", unit: "authors") { engine, _ in
            try engine.walkAuthorsCountingNews()
        },
        Operation(name: "cascade-delete \(dataset.deletedAuthors(iteration: 0).count) authors (their news, tag links) + save",
                  unit: "authors", run: { engine, iteration in try engine.cascadeDeleteAuthors(dataset.deletedAuthors(iteration: iteration)) },
                  mutates: true),
    ]
    for operation in operations where options.selects(operation.name) {
        rows.append(ResultRow(name: operation.name, unit: operation.unit,
                              measurements: try measure(operation, on: engines, iterations: iterations, name: name)))
        progress("graph N=\(size): \(operation.name) done")
    }
    // After the deletes every engine must agree on what is left, through both sides.
    let checks: [(String, (GraphEngine) throws -> Checksum)] = [
        ("news", { try $0.fetchAllWithAuthor() }), ("tags", { try $0.fetchByTagName(tags) }),
        ("authors", { try $0.walkAuthorsCountingNews() }),
    ]
    for (label, check) in checks {
        let results = try engines.map(check)
        guard Set(results).count <= 1 else { throw Mismatch(description: "after the deletes, \(label) differ: \(results)") }
    }
    return rows
}
