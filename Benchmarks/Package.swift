// swift-tools-version: 6.1
// Kura's benchmark suite: its own package, so users of Kura never resolve
// the benchmark-only dependencies (package-benchmark, GRDB).
import PackageDescription

// `KURA_COMPARE_WITHOUT_POSTGRES=1 swift build -c release --scratch-path .build-nopg --product kura-compare`
// builds kura-compare without the PostgreSQL engines: valgrind 3.19 can't
// read the debug information of a binary that links postgres-nio, and
// callgrind needs it for line-level counts.
let withPostgres = Context.environment["KURA_COMPARE_WITHOUT_POSTGRES"] == nil

let package = Package(
    name: "KuraBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The PostgreSQL trait gives the KuraPostgres product (PostgresEngines).
        .package(name: "Kura", path: "..", traits: withPostgres ? ["PostgreSQL"] : []),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ] + (withPostgres ? [.package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2")] : []),
    targets: [
        // The shared dataset: News records from a fixed seed.
        .target(name: "NewsDataset"),
        // The three engines, running the same operations on the same data.
        .target(
            name: "NewsEngines",
            dependencies: [
                "NewsDataset",
                .product(name: "Kura", package: "Kura"),
                .product(name: "KuraLMDB", package: "Kura"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // The comparison report: every engine, interleaved, one table per N.
        .executableTarget(
            name: "kura-compare",
            dependencies: ["NewsEngines", "NewsDataset", .product(name: "Kura", package: "Kura")]
                + (withPostgres ? ["PostgresEngines"] : [])),
        // The instruction budget's workload (Scripts/check-instruction-budget
        // runs it under callgrind): Kura's hottest news rows at N = 20,000.
        .executableTarget(name: "kura-instructions", dependencies: ["NewsEngines", "NewsDataset"]),
        // KuraLMDB alone: put and get throughput of small values.
        .executableTarget(name: "lmdb-throughput", dependencies: [.product(name: "KuraLMDB", package: "Kura")]),
        // package-benchmark targets: malloc counts of Kura's operations,
        // checked against the thresholds in Thresholds/.
        .executableTarget(
            name: "KuraBenchmarks",
            dependencies: [
                "NewsEngines", "NewsDataset",
                .product(name: "Kura", package: "Kura"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/KuraBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ] + (withPostgres ? [
        // PostgreSQL engines, apart so the malloc benchmarks never build postgres-nio.
        .target(
            name: "PostgresEngines",
            dependencies: [
                "NewsEngines", "NewsDataset", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Kura", package: "Kura"), .product(name: "KuraPostgres", package: "Kura"),
            ]),
    ] : [])
)
