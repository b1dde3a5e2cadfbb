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
        // The seeds' machines as samples (and the fuzzer's seed corpus).
        .library(name: "RewindExamples", targets: ["RewindExamples"]),
        .library(name: "RewindViewer", targets: ["RewindViewer"]),
        // The JSON shapes the CLI prints and the fleet server and the uploader exchange.
        .library(name: "RewindWire", targets: ["RewindWire"]),
        // The device's uploader to the fleet server (URLSession; libcurl on Linux).
        .library(name: "RewindSync", targets: ["RewindSync"]),
        // Test support for the packages beside the root (the server's tests start their child
        // processes with its SpawnedProcess and runProcess); not part of Rewind's API.
        .library(name: "RewindBaseTestSupport", targets: ["RewindBaseTestSupport"]),
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
        // Layer 1': the values the store and the machine share (JSONValue and its exact numbers,
        // NavigationOperation; Foundation only).
        .target(name: "RewindValues"),
        // Layer 2': pure, in-memory statecharts (no storage; Foundation only).
        .target(name: "RewindMachine", dependencies: ["RewindValues"]),
        // The seeds' example machines (product RewindExamples: samples, the CLI's demo, the tests,
        // the fuzzer and the server's tests).
        .target(name: "RewindExamples", dependencies: ["RewindMachine"]),
        // Layer 2: the durable transition log. It records machine steps in the shared values'
        // words (navigation operations, JSON payloads) but never runs a machine.
        // CRC-32C with the CPU's instruction (SSE 4.2 / ARMv8 CRC), for RewindStore's checksums.
        .target(name: "CRC32CHardware"),
        .target(name: "RewindStore", dependencies: ["RewindLMDB", "RewindValues", "CRC32CHardware"]),
        // Layer 3: engine, projections, replay.
        .target(name: "Rewind", dependencies: ["RewindStore", "RewindMachine"]),
        // Layer 4: tools. The viewer: statecharts as SVG, a session or a machine as one self-contained HTML page.
        // The page's script is a file of its own (Resources/viewer.js), compiled in as bytes.
        .target(name: "RewindViewer", dependencies: ["Rewind"], resources: [.embedInCode("Resources/viewer.js")]),
        // The JSON shapes the tools print and the fleet server answers (history rows, replay
        // points and diffs, session listings, verification summaries, the ingestion endpoints'
        // bodies): one definition for the CLI, RewindSync and the server. `import Rewind` does
        // not re-export them; an app never needs them.
        .target(name: "RewindWire", dependencies: ["Rewind"]),
        // libcurl, on Linux only, from the system (Debian's libcurl4-openssl-dev): RewindSync's
        // HTTP transport there (RewindSync/CurlTransport.swift says why not FoundationNetworking).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The device's uploader: the store's log to a fleet server over Foundation's URLSession
        // on Apple's systems and libcurl on Linux, no server-side HTTP client in an app's graph.
        .target(
            name: "RewindSync",
            dependencies: [
                "Rewind", "RewindStore", "RewindWire", .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ]),
        .executableTarget(
            name: "RewindCLI",
            dependencies: [
                "Rewind", "RewindViewer", "RewindExamples", "RewindSync", "RewindWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "RewindConformance", dependencies: ["RewindMachine"]),

        // Tests mirror Sources/.
        // Test support per layer: each layer's tests link only that layer and the support below.
        // Files, locks, randomness, random JSON, subprocesses (no Rewind layer but the values).
        .target(name: "RewindBaseTestSupport", dependencies: ["RewindValues"], path: "Tests/RewindBaseTestSupport"),
        // Machine fixtures.
        .target(
            name: "RewindMachineTestSupport", dependencies: ["RewindMachine"], path: "Tests/RewindMachineTestSupport"),
        // The engine's fixtures; re-exports the two above and the examples.
        .target(
            name: "RewindTestSupport",
            dependencies: ["Rewind", "RewindExamples", "RewindBaseTestSupport", "RewindMachineTestSupport"],
            path: "Tests/RewindTestSupport"
        ),
        // Stand-ins for SwiftUI's names (`Environment`, `Transition`, …) on every platform: an app
        // file importing both must compile without qualifying them (RewindTests/API).
        .target(name: "SwiftUIStandIn", path: "Tests/SwiftUIStandIn"),
        .testTarget(name: "RewindLMDBTests", dependencies: ["RewindLMDB", "CLMDB", "RewindBaseTestSupport"]),
        .testTarget(
            name: "RewindValuesTests",
            dependencies: [
                "RewindValues", "RewindBaseTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RewindStoreTests", dependencies: ["RewindStore", "RewindLMDB", "CLMDB", "RewindBaseTestSupport"]),
        .testTarget(
            name: "RewindMachineTests",
            dependencies: [
                "RewindMachine", "RewindExamples", "RewindBaseTestSupport", "RewindMachineTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RewindTests",
            dependencies: [
                "Rewind", "RewindLMDB", "RewindTestSupport", "SwiftUIStandIn",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(name: "RewindViewerTests", dependencies: ["RewindViewer", "Rewind", "RewindTestSupport"]),
        .testTarget(
            name: "RewindCLITests",
            dependencies: ["RewindCLI", "Rewind", "RewindWire", "RewindLMDB", "RewindViewer", "RewindTestSupport"]),
        .testTarget(name: "RewindWireTests", dependencies: ["RewindWire", "Rewind", "RewindTestSupport"]),
        .testTarget(name: "RewindSyncTests", dependencies: ["RewindSync", "Rewind", "RewindTestSupport"]),
        .testTarget(name: "RewindConformanceTests", dependencies: ["RewindConformance", "RewindMachine"]),
        // Tests written by `rewind session-test` from the checkout fixture's recorded sessions
        // (RewindCLITests checks the command writes them byte for byte), compiled and run here:
        // they pass on the recorded definition and, in a subprocess, fail on a diverging one.
        .testTarget(name: "RecordedSessionFixtureTests", dependencies: ["Rewind", "RewindTestSupport"]),
        // Crashes, full disks, concurrent processes and hostile input (see RELIABILITY.md).
        .testTarget(name: "ReliabilityTests", dependencies: ["Rewind", "RewindLMDB", "RewindTestSupport"]),
        // A second process for the engine's multi-process tests (built with the tests).
        .executableTarget(
            name: "RewindTestHelper", dependencies: ["Rewind", "RewindLMDB"], path: "Tests/RewindTestHelper"),
    ],
    swiftLanguageModes: [.v6]
)

// REWIND_BUILD_ONLY="Target …": the package shrinks to those targets and every target they depend
// on, and the products made of them. .ci/run's ThreadSanitizer run sets it to the test targets it
// runs and the helper process they start: its build then leaves out the CLI, the viewer, the
// uploader and the other tests (318 CPU seconds against 737 on 2 cores). The package dependencies
// stay, so Package.resolved reads the same either way and no build rewrites it. Unset, the package
// is as declared above.
if let roots = Context.environment["REWIND_BUILD_ONLY"] {
    var kept = Set<String>()
    var pending = roots.split(separator: " ").map(String.init)
    while let name = pending.popLast() {
        guard kept.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else {
            continue
        }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
            case .productItem: break
            @unknown default: break
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return !targets.allSatisfy(kept.contains)
    }
}
