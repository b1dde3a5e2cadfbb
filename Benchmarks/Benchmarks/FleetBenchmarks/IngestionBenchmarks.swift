import Benchmark
import BenchmarkSupport
import Foundation
import PostgresNIO
import RewindServer

/// What the ingestion benchmark runs on: the fleet, its batches and COPY rows prepared, the real
/// server over a database of its own, and a client for the baseline with as many connections as
/// the server has.
struct IngestionFixture: Sendable {
    let server: FleetServer
    let upload: FleetUpload
    let copy: CopyBaseline
    let client: RunningClient

    /// Checks that the stores `storeIDs` hold `records` records in all: the run loaded everything
    /// (ingestion's answers say so too; this reads the table, after the clock stopped).
    func verify(storeIDs: [UUID], records: Int, side: String) async throws {
        let appID = server.app.appID
        var counted = 0
        for try await count in try await client.client.query(
            """
            SELECT count(*)::bigint FROM records WHERE app_id = \(appID) AND store_id = ANY(\(storeIDs))
            """, logger: FleetCluster.logger
        ).decode(Int64.self) {
            counted = Int(count)
        }
        guard counted == records else {
            throw FleetSetupError("\(side) stored \(counted) records of \(records)")
        }
    }
}

/// Item 8, the fleet's ingestion: one in-process `RewindServer` on 127.0.0.1, 64 devices
/// uploading their stores concurrently over loopback in RWB1 batches, against PostgreSQL's
/// `COPY … FROM STDIN` of the same rows into the same tables (``CopyBaseline``), interleaved: each
/// iteration runs both (ingestion first on even iterations, COPY first on odd ones), each under
/// fresh store ids, so the tables grow alike for both.
func registerIngestionBenchmarks(cluster: DatabaseURL) {
    let ingestionRate = BenchmarkMetric.custom("ingestion records/s", polarity: .prefersLarger, useScalingFactor: false)
    let copyRate = BenchmarkMetric.custom(
        "COPY FROM STDIN records/s", polarity: .prefersLarger, useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("ingestion ÷ COPY (%)", polarity: .prefersLarger, useScalingFactor: false)
    let latency = BenchmarkMetric.custom(
        "ingestion batch latency (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let box = FixtureBox<IngestionFixture>()
    let database = FixtureBox<FleetDatabase>()

    Benchmark(
        "8 fleet ingestion: 64 devices over HTTP (RWB1, \(FleetShape.batchSize)-record batches) against COPY FROM STDIN of the same rows",
        configuration: .init(
            metrics: [ingestionRate, copyRate, ratio, latency], warmupIterations: 1,
            maxDuration: .seconds(150), maxIterations: 4),
        closure: { benchmark in
            guard let fixture = box.value else { return benchmark.error("no fixture") }
            do {
                let appID = fixture.server.app.appID
                var ingestionSeconds = 0.0
                var copySeconds = 0.0
                let ingestionFirst = benchmark.currentIteration % 2 == 0
                for ingestion in ingestionFirst ? [true, false] : [false, true] {
                    let storeIDs = (0..<FleetShape.devices).map { _ in UUID() }
                    if ingestion {
                        let run = try await fixture.upload.run(server: fixture.server, storeIDs: storeIDs)
                        ingestionSeconds = run.seconds
                        for nanoseconds in run.batchNanoseconds { benchmark.measurement(latency, nanoseconds / 1_000) }
                        try await fixture.verify(
                            storeIDs: storeIDs, records: fixture.upload.recordCount, side: "ingestion")
                    } else {
                        let buffers = fixture.copy.buffers(appID: appID, storeIDs: storeIDs)
                        copySeconds = try await fixture.copy.load(
                            buffers, appID: appID, storeIDs: storeIDs, client: fixture.client.client)
                        try await fixture.verify(storeIDs: storeIDs, records: fixture.copy.recordCount, side: "COPY")
                    }
                }
                let records = Double(fixture.upload.recordCount)
                benchmark.measurement(ingestionRate, Int(records / ingestionSeconds))
                benchmark.measurement(copyRate, Int(records / copySeconds))
                benchmark.measurement(ratio, Int((100 * copySeconds / ingestionSeconds).rounded()))
                report(
                    "iteration \(benchmark.currentIteration): "
                        + String(
                            format:
                                "ingestion %.0f records/s (%.2f s), COPY FROM STDIN %.0f records/s (%.2f s), ingestion ÷ COPY %.2f×",
                            records / ingestionSeconds, ingestionSeconds, records / copySeconds, copySeconds,
                            copySeconds / ingestionSeconds))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let clock = ContinuousClock()
            let start = clock.now
            let devices = try await writeFleet(
                devices: FleetShape.devices, recordsPerDevice: FleetShape.recordsPerDevice)
            let upload = FleetUpload(devices: devices, batchSize: FleetShape.batchSize)
            let copy = CopyBaseline(devices: devices)
            let made = try await FleetDatabase.make(in: cluster)
            database.value = made
            let server = try await FleetServer.start(database: made)
            let client = RunningClient(made.url, connections: server.configuration.maximumDatabaseConnections)
            box.value = IngestionFixture(server: server, upload: upload, copy: copy, client: client)
            let settings = try await made.verifyDurable().map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            report("PostgreSQL settings read back: \(settings)")
            report(
                """
                \(devices.count) devices, \(upload.recordCount) records per run (\(upload.bodies.reduce(0) { $0 + $1.count }) batches of \
                up to \(FleetShape.batchSize)), written by the engine in \(String(format: "%.1f", start.duration(to: clock.now).seconds)) s; \
                server and COPY pool: \(server.configuration.maximumDatabaseConnections) PostgreSQL connections each
                """)
        },
        teardown: {
            if let fixture = box.value {
                await fixture.client.stop()
                try await fixture.server.stop()
            }
            box.value = nil
            try await database.value?.drop()
        })
}
