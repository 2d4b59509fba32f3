// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Kura",
    products: [
        .library(name: "Kura", targets: ["Kura"]),
        .library(name: "KuraLMDB", targets: ["KuraLMDB"]),
        .library(name: "KuraInspect", targets: ["KuraInspect"]),
        .executable(name: "kura", targets: ["kura"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(name: "KuraLMDB", dependencies: ["CLMDB"]),
        .target(name: "Kura", dependencies: ["KuraLMDB"]),
        .systemLibrary(
            name: "CLineEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(name: "KuraInspect", dependencies: ["Kura", "KuraLMDB", "CLineEdit"]),
        .executableTarget(
            name: "kura",
            dependencies: ["KuraInspect", "Kura", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "kura-fuzz",
            dependencies: ["KuraTestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/KuraFuzz"),
        .executableTarget(
            name: "kura-test-helper", dependencies: ["Kura", "KuraLMDB", "KuraTestSupport"], path: "Sources/KuraTestHelper"),
        .target(name: "KuraTestSupport", dependencies: ["Kura"], path: "Tests/KuraTestSupport"),
        .testTarget(name: "KuraLMDBTests", dependencies: ["KuraLMDB", "KuraTestSupport", "kura-test-helper"]),
        .testTarget(
            name: "KuraTests", dependencies: ["Kura", "KuraTestSupport", "kura-test-helper", "kura"], exclude: ["Fixtures"]),
        .testTarget(name: "KuraInspectTests", dependencies: ["KuraInspect", "Kura", "KuraLMDB", "KuraTestSupport", "kura"]),
    ]
)
