import Benchmark
import BenchmarkSupport
import Foundation
import Rewind
import RewindExamples
import RewindServer

/// Issue 30, the upgrade check on the fleet server, in sessions checked per second:
/// `POST /v1/machines/onboarding/upgrade-check` over the onboarding sessions of the fleet's 64
/// devices (uploaded once through ingestion, so the server holds their definitions), the new
/// definition the onboarding's own, so every session is loaded from PostgreSQL and re-run in
/// full. The endpoint's own work, timed from the request to the answer: keyset pages of 100
/// sessions, each session's records read from its store's log and checked in memory. Against it:
/// the device-side check of a session (benchmark 14 of Transitions).
func registerUpgradeCheckFleetBenchmarks(cluster: DatabaseURL) {
    let rate = BenchmarkMetric.custom(
        "fleet upgrade check sessions/s", polarity: .prefersLarger, useScalingFactor: false)
    let box = FixtureBox<FleetServer>()
    let database = FixtureBox<FleetDatabase>()
    let body = Array(ExampleMachines.Onboarding.definition.jsonDocument())

    Benchmark(
        "14 fleet upgrade check: every onboarding session of 64 devices, through the endpoint (sessions/s)",
        configuration: .init(metrics: [rate], warmupIterations: 1, maxDuration: .seconds(120), maxIterations: 4),
        closure: { benchmark in
            guard let server = box.value else { return benchmark.error("no fixture") }
            do {
                let authorization = "Bearer \(server.app.readKey.token)"
                let clock = ContinuousClock()
                let start = clock.now
                let response = try await onThread {
                    try LoopbackConnection(port: server.port).request(
                        "POST", "/v1/machines/onboarding/upgrade-check",
                        headers: [("Authorization", authorization), ("Content-Type", "application/json")], body: body)
                }
                let seconds = start.duration(to: clock.now).seconds
                guard response.status == 200 else {
                    throw FleetSetupError("the upgrade check answered \(response.status): \(response.text)")
                }
                let checked = try JSONDecoder().decode(UpgradeCheckReport.self, from: Data(response.body))
                guard checked.checkedSessions > 0, checked.passes else {
                    throw FleetSetupError("the fleet's own definition does not pass: \(checked)")
                }
                benchmark.measurement(rate, Int(Double(checked.checkedSessions) / seconds))
                report(
                    "upgrade check iteration \(benchmark.currentIteration): "
                        + String(
                            format: "%d sessions in %.2f s, %.0f sessions/s", checked.checkedSessions, seconds,
                            Double(checked.checkedSessions) / seconds))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let devices = try await writeFleet(
                devices: FleetShape.devices, recordsPerDevice: FleetShape.recordsPerDevice)
            let made = try await FleetDatabase.make(in: cluster)
            database.value = made
            let server = try await FleetServer.start(database: made)
            box.value = server
            let upload = FleetUpload(devices: devices, batchSize: FleetShape.batchSize)
            _ = try await upload.run(server: server, storeIDs: devices.map { _ in UUID() })
            report("upgrade check: \(upload.recordCount) records of \(devices.count) devices uploaded")
        },
        teardown: {
            try await box.value?.stop()
            box.value = nil
            try await database.value?.drop()
        })
}
