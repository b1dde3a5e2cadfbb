import Benchmark

/// The whole suite, registered in the order of the items; each Rewind benchmark is paired
/// with its baseline (same leading number, so they sort together).
let benchmarks: @Sendable () -> Void = {
    registerInMemoryBenchmarks()
    registerDurableBenchmarks()
    registerGRDBBenchmarks()
    registerResumeBenchmarks()
    registerMillionRecordBenchmarks()
    registerInterleavedBenchmarks()
    registerErasureBenchmarks()
    registerCompactionBenchmarks()
    registerUpgradeCheckBenchmarks()
    registerArchiveBenchmarks()
}
