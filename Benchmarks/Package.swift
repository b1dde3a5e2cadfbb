// swift-tools-version:6.1
import PackageDescription

// The benchmark suite: its own package, so neither the library's users nor `swift test` build it.
// Run everything with `make bench` (or the command in README.md) from this directory.
let package = Package(
    name: "RewindBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Rewind", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The fleet server (its own package), for the fleet benchmarks.
        .package(name: "RewindServer", path: "../Server"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // LMDB's C API, for the raw baselines (the root package's CLMDB is not a product).
        .systemLibrary(
            name: "CLMDBBench",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // The machines both executables run.
        .target(name: "BenchmarkMachines", dependencies: [.product(name: "Rewind", package: "Rewind")]),
        // What both benchmark executables use around their measurements: scratch directories,
        // fixture boxes, clock arithmetic.
        .target(name: "BenchmarkSupport"),
        .executableTarget(
            name: "Transitions",
            dependencies: [
                "BenchmarkMachines",
                "BenchmarkSupport",
                "CLMDBBench",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Rewind", package: "Rewind"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/Transitions",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The fleet server against PostgreSQL (needs REWIND_BENCH_DATABASE_URL; see README.md).
        .executableTarget(
            name: "FleetBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "CLMDBBench",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Rewind", package: "Rewind"),
                .product(name: "RewindExamples", package: "Rewind"),
                .product(name: "RewindBaseTestSupport", package: "Rewind"),
                .product(name: "RewindServer", package: "RewindServer"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/FleetBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The same paths without the harness, for perf and valgrind (see README.md).
        .executableTarget(
            name: "ProfileDriver",
            dependencies: ["BenchmarkMachines", "CLMDBBench", .product(name: "Rewind", package: "Rewind")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
