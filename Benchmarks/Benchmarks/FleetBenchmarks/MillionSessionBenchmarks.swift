import Benchmark
import BenchmarkSupport
import Foundation
import PostgresNIO
import Rewind
import RewindExamples
import RewindServer

/// Item 15, the read side at a million sessions (issue 32): the fleet's 64 devices uploaded through
/// the server and folded by its catch-up (the template), then copied in SQL until the app holds
/// 1,000,000 sessions (each copy a new store id per device, its `*_us` time columns moved back by
/// 0–29 days so the sessions spread over 30 days; the copied projection states go through the
/// counting triggers like any other write), then `ANALYZE`. Per iteration, 15 rounds of five
/// requests over HTTP with the read key, their p50 each: a machine's funnel over every day and
/// over 7 days (onboarding), a random session's page, the fleet page and the fleet page filtered
/// to one machine (the loading view) and 7 days. The targets (issue 32): funnel and session page p50 < 100 ms, fleet page
/// < 300 ms. `REWIND_BENCH_MILLION_SESSIONS` sets the sessions (a quick trial run).
func registerMillionSessionBenchmarks(cluster: DatabaseURL) {
    struct Fixture {
        var server: FleetServer
        var client: RunningClient
        var samples: [(store: UUID, session: String)]
        var lastDay: Int64
    }
    let box = FixtureBox<Fixture>()
    let database = FixtureBox<FleetDatabase>()
    let target = ProcessInfo.processInfo.environment["REWIND_BENCH_MILLION_SESSIONS"].flatMap(Int64.init) ?? 1_000_000
    let requests: [(name: String, metric: BenchmarkMetric)] = [
        "funnel, every day", "funnel, 7 days", "session page", "fleet page", "fleet page, one machine and 7 days",
    ].map { ($0, BenchmarkMetric.custom("\($0) p50 (µs)", polarity: .prefersSmaller, useScalingFactor: false)) }

    Benchmark(
        "15 fleet reads at a million sessions: funnel, session page and fleet page p50 over HTTP",
        configuration: .init(
            metrics: requests.map(\.metric), warmupIterations: 1, maxDuration: .seconds(120), maxIterations: 3),
        closure: { benchmark in
            guard let fixture = box.value else { return benchmark.error("no fixture") }
            do {
                // The last 7 days, as the page's form sends them (`to` is the last day included).
                let sevenDays = "from=\(dayText(fixture.lastDay - 6))&to=\(dayText(fixture.lastDay))"
                let onboarding = ExampleMachines.Onboarding.definition.name
                let loading = ExampleMachines.LoadingView.definition.name
                let port = fixture.server.port
                let token = fixture.server.app.readKey.token
                let samples = fixture.samples
                let latencies = try await onThread { () -> [[Int]] in
                    let connection = try LoopbackConnection(port: port)
                    let headers = [("Authorization", "Bearer \(token)")]
                    let clock = ContinuousClock()
                    var latencies = Array(repeating: [Int](), count: 5)
                    for round in 0..<15 {
                        let sample = samples[round % samples.count]
                        let paths = [
                            "/v1/machines/\(onboarding)/funnel",
                            "/v1/machines/\(onboarding)/funnel?\(sevenDays)",
                            "/v1/stores/\(sample.store.uuidString.lowercased())/sessions/\(sample.session)/page",
                            "/v1/pages/fleet",
                            "/v1/pages/fleet?machine=\(loading)&\(sevenDays)",
                        ]
                        for (index, path) in paths.enumerated() {
                            let sent = clock.now
                            let response = try connection.request("GET", path, headers: headers, body: [])
                            latencies[index].append(clock.now.nanoseconds(since: sent))
                            guard response.status == 200 else {
                                throw FleetSetupError("GET \(path): \(response.status) \(response.text.prefix(300))")
                            }
                        }
                    }
                    return latencies
                }
                var line: [String] = []
                for ((name, metric), measured) in zip(requests, latencies) {
                    let p50 = measured.sorted()[measured.count / 2] / 1000
                    benchmark.measurement(metric, p50)
                    line.append(String(format: "%@ %.1f ms", name, Double(p50) / 1000))
                }
                report("million sessions iteration \(benchmark.currentIteration), p50: " + line.joined(separator: ", "))
            } catch {
                benchmark.error("\(error)")
            }
        },
        setup: {
            // PostgreSQL's errors say what failed only when reflected.
            do {
                let clock = ContinuousClock()
                let start = clock.now
                let devices = try await writeFleet(
                    devices: FleetShape.devices, recordsPerDevice: FleetShape.recordsPerDevice)
                let made = try await FleetDatabase.make(in: cluster)
                database.value = made
                let server = try await FleetServer.start(database: made)
                let client = RunningClient(made.url, connections: 4)
                let upload = FleetUpload(devices: devices, batchSize: FleetShape.batchSize)
                _ = try await upload.run(server: server, storeIDs: devices.map { _ in UUID() })
                let appID = server.app.appID
                let logger = FleetCluster.logger
                // The server folds after each upload; this waits for it (taking turns on each store).
                while try await RewindServer.catchUpProjections(on: client.client, logger: logger) > 0 {}
                let template = try await count("sessions", appID: appID, client: client.client)
                let copies = max(0, (target + template - 1) / template - 1)
                report("million sessions: template \(template) sessions uploaded and folded, \(copies) copies to make")
                for table in ["stores", "records", "sessions", "projection_checkpoints", "projection_states"] {
                    let copyStart = clock.now
                    try await copy(table, appID: appID, copies: copies, client: client.client)
                    report("million sessions: copied \(table) in \(clock.now - copyStart)")
                }
                try await client.client.query("ANALYZE", logger: logger)
                let sessions = try await count("sessions", appID: appID, client: client.client)
                let records = try await count("records", appID: appID, client: client.client)
                var samples: [(store: UUID, session: String)] = []
                for try await (store, session) in try await client.client.query(
                    """
                    SELECT store_id, session_id FROM sessions TABLESAMPLE SYSTEM (1) REPEATABLE (7)
                    WHERE app_id = \(appID) LIMIT 15
                    """, logger: logger
                ).decode((UUID, String).self) {
                    samples.append((store, session))
                }
                var lastDay: Int64 = 0
                for try await day in try await client.client.query(
                    "SELECT coalesce(max(day), 0)::bigint FROM flow_days WHERE app_id = \(appID)", logger: logger
                ).decode(Int64.self) {
                    lastDay = day
                }
                guard !samples.isEmpty else { throw FleetSetupError("no session to sample") }
                box.value = Fixture(server: server, client: client, samples: samples, lastDay: lastDay)
                report(
                    "million sessions: \(sessions) sessions, \(records) records of \(copies + 1) × \(devices.count) stores, "
                        + "ready in \(clock.now - start)")
            } catch {
                throw FleetSetupError("million sessions: \(String(reflecting: error))")
            }
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

/// A day (days since 1970) as `YYYY-MM-DD`, as a form's date field sends it.
private func dayText(_ day: Int64) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withFullDate]
    return formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
}

/// The rows of `table` of app `appID`.
private func count(_ table: String, appID: Int64, client: PostgresClient) async throws -> Int64 {
    for try await count in try await client.query(
        PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM \(table) WHERE app_id = \(appID)"),
        logger: FleetCluster.logger
    ).decode(Int64.self) {
        return count
    }
    return 0
}

/// Copies every row of `table` of app `appID` `copies` times in one statement: copy `k` under the
/// store id `md5(store_id || '/' || k)`, its `*_us` times `k % 30` days earlier.
private func copy(_ table: String, appID: Int64, copies: Int64, client: PostgresClient) async throws {
    var columns: [String] = []
    for try await name in try await client.query(
        """
        SELECT column_name::text FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = \(table) ORDER BY ordinal_position
        """, logger: FleetCluster.logger
    ).decode(String.self) {
        columns.append(name)
    }
    let values = columns.map { column in
        if column == "store_id" { return "md5(store_id::text || '/' || k)::uuid" }
        if column.hasSuffix("_us") { return "\(column) - (k % 30) * 86400000000" }
        return column
    }
    try await client.withTransaction(logger: FleetCluster.logger) { connection in
        // The copies' foreign keys hold (their stores are copied first): the rows skip their
        // per-row checks, as a replica applying them would (`replica` fires no ordinary trigger,
        // so the projection states, whose counting triggers must fire, are copied as the origin).
        if table != "projection_states" {
            try await connection.query("SET LOCAL session_replication_role = replica", logger: FleetCluster.logger)
        }
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(table) (\(columns.joined(separator: ", ")))
                    SELECT \(values.joined(separator: ", ")) FROM \(table), generate_series(1, \(copies)) AS k
                    WHERE app_id = \(appID)
                    """), logger: FleetCluster.logger)
    }
}
