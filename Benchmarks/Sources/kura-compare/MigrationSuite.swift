import Foundation
import NewsDataset
import NewsEngines

/// The migration rows at N = `size` News: each model change measured on a
/// fresh copy of a store each engine built, engines interleaved. Kura
/// migrates on open; raw LMDB does the same work by hand.
func runMigrationSuite(size: Int, options: Options) throws -> [ResultRow] {
    let dataset = NewsDataset(count: size)
    let directories = try StoreDirectories(label: "migration-\(size)")
    let types: [(any MigratingEngine.Type, (String) throws -> any NewsEngine)] = [
        (KuraEngine.self, { try KuraEngine(directory: $0) }), (LMDBEngine.self, { try LMDBEngine(directory: $0) }),
    ].filter { options.includes(engine: $0.0.name) }
    var bases: [String] = []
    for (_, make) in types {
        let directory = try directories.next()
        do { _ = try make(directory).insert(dataset.news) }
        bases.append(directory)
    }
    progress("migration N=\(size): stores built")
    var rows: [ResultRow] = []
    for kind in MigrationKind.allCases where options.selects(kind.name) {
        var measurements: [String: Measurement] = [:]
        let operation = Operation<Int>(name: kind.name, unit: "news", run: { _, _ in Checksum(count: 0) }, mutates: true)
        for iteration in 0..<options.iterations {
            for offset in 0..<types.count {
                let position = (iteration + offset) % types.count
                let copy = try directories.next()
                for file in try FileManager.default.contentsOfDirectory(atPath: bases[position]) {
                    try FileManager.default.copyItem(atPath: bases[position] + "/" + file, toPath: copy + "/" + file)
                    // Flushed now, untimed: else the migration's commit
                    // (an fsync of the file) would write the whole copy.
                    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: copy + "/" + file))
                    try handle.synchronize()
                    try handle.close()
                }
                let migrate = try types[position].0.prepare(kind, directory: copy)
                let (checksum, seconds) = try time(migrate)
                try record(checksum, seconds, of: types[position].0.name, for: operation, into: &measurements)
                try FileManager.default.removeItem(atPath: copy)
            }
        }
        rows.append(ResultRow(name: kind.name, unit: "news", measurements: measurements))
        progress("migration N=\(size): \(kind.name) done")
    }
    return rows
}
