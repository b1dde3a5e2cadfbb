// swift-tools-version:6.1
// The libFuzzer harness, a package of its own so that the main package builds and tests without
// `-sanitize=fuzzer` (an executable whose `main` comes from libFuzzer cannot link without it).
//
//     cd Fuzz && swift build -Xswiftc -sanitize=fuzzer,address --scratch-path .build-fuzz
//     .build-fuzz/debug/RewindFuzz -max_total_time=60 -max_len=4096 corpus/
//
// See RELIABILITY.md at the repository root.
import PackageDescription

let package = Package(
    name: "RewindFuzz",
    platforms: [.macOS(.v15)],  // as the root package (Synchronization.Mutex)
    dependencies: [
        .package(name: "Rewind", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "RewindFuzz",
            dependencies: [
                .product(name: "Rewind", package: "Rewind"),
                .product(name: "RewindExamples", package: "Rewind"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
