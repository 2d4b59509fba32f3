// swift-tools-version: 6.1
// The demo's news app as a JSON API on Hummingbird 2, with Kura on LMDB (or
// PostgreSQL, with the PostgreSQL trait). A package of its own: apps that
// depend on Kura never resolve Hummingbird.
import PackageDescription

let package = Package(
    name: "NewsService",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "news-service", targets: ["news-service"]),
        // The routes, payloads and server every implementation shares (the Fluent one's too).
        .library(name: "NewsAPI", targets: ["NewsAPI"]),
    ],
    traits: [
        .trait(name: "PostgreSQL", description: "Stores on PostgreSQL too (--database postgres://…): builds postgres-nio."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(name: "Kura", path: "../..", traits: [
            "Server", .trait(name: "PostgreSQL", condition: .when(traits: ["PostgreSQL"])),
        ]),
        // Without swift-configuration (ConfigurationSupport), which the service doesn't read.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "NewsAPI",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .target(
            name: "NewsService",
            dependencies: [
                "NewsAPI",
                .product(name: "Kura", package: "Kura"),
                .product(name: "KuraServer", package: "Kura"),
                .product(name: "KuraPostgres", package: "Kura", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .executableTarget(name: "news-service", dependencies: ["NewsService", "NewsAPI"]),
        .testTarget(name: "NewsServiceTests", dependencies: ["NewsService", "NewsAPI", "news-service"]),
    ]
)
