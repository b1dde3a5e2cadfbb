import Benchmark
import BenchmarkSupport
import Foundation
import PostgresNIO
import Rewind
import RewindServer
import Synchronization

/// Item 8, the server's projection catch-up rate: the fleet's records (64 devices, loaded once
/// with `COPY`, which folds nothing), then per iteration every projection state and checkpoint of
/// the app deleted and one catch-up pass timed (``RewindServer/catchUpProjections(on:logger:)``:
/// the service's own code, 2 stores at a time, 10,000 records per transaction, both built-in
/// projections). Against it, in the same iteration: the same projections' `key`/`apply`/`encode`
/// over the same decoded records in memory (what the fold costs without PostgreSQL), and the reads
/// and writes alone (``readAndWriteAlone(client:appID:states:)``: what PostgreSQL does for the
/// catch-up without a fold, its floor on this machine). The CPU of this process (the server's
/// code and its PostgreSQL client) and of the whole machine (PostgreSQL's processes too) is read
/// around the catch-up and the floor, per record.
func registerCatchUpBenchmarks(cluster: DatabaseURL) {
    let serverRate = BenchmarkMetric.custom(
        "server catch-up records/s", polarity: .prefersLarger, useScalingFactor: false)
    let memoryRate = BenchmarkMetric.custom(
        "in-memory fold records/s", polarity: .prefersLarger, useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("server ÷ in-memory fold (%)", polarity: .prefersLarger, useScalingFactor: false)
    let floorRate = BenchmarkMetric.custom(
        "reads and writes alone records/s", polarity: .prefersLarger, useScalingFactor: false)
    let floorRatio = BenchmarkMetric.custom(
        "server ÷ reads and writes alone (%)", polarity: .prefersLarger, useScalingFactor: false)
    let serverCPU = BenchmarkMetric.custom(
        "catch-up CPU µs/record, server process", polarity: .prefersSmaller, useScalingFactor: false)
    let machineCPU = BenchmarkMetric.custom(
        "catch-up CPU µs/record, machine", polarity: .prefersSmaller, useScalingFactor: false)
    let floorCPU = BenchmarkMetric.custom(
        "reads and writes alone CPU µs/record, machine", polarity: .prefersSmaller, useScalingFactor: false)
    let boundRatio = BenchmarkMetric.custom(
        "reads and writes alone ÷ in-memory fold (%)", polarity: .prefersLarger, useScalingFactor: false)
    let box = FixtureBox<(server: FleetServer, devices: [FleetDevice], client: RunningClient, records: Int)>()
    let database = FixtureBox<FleetDatabase>()

    Benchmark(
        "8 fleet projection catch-up: screen flows + navigation over 64 devices' records, against the same fold in memory",
        configuration: .init(
            metrics: [
                serverRate, memoryRate, ratio, floorRate, floorRatio, boundRatio, serverCPU, machineCPU, floorCPU,
            ], warmupIterations: 1, maxDuration: .seconds(120), maxIterations: 4),
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
                let cpuBefore = (process: PushFixture.ownCPU(), machine: try machineBusySeconds())
                let read = try await RewindServer.catchUpProjections(on: client, logger: logger)
                let serverSeconds = start.duration(to: clock.now).seconds
                let processCPU = PushFixture.ownCPU() - cpuBefore.process
                let catchUpCPU = try machineBusySeconds() - cpuBefore.machine
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
                let floorCPUBefore = try machineBusySeconds()
                let floorSeconds = try await readAndWriteAlone(client: client, appID: appID, states: states)
                let floorCPUSeconds = try machineBusySeconds() - floorCPUBefore
                let perRecord = { (seconds: Double) in Int((seconds * 1e6 / Double(records)).rounded()) }
                benchmark.measurement(serverCPU, perRecord(processCPU))
                benchmark.measurement(machineCPU, perRecord(catchUpCPU))
                benchmark.measurement(floorCPU, perRecord(floorCPUSeconds))
                benchmark.measurement(serverRate, Int(Double(records) / serverSeconds))
                benchmark.measurement(memoryRate, Int(Double(records) / memorySeconds))
                benchmark.measurement(ratio, Int((100 * memorySeconds / serverSeconds).rounded()))
                benchmark.measurement(floorRate, Int(Double(records) / floorSeconds))
                benchmark.measurement(floorRatio, Int((100 * floorSeconds / serverSeconds).rounded()))
                benchmark.measurement(boundRatio, Int((100 * memorySeconds / floorSeconds).rounded()))
                report(
                    "catch-up iteration \(benchmark.currentIteration): "
                        + String(
                            format:
                                "server %.0f records/s (%.2f s), in memory %.0f records/s (%.3f s), reads and writes alone %.2f s, %d states",
                            Double(records) / serverSeconds, serverSeconds, Double(records) / memorySeconds,
                            memorySeconds, floorSeconds, states))
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

/// The catch-up's floor: what PostgreSQL does for it with no fold and no per-state values from the
/// client. The states the catch-up just wrote are copied aside (an unlogged table, untimed) and
/// deleted; then, timed, 2 stores at a time as the catch-up folds them, each store in one
/// transaction: its records read (every column the catch-up reads, fetched to the client) and its
/// states inserted back with one `INSERT … SELECT` from the copy, the counting triggers firing as
/// for the catch-up. Returns the seconds; checks that `states` states are back.
private func readAndWriteAlone(client: PostgresClient, appID: Int64, states: Int) async throws -> Double {
    let logger = FleetCluster.logger
    try await client.query("DROP TABLE IF EXISTS catch_up_floor_states", logger: logger)
    try await client.query(
        "CREATE UNLOGGED TABLE catch_up_floor_states AS SELECT * FROM projection_states WHERE app_id = \(appID)",
        logger: logger)
    try await client.query("DELETE FROM projection_states WHERE app_id = \(appID)", logger: logger)
    var stores: [UUID] = []
    for try await store in try await client.query(
        "SELECT DISTINCT store_id FROM catch_up_floor_states ORDER BY store_id", logger: logger
    ).decode(UUID.self) {
        stores.append(store)
    }
    final class Pending: Sendable {
        let stores: Mutex<ArraySlice<UUID>>
        init(_ stores: [UUID]) { self.stores = Mutex(stores[...]) }
    }
    let pending = Pending(stores)
    let clock = ContinuousClock()
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<2 {
            group.addTask {
                while let store = pending.stores.withLock({ $0.popFirst() }) {
                    try await client.withTransaction(logger: logger) { connection in
                        for try await _ in try await connection.query(
                            """
                            SELECT sequence, record FROM records WHERE app_id = \(appID) AND store_id = \(store)
                            ORDER BY sequence
                            """, logger: logger
                        ).decode((Int64, ByteBuffer).self) {}
                        try await connection.query(
                            """
                            INSERT INTO projection_states SELECT * FROM catch_up_floor_states
                            WHERE app_id = \(appID) AND store_id = \(store)
                            """, logger: logger)
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let seconds = start.duration(to: clock.now).seconds
    try await client.query("DROP TABLE catch_up_floor_states", logger: logger)
    let stored = try await countStates(client: client, appID: appID)
    guard stored == states else {
        throw FleetSetupError("the floor wrote back \(stored) projection states of \(states)")
    }
    return seconds
}

/// The CPU seconds every process of the machine has used since boot (`/proc/stat`'s first line:
/// user, nice, system, irq and softirq time): around a step, the CPU of the server's process and
/// of PostgreSQL's together (and of whatever else runs).
private func machineBusySeconds() throws -> Double {
    let stat = try String(contentsOfFile: "/proc/stat", encoding: .utf8)
    guard let line = stat.split(separator: "\n").first, line.hasPrefix("cpu ") else {
        throw FleetSetupError("/proc/stat has no cpu line")
    }
    let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard fields.count >= 7 else { throw FleetSetupError("/proc/stat's cpu line has \(fields.count) fields") }
    let ticks = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}
