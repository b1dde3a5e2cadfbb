// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Rewind",
    // macOS 15 / iOS 18: the standard library's `Synchronization.Mutex`, the package's one lock.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Rewind", targets: ["Rewind"]),
        .library(name: "RewindMachine", targets: ["RewindMachine"]),
        .library(name: "RewindStore", targets: ["RewindStore"]),
        .library(name: "RewindLMDB", targets: ["RewindLMDB"]),
        .executable(name: "rewind", targets: ["RewindCLI"]),
        .executable(name: "rewind-conformance", targets: ["RewindConformance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Tests only: property-based checks (no dependencies of its own).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // Layer 0: the C library, from the system (Debian's liblmdb-dev, Homebrew's lmdb).
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        // Layer 1: a small safe Swift layer over LMDB's C API.
        .target(name: "RewindLMDB", dependencies: ["CLMDB"]),
        // Layer 1': pure, in-memory statecharts (no storage; Foundation only).
        .target(name: "RewindMachine"),
        // Layer 2: the durable transition log. It records machine steps, so it speaks the
        // machine's vocabulary (navigation operations) but never runs a machine.
        // CRC-32C with the CPU's instruction (SSE 4.2 / ARMv8 CRC), for RewindStore's checksums.
        .target(name: "CRC32CHardware"),
        .target(name: "RewindStore", dependencies: ["RewindLMDB", "RewindMachine", "CRC32CHardware"]),
        // Layer 3: engine, projections, replay.
        .target(name: "Rewind", dependencies: ["RewindStore", "RewindMachine"]),
        // Layer 4: tools.
        .executableTarget(
            name: "RewindCLI",
            dependencies: [
                "Rewind",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "RewindConformance", dependencies: ["RewindMachine"]),

        // Tests mirror Sources/.
        .target(name: "RewindTestSupport", dependencies: ["Rewind"], path: "Tests/RewindTestSupport"),
        .testTarget(name: "RewindLMDBTests", dependencies: ["RewindLMDB", "CLMDB"]),
        .testTarget(name: "RewindStoreTests", dependencies: ["RewindStore", "RewindLMDB", "CLMDB", "RewindTestSupport"]),
        .testTarget(
            name: "RewindMachineTests",
            dependencies: [
                "RewindMachine", "RewindTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RewindTests",
            dependencies: [
                "Rewind", "RewindTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "RewindCLITests", dependencies: ["RewindCLI", "Rewind", "RewindTestSupport"]),
        .testTarget(name: "RewindConformanceTests", dependencies: ["RewindConformance", "RewindMachine"]),
        // Crashes, full disks, concurrent processes and hostile input (see RELIABILITY.md).
        .testTarget(name: "ReliabilityTests", dependencies: ["Rewind", "RewindTestSupport"]),
        // A second process for the engine's multi-process tests (built with the tests).
        .executableTarget(name: "RewindTestHelper", dependencies: ["Rewind"], path: "Tests/RewindTestHelper"),
    ],
    swiftLanguageModes: [.v6]
)
