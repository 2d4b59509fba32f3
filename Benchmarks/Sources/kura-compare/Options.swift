/// kura-compare's command line.
struct Options {
    var sizes = [10_000, 100_000]
    var iterations = 5
    var output: String?
    /// Run only operations whose name contains one of these texts (given
    /// separated by `|`: `--only "insert|top-100"`), for profiling and scale runs.
    var only: [String]?
    /// Run only these engines (by name, lowercased first word: kura, raw,
    /// grdb; postgres-nio only when named, as it starts a PostgreSQL server).
    var engines: Set<String> = ["kura", "raw", "grdb"]
    /// Which tables: the flat News operations, the object graph's, or both.
    var suites: Set<String> = ["news", "graph", "migration", "upsert", "batch", "kinds", "inheritance", "ordered", "changes", "memory", "concurrent"]
    /// Saves each process makes in the concurrent suite (enough that a
    /// process's first statements, which plan and connect, don't weigh).
    var concurrentSaves = 1000

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--sizes":
                guard let value = rest.popFirst() else { throw UsageError() }
                sizes = try value.split(separator: ",").map {
                    guard let size = Int($0.replacingOccurrences(of: "_", with: "")), size >= 1000 else { throw UsageError() }
                    return size
                }
            case "--include-1m":
                sizes.append(1_000_000)
            case "--iterations":
                guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw UsageError() }
                iterations = value
            case "--output":
                output = rest.popFirst()
            case "--only":
                guard let value = rest.popFirst(), !value.isEmpty else { throw UsageError() }
                only = value.split(separator: "|").map(String.init)
            case "--engines":
                guard let value = rest.popFirst() else { throw UsageError() }
                engines = Set(value.split(separator: ",").map { $0.lowercased() })
            case "--concurrent-saves":
                guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw UsageError() }
                concurrentSaves = value
            case "--suites":
                guard let value = rest.popFirst() else { throw UsageError() }
                suites = Set(value.split(separator: ",").map { $0.lowercased() })
                guard suites.isSubset(of: ["news", "graph", "migration", "upsert", "batch", "kinds", "inheritance", "ordered", "changes", "memory", "concurrent"]), !suites.isEmpty else { throw UsageError() }
            default:
                throw UsageError()
            }
        }
    }

    /// Whether the operation named `name` runs (every one without `--only`).
    func selects(_ name: String) -> Bool {
        only.map { texts in texts.contains { name.contains($0) } } ?? true
    }

    /// Whether an engine type named `name` ("raw LMDB") takes part.
    func includes(engine name: String) -> Bool {
        engines.contains(name == "Kura on PostgreSQL" ? "kura-postgres" : name.split(separator: " ")[0].lowercased())
    }

    struct UsageError: Error, CustomStringConvertible {
        var description: String {
            "usage: kura-compare [--sizes 10000,100000] [--include-1m] [--iterations 5] [--output RESULTS.md] "
                + "[--only OPERATION-TEXT|…] [--engines kura,raw,grdb,postgres-nio,postgres-kv,kura-postgres] [--suites news,graph,migration,upsert,batch,kinds,inheritance,ordered,changes,memory,concurrent] [--concurrent-saves 1000]"
        }
    }
}
