import Benchmark
import Foundation
import RewindServer

/// The fleet server's numbers (issue 22, "Performance" and "Beyond one server"), against a real
/// PostgreSQL named by `REWIND_BENCH_DATABASE_URL` (`make bench-fleet` starts a throwaway cluster
/// with `Server/scripts/with-postgres.sh`). Without it they are skipped, saying so.
let benchmarks: @Sendable () -> Void = {
    let cluster: DatabaseURL
    do {
        guard let url = try FleetCluster.url else {
            print(
                "fleet benchmarks skipped: \(FleetCluster.variable) is not set (run `make bench-fleet`, which starts a throwaway PostgreSQL with Server/scripts/with-postgres.sh)"
            )
            return
        }
        cluster = url
    } catch {
        print("fleet benchmarks skipped: \(FleetCluster.variable) is not a usable URL: \(error)")
        return
    }
    registerIngestionBenchmarks(cluster: cluster)
    registerPushBenchmarks(cluster: cluster)
    registerStorageBenchmarks(cluster: cluster)
    registerCatchUpBenchmarks(cluster: cluster)
    registerUpgradeCheckFleetBenchmarks(cluster: cluster)
    registerMillionSessionBenchmarks(cluster: cluster)
}

/// The fleet every fleet benchmark uploads: 64 devices, each a real store of about 3,200 records
/// (over 200,000 records in all); `REWIND_BENCH_FLEET_RECORDS` sets the records per device (for
/// a quick trial run; the README's numbers use the default).
enum FleetShape {
    /// Devices uploading at once.
    static let devices = 64
    /// Records each device's store holds (at least: sessions are written whole).
    static let recordsPerDevice =
        ProcessInfo.processInfo.environment["REWIND_BENCH_FLEET_RECORDS"].flatMap(Int.init) ?? 3_200
    /// Records per RWB1 batch (an app's uploader's default).
    static let batchSize = 500
}

/// Prints one line of the run's context (settings read back, sizes): the harness shows the
/// benchmark's standard output.
func report(_ line: String) {
    print("fleet: \(line)")
}
