// swift-tools-version:6.1
import PackageDescription

// The fleet server: its own package, so the library's users never resolve its dependencies
// (hummingbird, postgres-nio). Build and test it with `make server-test` from the root.
let package = Package(
    name: "RewindServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "rewind-server", targets: ["RewindServerApp"]),
        // The server as a library, for the fleet benchmarks in ../Benchmarks.
        .library(name: "RewindServer", targets: ["RewindServer"]),
    ],
    dependencies: [
        .package(name: "Rewind", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // NIOThreadPool: the threads replay blocks on (already in the graph through hummingbird).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SHA-256 of key secrets and definition documents (postgres-nio depends on it already).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // The server as a library: configuration, migrations, keys, ingestion, routes.
        .target(
            name: "RewindServer",
            dependencies: [
                .product(name: "RewindStore", package: "Rewind"),
                // The one HTML escaper (XMLText, @_spi(Internals)) for the fleet page.
                .product(name: "RewindMachine", package: "Rewind"),
                // The built-in projections and the replay engine, run on the server by the same code
                // as on a device, over the log-reading interface.
                .product(name: "Rewind", package: "Rewind"),
                // The session viewer page of any uploaded session.
                .product(name: "RewindViewer", package: "Rewind"),
                // The JSON shapes shared with the CLI and the uploader (reports, ingestion answers).
                .product(name: "RewindWire", package: "Rewind"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // ConnectionPoolError: postgres-nio's pool throws it unmapped (an outage's 503).
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // `rewind-server`: flags and environment, `serve` and `create-app`.
        .executableTarget(
            name: "RewindServerApp",
            dependencies: [
                "RewindServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "RewindServerTests",
            dependencies: [
                "RewindServer",
                .product(name: "Rewind", package: "Rewind"),
                .product(name: "RewindExamples", package: "Rewind"),
                // The CLI, run against the server by the tests of `rewind … --server`.
                .product(name: "rewind", package: "Rewind"),
                .product(name: "RewindSync", package: "Rewind"),
                .product(name: "RewindWire", package: "Rewind"),
                // The root's one way to start a child process (SpawnedProcess, runProcess).
                .product(name: "RewindBaseTestSupport", package: "Rewind"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
