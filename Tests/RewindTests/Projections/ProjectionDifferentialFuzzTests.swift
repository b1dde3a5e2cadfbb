import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// A seeded differential fuzz of projections: random sessions of every example machine and of
/// ``MixedFeatureChart`` (valid and invalid sends and enters, bulk sends, forks, imports, records
/// another writer appends behind the engine's back), with screen-flow and navigation projections
/// arriving every way there is — inline from the start, registered later (inline or catch-up,
/// also on another thread while sessions append), caught up in small batches (also by two
/// threads at once, or interleaved), resumed after the engine is reopened, rebuilt (also by a
/// version bump), stopped by injected faults and by the engine closing in the middle of a
/// catch-up — through the built-in fold over record views and through the general fold.
///
/// At every check (each 10 steps) each projection's stored states, read with its checkpoint in one
/// transaction (also while sessions append), must be exactly those of a reference fold of the log
/// up to that checkpoint, never ahead of the log; reads through the public ``ProjectionReader``
/// must be some prefix's; the reference must agree at every record with a model built from the
/// sessions' live snapshots; inline projections must be at the head; and once caught up every way
/// of arriving at the head (and a rebuild) must give the same bytes. A failure names the seed and
/// the step (`PROJECTION_FUZZ_VERBOSE=1` prints what each seed did).
struct ProjectionDifferentialFuzzTests {
    /// `PROJECTION_FUZZ_SEEDS=n` runs seeds 1…n (default 12); `PROJECTION_FUZZ_SEED=s` seed s alone
    /// (`PROJECTION_FUZZ_TRACE=1` prints every step and the projections' checkpoints).
    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["PROJECTION_FUZZ_SEED"].flatMap({ UInt64($0) }) { return [seed] }
        let count = environment["PROJECTION_FUZZ_SEEDS"].flatMap { Int($0) } ?? 12
        return (1...max(1, count)).map { UInt64($0) }
    }()

    /// Steps per seed (`PROJECTION_FUZZ_STEPS`, default 100).
    static let steps: Int = ProcessInfo.processInfo.environment["PROJECTION_FUZZ_STEPS"].flatMap { Int($0) } ?? 100

    /// Serialized: the seeds' threads block on semaphores, which would starve each other's
    /// sessions on a small cooperative pool.
    @Test(.serialized, arguments: seeds)
    func everyWayOfArrivingAtAProjectionAgreesWithTheModel(seed: UInt64) async throws {
        let fuzz = try ProjectionFuzz(seed: seed)
        defer { fuzz.finish() }
        try await fuzz.run(steps: Self.steps)
    }
}
