// swift-tools-version: 6.1
// The example service's endpoints on Fluent (fluent-kit with its SQLite and
// PostgreSQL drivers), for the side-by-side benchmark (Examples/NewsService/
// Benchmark). Not built by CI: only by the benchmark, by hand.
import PackageDescription

let package = Package(
    name: "NewsServiceFluent",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "news-service-fluent", targets: ["news-service-fluent"]),
    ],
    dependencies: [
        .package(path: "../NewsService"),
        .package(url: "https://github.com/vapor/fluent-kit", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .target(
            name: "NewsServiceFluent",
            dependencies: [
                .product(name: "NewsAPI", package: "NewsService"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQL", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .executableTarget(name: "news-service-fluent", dependencies: ["NewsServiceFluent", .product(name: "NewsAPI", package: "NewsService")]),
    ]
)
