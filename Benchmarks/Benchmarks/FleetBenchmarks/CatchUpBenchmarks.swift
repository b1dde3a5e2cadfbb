import Benchmark
import BenchmarkSupport
import Foundation
import PostgresNIO
import Rewind
import RewindServer

/// Item 8, the server's projection catch-up rate: the fleet's records (64 devices, loaded once
/// with `COPY`, which folds nothing), then per iteration every projection state and checkpoint of
/// the app deleted and one catch-up pass timed (``RewindServer/catchUpProjections(on:logger:)``:
/// the service's own code, 2 stores at a time, 2,000 records per transaction, both built-in
/// projections). Against it, in the same iteration, the same projections' `key`/`apply`/`encode`
/// over the same decoded records in memory: what the fold costs without PostgreSQL.
func registerCatchUpBenchmarks(cluster: DatabaseURL) {
    let serverRate = BenchmarkMetric.custom(
        "server catch-up records/s", polarity: .prefersLarger, useScalingFactor: false)
    let memoryRate = BenchmarkMetric.custom(
        "in-memory fold records/s", polarity: .prefersLarger, useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("server ÷ in-memory fold (%)", polarity: .prefersLarger, useScalingFactor: false)
    let box = FixtureBox<(server: FleetServer, devices: [FleetDevice], client: RunningClient, records: Int)>()
    let database = FixtureBox<FleetDatabase>()

    Benchmark(
        "8 fleet projection catch-up: screen flows + navigation over 64 devices' records, against the same fold in memory",
        configuration: .init(
            metrics: [serverRate, memoryRate, ratio], warmupIterations: 1, maxDuration: .seconds(120), maxIterations: 4),
        closure: { benchmark in
            guard let (server, devices, running, records) = box.value else { return benchmark.error("no fixture") }
            do {
                let client = running.client
                let appID = server.app.appID
                let logger = FleetCluster.logger
                try await client.query("DELETE FROM projection_states WHERE app_id = \(appID)", logger: logger)
                try await client.query("DELETE FROM projection_checkpoints WHERE app_id = \(appID)", logger: logger)
                let clock = ContinuousClock()
                var start = clock.now
                let read = try await RewindServer.catchUpProjections(on: client, logger: logger)
                let serverSeconds = start.duration(to: clock.now).seconds
                guard read == Int64(records) else {
                    throw FleetSetupError("the catch-up read \(read) records of \(records)")
                }
                start = clock.now
                let states = try foldInMemory(devices)
                let memorySeconds = start.duration(to: clock.now).seconds
                let stored = try await countStates(client: client, appID: appID)
                guard stored == states else {
                    throw FleetSetupError(
                        "the server holds \(stored) projection states, the in-memory fold made \(states)")
                }
                benchmark.measurement(serverRate, Int(Double(records) / serverSeconds))
                benchmark.measurement(memoryRate, Int(Double(records) / memorySeconds))
                benchmark.measurement(ratio, Int((100 * memorySeconds / serverSeconds).rounded()))
                report(
                    "catch-up iteration \(benchmark.currentIteration): "
                        + String(
                            format: "server %.0f records/s (%.2f s), in memory %.0f records/s (%.3f s), %d states",
                            Double(records) / serverSeconds, serverSeconds, Double(records) / memorySeconds,
                            memorySeconds, states))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let devices = try await writeFleet(
                devices: FleetShape.devices, recordsPerDevice: FleetShape.recordsPerDevice)
            let made = try await FleetDatabase.make(in: cluster)
            database.value = made
            _ = try await made.verifyDurable()
            let server = try await FleetServer.start(database: made)
            let client = RunningClient(made.url, connections: server.configuration.maximumDatabaseConnections)
            let copy = CopyBaseline(devices: devices)
            let storeIDs = (0..<devices.count).map { _ in UUID() }
            _ = try await copy.load(
                copy.buffers(appID: server.app.appID, storeIDs: storeIDs), appID: server.app.appID,
                storeIDs: storeIDs, client: client.client)
            box.value = (server, devices, client, copy.recordCount)
            report("catch-up: \(copy.recordCount) records of \(devices.count) devices loaded with COPY")
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

/// Folds each device's records with both built-in projections in memory, as the server does (a
/// state per key, each changed state encoded); returns how many states there are in all.
private func foldInMemory(_ devices: [FleetDevice]) throws -> Int {
    var states = 0
    for device in devices {
        states += try fold(ScreenFlowProjection(), device.records)
        states += try fold(NavigationProjection(), device.records)
    }
    return states
}

private func fold<P: Projection>(_ projection: P, _ records: [TransitionRecord]) throws -> Int {
    var states: [String: P.State] = [:]
    for record in records {
        guard let key = projection.key(for: record) else { continue }
        var state = states[key]
        try projection.apply(record, to: &state)
        states[key] = state
    }
    var buffer: [UInt8] = []
    for state in states.values {
        buffer.removeAll(keepingCapacity: true)
        try projection.encode(state, into: &buffer)
    }
    return states.count
}

/// The projection states the server holds for `appID`.
private func countStates(client: PostgresClient, appID: Int64) async throws -> Int {
    var count = 0
    for try await value in try await client.query(
        "SELECT count(*)::bigint FROM projection_states WHERE app_id = \(appID)", logger: FleetCluster.logger
    ).decode(Int64.self) {
        count = Int(value)
    }
    return count
}
