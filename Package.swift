// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Kura",
    products: [
        .library(name: "Kura", targets: ["Kura"]),
        .library(name: "KuraLMDB", targets: ["KuraLMDB"]),
        .library(name: "KuraInspect", targets: ["KuraInspect"]),
        // Kura on PostgreSQL, a product of its own: only its users build postgres-nio.
        .library(name: "KuraPostgres", targets: ["KuraPostgres"]),
        .executable(name: "kura", targets: ["kura"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(name: "KuraLMDB", dependencies: ["CLMDB"]),
        .target(name: "Kura", dependencies: ["KuraLMDB"]),
        .target(
            name: "KuraPostgres",
            dependencies: [
                "Kura", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .systemLibrary(
            name: "CLineEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(name: "KuraInspect", dependencies: ["Kura", "KuraLMDB", "CLineEdit"]),
        .executableTarget(
            name: "kura",
            dependencies: [
                "KuraInspect", "Kura", "KuraPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "kura-fuzz",
            dependencies: ["KuraTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/KuraFuzz"),
        .executableTarget(
            name: "kura-test-helper", dependencies: ["Kura", "KuraLMDB", "KuraPostgres", "KuraTestSupport"],
            path: "Sources/KuraTestHelper"),
        .target(name: "KuraTestSupport", dependencies: ["Kura"], path: "Tests/KuraTestSupport"),
        .testTarget(name: "KuraLMDBTests", dependencies: ["KuraLMDB", "KuraTestSupport", "kura-test-helper"]),
        .testTarget(
            name: "KuraTests", dependencies: ["Kura", "KuraPostgres", "KuraTestSupport", "kura-test-helper", "kura"],
            exclude: ["Fixtures"]),
        .testTarget(name: "KuraPostgresTests", dependencies: [
            "KuraPostgres", "Kura", "KuraTestSupport", "kura-test-helper", "kura",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        .testTarget(name: "KuraInspectTests", dependencies: ["KuraInspect", "Kura", "KuraLMDB", "KuraTestSupport", "kura"]),
    ]
)
