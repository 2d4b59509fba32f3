// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Kura",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Kura", targets: ["Kura"]),
        // Kura without the LMDB engine: for engines of other products.
        .library(name: "KuraCore", targets: ["KuraCore"]),
        .library(name: "KuraLMDB", targets: ["KuraLMDB"]),
        .library(name: "KuraKeys", targets: ["KuraKeys"]),
        .library(name: "KuraInspect", targets: ["KuraInspect"]),
        // Checks a storage engine against the seam's contract (for an
        // engine's own tests).
        .library(name: "KuraEngineConformance", targets: ["KuraEngineConformance"]),
        // Kura on PostgreSQL: empty unless the PostgreSQL trait is on (below).
        .library(name: "KuraPostgres", targets: ["KuraPostgres"]),
        // Kura in a server: empty unless the Server trait is on (below).
        .library(name: "KuraServer", targets: ["KuraServer"]),
        .executable(name: "kura", targets: ["kura"]),
    ],
    // A package depending on Kura without the PostgreSQL trait resolves
    // none of these: each is used only under the trait's condition.
    traits: [
        .trait(
            name: "PostgreSQL",
            description: "Kura on PostgreSQL: the KuraPostgres product and postgres:// stores in kura. "
                + "Builds postgres-nio, swift-nio and BoringSSL."),
        .trait(
            name: "Server",
            description: "Kura in a server: the KuraServer product (PersistentContainer as a swift-service-lifecycle Service, "
                + "store events through swift-log and swift-metrics). Builds those three API packages and swift-async-algorithms."),
        .trait(
            name: "InternalChecks",
            description: "For Kura's own test runs: checks the context's bookkeeping after each operation that rewrites it, "
                + "and makes the accesses Kura marks @exclusivity(unchecked) checked ones. Scripts/test-postgres builds with it."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `swift package generate-documentation` (no target depends on it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // Key ranges and the key order: the vocabulary LMDB's wrapper and
        // Kura's storage seam share (no LMDB in it).
        .target(name: "KuraKeys"),
        .target(name: "KuraLMDB", dependencies: ["KuraKeys", "CLMDB"]),
        // The model, contexts, fetching and the storage seam: no LMDB in it.
        .target(name: "KuraCore", dependencies: ["KuraKeys"]),
        // KuraCore (re-exported) on the embedded LMDB engine.
        .target(name: "Kura", dependencies: ["KuraCore", "KuraLMDB"]),
        .target(
            name: "KuraPostgres",
            dependencies: [
                "KuraCore",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["PostgreSQL"])),
            ]),
        .target(
            name: "KuraServer",
            dependencies: [
                "KuraCore",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
            ]),
        .systemLibrary(
            name: "CLineEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"]), .brew(["libedit"])]
        ),
        .target(name: "KuraEngineConformance", dependencies: ["KuraCore"]),
        .target(name: "KuraInspect", dependencies: ["Kura", "CLineEdit"]),
        .executableTarget(
            name: "kura",
            dependencies: ["KuraInspect", "Kura", .target(name: "KuraPostgres", condition: .when(traits: ["PostgreSQL"]))]),
        .executableTarget(
            name: "kura-fuzz",
            dependencies: ["KuraTestSupport", "KuraInspect"],
            path: "Sources/KuraFuzz"),
        .executableTarget(
            name: "kura-test-helper",
            dependencies: ["Kura", "KuraLMDB", .target(name: "KuraPostgres", condition: .when(traits: ["PostgreSQL"])), "KuraTestSupport"],
            path: "Sources/KuraTestHelper"),
        .target(name: "KuraTestSupport", dependencies: ["Kura", "KuraCore", "KuraEngineConformance"], path: "Tests/KuraTestSupport"),
        .testTarget(name: "KuraLMDBTests", dependencies: ["KuraLMDB", "KuraTestSupport", "kura-test-helper"]),
        .testTarget(
            name: "KuraTests",
            dependencies: [
                "Kura", "KuraCore", .target(name: "KuraPostgres", condition: .when(traits: ["PostgreSQL"])), "KuraTestSupport",
                "KuraEngineConformance", "kura-test-helper", "kura",
            ],
            exclude: ["Fixtures"]),
        .testTarget(name: "KuraPostgresTests", dependencies: [
            .target(name: "KuraPostgres", condition: .when(traits: ["PostgreSQL"])), "Kura", "KuraCore", "KuraTestSupport", "kura-test-helper", "kura",
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
        ]),
        .testTarget(name: "KuraInspectTests", dependencies: ["KuraInspect", "Kura", "KuraLMDB", "KuraTestSupport", "kura"]),
    ]
)
