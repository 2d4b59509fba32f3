// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Kura",
    products: [
        .library(name: "KuraLMDB", targets: ["KuraLMDB"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(name: "KuraLMDB", dependencies: ["CLMDB"]),
        .executableTarget(name: "kura-test-helper", dependencies: ["KuraLMDB"], path: "Sources/KuraTestHelper"),
        .target(name: "KuraTestSupport", path: "Tests/KuraTestSupport"),
        .testTarget(name: "KuraLMDBTests", dependencies: ["KuraLMDB", "KuraTestSupport", "kura-test-helper"]),
    ]
)
