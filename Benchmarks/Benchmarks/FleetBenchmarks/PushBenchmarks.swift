import Benchmark
import BenchmarkSupport
import Foundation
import PostgresNIO
import RewindBaseTestSupport
import RewindServer

#if canImport(Glibc)
    import Glibc
#endif

/// What the push benchmark runs on: the ingestion row's fleet and server, and one device's store
/// for `rewind push`.
struct PushFixture: Sendable {
    let server: FleetServer
    let upload: FleetUpload
    /// The push's store as pre-encoded batches of the push's size, for the row's floor.
    let oneStore: FleetUpload
    let client: RunningClient
    /// The store `rewind push` uploads (copied before each push: the push keeps its checkpoint).
    let store: ScratchDirectory
    /// Its records.
    let storeRecords: Int
    /// The release `rewind` it runs.
    let cli: String
}

/// Item 8, `rewind push` (issue 34): one device's store uploaded by the CLI's uploader, in a
/// process of its own (RewindSync's `Uploader`, 5,000-record batches, the CLI's default), against the
/// 64 devices' ingestion of row 8 on the same server, interleaved: each iteration runs both (the
/// push first on even iterations). The push's store goes to a new app each time (stores are keyed
/// by app), copied from the same written store. Its CPU is the child's (`wait4`); the server's
/// during the push is this process's (`getrusage`: the server runs in it, the harness waits),
/// ingestion and the projections' catch-up of the pushed records as far as it got meanwhile.
/// After each step the projections catch up (untimed), so no step pays for the other's folds.
/// `REWIND_BENCH_PUSH_BATCH` sets `--batch-records`.
///
/// The floor, a third step interleaved with the two: the same store's records, in batches of the
/// push's size encoded before timing, posted in turn by a client thread in this process (one
/// batch in flight, as the push has; no reading, encoding or process of its own): what the server
/// takes from one store. The server stores a store's batches one at a time, so a push cannot beat
/// it by much; "one store ÷ ingestion" is that bound against the 64 devices' ingestion.
func registerPushBenchmarks(cluster: DatabaseURL) {
    let pushRate = BenchmarkMetric.custom("push records/s", polarity: .prefersLarger, useScalingFactor: false)
    let ingestionRate = BenchmarkMetric.custom(
        "64-device ingestion records/s", polarity: .prefersLarger, useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("push ÷ ingestion (%)", polarity: .prefersLarger, useScalingFactor: false)
    let clientCPU = BenchmarkMetric.custom(
        "push CPU per record (ns)", polarity: .prefersSmaller, useScalingFactor: false)
    let serverCPU = BenchmarkMetric.custom(
        "server CPU per pushed record (ns)", polarity: .prefersSmaller, useScalingFactor: false)
    let cpuRatio = BenchmarkMetric.custom(
        "push CPU ÷ server CPU (%)", polarity: .prefersSmaller, useScalingFactor: false)
    let oneStoreRate = BenchmarkMetric.custom(
        "one store in turn records/s", polarity: .prefersLarger, useScalingFactor: false)
    let pushOverOneStore = BenchmarkMetric.custom(
        "push ÷ one store in turn (%)", polarity: .prefersLarger, useScalingFactor: false)
    let oneStoreOverIngestion = BenchmarkMetric.custom(
        "one store ÷ ingestion (%)", polarity: .prefersLarger, useScalingFactor: false)
    let box = FixtureBox<PushFixture>()
    let database = FixtureBox<FleetDatabase>()

    Benchmark(
        "8 fleet push: one store by `rewind push` (its own process) against 64 devices' ingestion on the same server",
        configuration: .init(
            metrics: [
                pushRate, ingestionRate, ratio, clientCPU, serverCPU, cpuRatio, oneStoreRate, pushOverOneStore,
                oneStoreOverIngestion,
            ], warmupIterations: 1,
            maxDuration: .seconds(150), maxIterations: 4),
        closure: { benchmark in
            guard let fixture = box.value else { return benchmark.error("no fixture") }
            do {
                var push: PushRun?
                var ingestionSeconds = 0.0
                var oneStoreSeconds = 0.0
                // The three steps in turn, each iteration starting one step further.
                let steps = [PushStep.push, .ingestion, .oneStore]
                let first = benchmark.currentIteration % steps.count
                for step in steps[first...] + steps[..<first] {
                    switch step {
                    case .push:
                        push = try await fixture.push(iteration: benchmark.currentIteration)
                    case .ingestion:
                        let storeIDs = (0..<FleetShape.devices).map { _ in UUID() }
                        ingestionSeconds = try await fixture.upload.run(server: fixture.server, storeIDs: storeIDs)
                            .seconds
                    case .oneStore:
                        oneStoreSeconds = try await fixture.oneStore.run(server: fixture.server, storeIDs: [UUID()])
                            .seconds
                    }
                    // The projections' catch-up of those records, before anything else is timed
                    // (the push waits for its own app's).
                    if step != .push { try await fixture.waitUntilCaughtUp(readKey: fixture.server.app.readKey.token) }
                }
                guard let push else { return benchmark.error("no push ran") }
                let pushed = Double(fixture.storeRecords) / push.seconds
                let ingested = Double(fixture.upload.recordCount) / ingestionSeconds
                benchmark.measurement(pushRate, Int(pushed))
                benchmark.measurement(ingestionRate, Int(ingested))
                benchmark.measurement(ratio, Int((100 * pushed / ingested).rounded()))
                benchmark.measurement(clientCPU, Int(push.clientCPU * 1e9 / Double(fixture.storeRecords)))
                benchmark.measurement(serverCPU, Int(push.serverCPU * 1e9 / Double(fixture.storeRecords)))
                benchmark.measurement(cpuRatio, Int((100 * push.clientCPU / push.serverCPU).rounded()))
                let oneStore = Double(fixture.oneStore.recordCount) / oneStoreSeconds
                benchmark.measurement(oneStoreRate, Int(oneStore))
                benchmark.measurement(pushOverOneStore, Int((100 * pushed / oneStore).rounded()))
                benchmark.measurement(oneStoreOverIngestion, Int((100 * oneStore / ingested).rounded()))
                report(
                    "iteration \(benchmark.currentIteration): "
                        + String(
                            format:
                                "push %.0f records/s (%.2f s; CPU: push %.3f s, server %.3f s), 64-device ingestion %.0f records/s, push ÷ ingestion %.2f×, one store in turn %.0f records/s (push ÷ it %.2f×, it ÷ ingestion %.2f×)",
                            pushed, push.seconds, push.clientCPU, push.serverCPU, ingested, pushed / ingested,
                            oneStore, pushed / oneStore, oneStore / ingested))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            let cli = try PushFixture.cliPath()
            let devices = try await writeFleet(
                devices: FleetShape.devices, recordsPerDevice: FleetShape.recordsPerDevice)
            let store = try ScratchDirectory("push-store")
            let device = try await FleetDevice.write(
                index: FleetShape.devices, records: FleetShape.recordsPerDevice * 8, keepingIn: store)
            let made = try await FleetDatabase.make(in: cluster)
            database.value = made
            let server = try await FleetServer.start(database: made)
            let client = RunningClient(made.url, connections: 2)
            // The push's batch size: `--batch-records`, else the CLI's default (`Push.defaultBatchRecords`).
            let oneStore = FleetUpload(devices: [device], batchSize: PushFixture.batchRecords ?? 5_000)
            box.value = PushFixture(
                server: server, upload: FleetUpload(devices: devices, batchSize: FleetShape.batchSize),
                oneStore: oneStore, client: client, store: store, storeRecords: device.records.count, cli: cli)
            report("one store in turn: \(oneStore.recordCount) records in batches of \(oneStore.batchSize)")
            let settings = try await made.verifyDurable().map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            report("PostgreSQL settings read back: \(settings)")
            report("push: \(cli), a store of \(device.records.count) records; the fleet: \(devices.count) devices")
        },
        teardown: {
            if let fixture = box.value {
                await fixture.client.stop()
                try await fixture.server.stop()
                fixture.store.remove()
            }
            box.value = nil
            try await database.value?.drop()
        })
}

/// A timed step of the push row.
private enum PushStep {
    case push, ingestion, oneStore
}

/// One push: its wall-clock seconds, and the CPU seconds of the `rewind push` process and of the
/// server meanwhile.
struct PushRun: Sendable {
    var seconds: Double
    var clientCPU: Double
    var serverCPU: Double
}

extension PushFixture {
    /// The release `rewind`: `REWIND_BENCH_CLI`, else the one beside this benchmark's executable
    /// (`swift build -c release --product rewind` in Benchmarks/, which `make bench-fleet` runs).
    static func cliPath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["REWIND_BENCH_CLI"], !path.isEmpty { return path }
        // The executable's own path (the harness may start it under another name).
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe")
        let beside = executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("rewind")
            .path
        guard FileManager.default.isExecutableFile(atPath: beside) else {
            throw FleetSetupError(
                "no release rewind at \(beside): run `swift build -c release --product rewind` in Benchmarks/ (make bench-fleet does), or set REWIND_BENCH_CLI"
            )
        }
        return beside
    }

    /// Copies the store, makes a new app, runs `rewind push` of the copy to it, and checks that
    /// the server holds every record.
    func push(iteration: Int) async throws -> PushRun {
        let copy = try ScratchDirectory("push-copy")
        defer { copy.remove() }
        let target = copy.path + "/store"
        try FileManager.default.copyItem(atPath: store.path, toPath: target)
        let app = try await server.database.withClient { client in
            try await KeyRegistry(client: client, logger: FleetCluster.logger).createApp(
                named: "push-\(iteration)-\(UUID().uuidString.prefix(8))")
        }
        var arguments = [
            cli, "push", "--store", target, "--server", "http://127.0.0.1:\(server.port)", "--key",
            app.ingestKey.token, "--json",
        ]
        if let batch = Self.batchRecords { arguments += ["--batch-records", "\(batch)"] }
        let clock = ContinuousClock()
        let before = Self.ownCPU()
        let start = clock.now
        // Its standard output (the JSON report) discarded, as a terminal's would cost nothing here.
        let devNull = open("/dev/null", O_RDWR)
        guard devNull >= 0 else { throw FleetSetupError("open /dev/null: \(String(cString: strerror(errno)))") }
        defer { close(devNull) }
        let child = try SpawnedProcess(
            arguments[0], arguments: Array(arguments.dropFirst()), stdin: devNull, stdout: devNull, stderr: 2)
        let exit = await child.waitForExit()
        let seconds = start.duration(to: clock.now).seconds
        let serverCPU = Self.ownCPU() - before
        guard exit.code == 0, !exit.signaled, let clientCPU = child.cpuSeconds else {
            throw FleetSetupError("rewind push ended with \(exit)")
        }
        var counted = 0
        for try await count in try await client.client.query(
            "SELECT count(*)::bigint FROM records WHERE app_id = \(app.appID)", logger: FleetCluster.logger
        ).decode(Int64.self) {
            counted = Int(count)
        }
        guard counted == storeRecords else {
            throw FleetSetupError("the push stored \(counted) records of \(storeRecords)")
        }
        // The projections' catch-up of the pushed records, before anything else is timed.
        try await waitUntilCaughtUp(readKey: app.readKey.token)
        return PushRun(seconds: seconds, clientCPU: clientCPU, serverCPU: serverCPU)
    }

    /// `rewind push --batch-records` (`REWIND_BENCH_PUSH_BATCH`; the CLI's default, 5,000, otherwise).
    static let batchRecords = ProcessInfo.processInfo.environment["REWIND_BENCH_PUSH_BATCH"].flatMap(Int.init)

    /// Waits until the server's projections have folded every record of the app whose read key is
    /// `readKey` (`GET /v1/projections/status`: every lag 0): the catch-up the server runs after
    /// ingestion would otherwise run during the next timed step.
    func waitUntilCaughtUp(readKey: String) async throws {
        struct Status: Decodable {
            struct Projection: Decodable { var lag: Int64 }
            var projections: [Projection]
        }
        let port = server.port
        try await onThread {
            let connection = try LoopbackConnection(port: port)
            while true {
                let response = try connection.request(
                    "GET", "/v1/projections/status", headers: [("Authorization", "Bearer \(readKey)")], body: [])
                guard response.status == 200 else {
                    throw FleetSetupError("projections status: \(response.status) \(response.text)")
                }
                let status = try JSONDecoder().decode(Status.self, from: Data(response.body))
                if status.projections.allSatisfy({ $0.lag == 0 }) { return }
                usleep(20_000)
            }
        }
    }

    /// This process's user and system CPU seconds so far.
    static func ownCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.cpuSeconds
    }
}
