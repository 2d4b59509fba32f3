// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Kura",
    products: [
        .library(name: "Kura", targets: ["Kura"]),
        .library(name: "KuraLMDB", targets: ["KuraLMDB"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(name: "KuraLMDB", dependencies: ["CLMDB"]),
        .target(name: "Kura", dependencies: ["KuraLMDB"]),
        .executableTarget(name: "kura-test-helper", dependencies: ["Kura", "KuraLMDB"], path: "Sources/KuraTestHelper"),
        .target(name: "KuraTestSupport", path: "Tests/KuraTestSupport"),
        .testTarget(name: "KuraLMDBTests", dependencies: ["KuraLMDB", "KuraTestSupport", "kura-test-helper"]),
        .testTarget(name: "KuraTests", dependencies: ["Kura", "KuraTestSupport", "kura-test-helper"]),
    ]
)
