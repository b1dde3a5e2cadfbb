import Foundation
import Rewind

/// libFuzzer's entry point (from `-sanitize=fuzzer`'s runtime): runs the fuzzing loop with
/// `argv`'s options and corpus directories, calling `callback` with each input.
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The fuzzer's `main`: hands control to libFuzzer. SwiftPM gives every executable target a
/// `main` of its own, which would otherwise hide (or clash with) libFuzzer's.
@main
enum RewindFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(llvmFuzzerRunDriver(&argc, &argv, rewindFuzzTestOneInput))
    }
}

/// libFuzzer's per-input callback: the first byte chooses the ``FuzzTarget``, the rest is its input.
@_cdecl("LLVMFuzzerTestOneInput")
public func rewindFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0, let target = FuzzTarget(rawValue: data[0] % UInt8(FuzzTarget.allCases.count)) else {
        return 0
    }
    target.run(Array(UnsafeBufferPointer(start: data + 1, count: size - 1)))
    return 0
}

/// libFuzzer's start-up hook: writes the seed corpus into `$REWIND_FUZZ_SEEDS` when it is set
/// (before libFuzzer reads its corpus directories).
@_cdecl("LLVMFuzzerInitialize")
public func rewindFuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    guard let directory = ProcessInfo.processInfo.environment["REWIND_FUZZ_SEEDS"] else { return 0 }
    do {
        try SeedCorpus.write(into: directory, engine: ArchiveImporter.shared.engine)
    } catch {
        fatalError("cannot write the seed corpus into \(directory): \(error)")
    }
    return 0
}
