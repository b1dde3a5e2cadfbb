import Foundation
import PostgresNIO
import Rewind
import RewindExamples
import RewindServer
import Synchronization
import Testing

/// The counts PostgreSQL's triggers keep (`FlowAggregates`) and the tally read from them
/// (`FlowTally`) give, for any range, the numbers the devices' own flows give: the funnels, the
/// fleet page's totals and trend, and the stack statistics, after uploads, after sessions moved to
/// a later day, and after an erasure.
@Suite(.timeLimit(.minutes(10))) struct FlowAggregatesTests {
    static let day: Int64 = 86_400_000_000
    static let hour: Int64 = 3_600_000_000
    /// The first day of the records: 2025-11-01, 00:00 UTC.
    static let firstDay: Int64 = 20_393 * day

    /// A clock that moves `step` at each reading, and can jump ahead.
    final class SteppingClock: Sendable {
        private let next: Mutex<Int64>
        private let step: Int64

        init(start: Int64, step: Int64) {
            next = Mutex(start)
            self.step = step
        }

        func read() -> Timestamp {
            next.withLock { next in
                defer { next += step }
                return Timestamp(microsecondsSince1970: next)
            }
        }

        func jump(by duration: Int64) {
            next.withLock { $0 += duration }
        }
    }

    /// One session as its device's flow has it.
    struct Flow {
        var session: String
        var machine: String
        var first: Int64
        var last: Int64
        var configuration: [String]
        var reached: [String]
        var records: Int
    }

    /// Every session of `devices`, from their screen-flow projection and their records.
    static func flows(_ devices: [Device]) throws -> [Flow] {
        var flows: [Flow] = []
        for device in devices {
            try device.registerBuiltInProjections()
            var first: [String: Int64] = [:]
            for record in try device.records() where first[record.session.rawValue] == nil {
                first[record.session.rawValue] = record.timestamp.microsecondsSince1970
            }
            for (key, flow) in try device.engine.screenFlows.all() {
                let last = flow.updated.microsecondsSince1970
                flows.append(
                    Flow(
                        session: key.rawValue, machine: flow.machine, first: first[key.rawValue] ?? last, last: last,
                        configuration: flow.configuration, reached: flow.reached, records: Int(flow.version)))
            }
        }
        return flows
    }

    /// Days since 1970 of a time, as the page names them.
    static func dayName(_ time: Int64) -> String {
        let day = time >= 0 ? time / Self.day : (time - Self.day + 1) / Self.day
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
    }

    /// The query of a range.
    static func query(_ range: (from: Int64?, to: Int64?)) -> String {
        [range.from.map { "from=\($0)" }, range.to.map { "to=\($0)" }].compactMap { $0 }.joined(separator: "&")
    }

    /// Checks every number the server answers for `range` against `flows`.
    static func check(
        _ server: TestServer, _ flows: [Flow], range: (from: Int64?, to: Int64?),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let chosen = flows.filter { flow in
            (range.from.map { flow.last >= $0 } ?? true) && (range.to.map { flow.last < $0 } ?? true)
        }
        let label = "range \(query(range))"
        // The funnels, through the JSON endpoint.
        for machine in ["onboarding", "kanji"] {
            let sessions = chosen.filter { $0.machine == machine }
            var expected = FunnelBody(machine: machine, sessions: sessions.count, reached: [:], stoppedAt: [:])
            for flow in sessions {
                for state in flow.reached { expected.reached[state, default: 0] += 1 }
                for state in flow.configuration { expected.stoppedAt[state, default: 0] += 1 }
            }
            let answered = try await server.get("/v1/machines/\(machine)/funnel?\(query(range))").json(FunnelBody.self)
            #expect(answered == expected, "\(machine), \(label)", sourceLocation: sourceLocation)
        }
        // The fleet page: its machines, its totals, and onboarding's trend (finished: in `home`,
        // the flow's one state with no way out).
        let page = try await server.get("/v1/pages/fleet?\(query(range))&limit=1").text
        let machines = try FleetPageTests.captures(
            #"<article class="rw-machine" data-machine="([^"]*)" data-sessions="(\d+)""#, in: page)
        var expectedMachines: [String: Int] = [:]
        for flow in chosen { expectedMachines[flow.machine, default: 0] += 1 }
        #expect(
            Dictionary(uniqueKeysWithValues: machines.map { ($0[0], Int($0[1]) ?? -1) }) == expectedMachines,
            "\(label)",
            sourceLocation: sourceLocation)
        func total(_ name: String) throws -> String? {
            try FleetPageTests.captures(#"<div data-total="\#(name)" data-value="([^"]*)">"#, in: page).first?.first
        }
        #expect(try total("sessions") == "\(chosen.count)", "\(label)", sourceLocation: sourceLocation)
        #expect(
            try total("records") == "\(chosen.reduce(0) { $0 + $1.records })", "\(label)",
            sourceLocation: sourceLocation)
        var expectedDays: [String: [Int]] = [:]
        for flow in chosen where flow.machine == "onboarding" {
            expectedDays[dayName(flow.first), default: [0, 0]][0] += 1
            if flow.configuration.contains("home") { expectedDays[dayName(flow.last), default: [0, 0]][1] += 1 }
        }
        let onboarding =
            try FleetPageTests.captures(
                #"<article class="rw-machine" data-machine="onboarding"(.*?)</article>"#, in: page
            )
            .first?.first ?? ""
        let days = try FleetPageTests.captures(
            #"<g class="rw-day" data-day="([^"]*)" data-started="(\d+)" data-finished="(\d+)">"#, in: onboarding)
        // The chart draws every day of its span; the days with neither are empty bars.
        let drawn = days.map { ($0[0], [Int($0[1]) ?? -1, Int($0[2]) ?? -1]) }.filter { $0.1 != [0, 0] }
        #expect(
            Dictionary(uniqueKeysWithValues: drawn) == expectedDays,
            "\(label)", sourceLocation: sourceLocation)
    }

    /// The ranges checked: open, whole days, parts of days at either end or both, within one
    /// day, and ones with no session, two of them at the ends of the µs a time can be (their whole
    /// days' bounds overflow: the tally scans them instead).
    static let ranges: [(from: Int64?, to: Int64?)] = [
        (nil, nil),
        (firstDay + day, firstDay + 3 * day),
        (firstDay + day + 5 * hour, firstDay + 3 * day + 7 * hour),
        (firstDay + 2 * day + hour, firstDay + 2 * day + 9 * hour),
        (nil, firstDay + 2 * day + 3 * hour),
        (firstDay + day + 13 * hour, nil),
        (firstDay - 5 * day, firstDay - 4 * day + 2 * hour),
        (.max - 1, nil),
        (.min + 1, .min + 2),
    ]

    @Test func everyRangeCountsWhatTheDevicesFlowsSayAfterUploadsLaterRecordsAndAnErasure() async throws {
        let server = try await TestServer.start()
        // Two devices whose records are 47 minutes apart from 20:00 on the first day: sessions
        // begin on one day and end on the next, and the whole run covers about four days.
        let clocks = [0, 1].map { _ in SteppingClock(start: Self.firstDay + 20 * Self.hour, step: 47 * 60_000_000) }
        let devices = try clocks.map { clock in try Device(clock: { clock.read() }) }
        for (index, device) in devices.enumerated() {
            try await device.runMixed(records: 60, seed: 7 + UInt64(index), prefix: "d\(index)")
            try await device.runOnboarding("late-\(index)", events: 1)
            try await server.uploadAll(device, batchSize: 25)
        }
        try await server.waitUntilCaughtUp()
        for range in Self.ranges { try await Self.check(server, try Self.flows(devices), range: range) }

        // Later records move sessions to a later day (the states are updated: counted off their
        // old day, onto the new one).
        for (index, (device, clock)) in zip(devices, clocks).enumerated() {
            clock.jump(by: 2 * Self.day)
            let session = try await device.engine.openSession(
                id: try SessionID("late-\(index)"), machine: ExampleMachines.Onboarding.definition.name)
            for event in ExampleMachines.Onboarding.Event.allCases.dropFirst() { _ = try await session.send(event) }
            try await server.uploadAll(device)
        }
        try await server.waitUntilCaughtUp()
        let moved = try Self.flows(devices)
        let late = moved.filter { $0.session.hasPrefix("late-") }
        #expect(late.count == 2 && late.allSatisfy { $0.last - $0.first >= 2 * Self.day })
        for range in Self.ranges + [(Self.firstDay + 4 * Self.day, nil)] {
            try await Self.check(server, moved, range: range)
        }

        // An erasure deletes the sessions' states: they are counted off.
        let eraseKey = try await server.database.withClient { client in
            try await KeyRegistry(client: client, logger: testLogger).addKey(kind: .erase, toApp: server.app.appID)
        }
        let erased = try await server.request(
            "POST", "/v1/erasures", key: eraseKey, body: Array(#"{"session": "late-0"}"#.utf8))
        #expect(erased.status == 200, "\(erased.text)")
        let afterErasure = moved.filter { $0.session != "late-0" }
        for range in Self.ranges { try await Self.check(server, afterErasure, range: range) }

        // The stack statistics, from the stacks' counts, are the devices'.
        var histogram: [String: Int] = [:]
        for device in devices {
            let statistics = try device.engine.navigationStacks.depthStatistics(machine: "kanji")
            for (depth, sessions) in statistics.histogram {
                histogram[String(depth), default: 0] += sessions
            }
        }
        let stacks = try await server.get("/v1/machines/kanji/stacks").json(StacksBody.self)
        #expect(stacks.histogram == histogram)
        #expect(stacks.sessions == histogram.values.reduce(0, +))
        try await server.stop()
    }

    /// The counts of one app's flows kept by two transactions at once, as the catch-up folds two
    /// stores: each moves its store's states from day to day in two statements, in the order that
    /// deadlocks on the counts' rows (each holds the day the other moves to next: without the
    /// triggers' lock, PostgreSQL aborts one, checked) unless the triggers take the app's lock
    /// first. Both commit, and the counts are a recount of the states.
    @Test func twoTransactionsCountingOneAppsFlowsTakeTurnsInsteadOfDeadlocking() async throws {
        let server = try await TestServer.start()
        let clock = SteppingClock(start: Self.firstDay, step: 60_000_000)
        for store in ["a", "b"] {
            let device = try Device(clock: { clock.read() })
            try await device.runOnboarding(["\(store)-1", "\(store)-2"])
            try await server.uploadAll(device)
        }
        try await server.waitUntilCaughtUp()
        let stores = try await server.database.withClient { client in
            var stores: [UUID] = []
            for try await store in try await client.query("SELECT store_id FROM stores ORDER BY store_id").decode(
                UUID.self)
            {
                stores.append(store)
            }
            return stores
        }
        try #require(stores.count == 2)
        let url = server.database.url
        /// Moves store `store`'s flows to day `day` (and their first records to the first day, so
        /// both stores' flows share the counts' rows).
        @Sendable func move(_ store: UUID, to day: Int64) -> PostgresQuery {
            let time = Self.firstDay + day * Self.day
            return """
                UPDATE projection_states SET updated_at_us = \(time), first_recorded_at_us = \(Self.firstDay)
                WHERE store_id = \(store) AND reached IS NOT NULL
                """
        }
        // Apart first (days 1 and 2), so that neither transaction's first move waits on the other's.
        try await server.database.withClient { client in
            for (store, day) in zip(stores, [Int64(1), 2]) { _ = try await client.query(move(store, to: day)) }
        }
        final class Flag: Sendable { let raised = Mutex(false) }
        let secondMoved = Flag()
        try await RewindServer.withClient(url, logger: testLogger) { first in
            try await first.withConnection { one in
                try await RewindServer.withClient(url, logger: testLogger) { second in
                    _ = try await one.query("BEGIN", logger: testLogger)
                    _ = try await one.query(move(stores[0], to: 10), logger: testLogger)
                    let other = Task {
                        try await second.withConnection { two in
                            _ = try await two.query("BEGIN", logger: testLogger)
                            _ = try await two.query(move(stores[1], to: 11), logger: testLogger)
                            secondMoved.raised.withLock { $0 = true }
                            _ = try await two.query(move(stores[1], to: 10), logger: testLogger)
                            _ = try await two.query("COMMIT", logger: testLogger)
                        }
                    }
                    // The second has moved (without the lock) or waits for the first's (with it).
                    while try await Self.advisoryLockWaiters(server.database) == 0,
                        !secondMoved.raised.withLock({ $0 })
                    {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    _ = try await one.query(move(stores[0], to: 11), logger: testLogger)
                    _ = try await one.query("COMMIT", logger: testLogger)
                    try await other.value
                }
            }
        }
        let (counts, recount) = try await Self.flowDays(server.database)
        #expect(counts == recount)
        #expect(counts.contains("|10|") && counts.contains("|11|"), "\(counts)")
        try await server.stop()
    }

    /// Backends of `database` waiting for an advisory lock.
    static func advisoryLockWaiters(_ database: TestDatabase) async throws -> Int {
        try await database.withClient { client in
            var count = 0
            for try await value in try await client.query(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).decode(Int.self) {
                count = value
            }
            return count
        }
    }

    /// `flow_days` (its rows that count something) and the same counts recounted from the
    /// screen-flow states, each as `machine|day|first day|configuration|sessions|records` lines,
    /// days relative to the tests' first day.
    static func flowDays(_ database: TestDatabase) async throws -> (counts: String, recount: String) {
        let firstDay = firstDay / day
        return try await database.withClient { client in
            func lines(_ query: PostgresQuery) async throws -> String {
                var lines: [String] = []
                for try await line in try await client.query(query).decode(String.self) { lines.append(line) }
                return lines.joined(separator: "\n")
            }
            let counts = try await lines(
                """
                SELECT concat_ws('|', machine, day - \(firstDay), first_day - \(firstDay), configuration, sessions, records)
                FROM flow_days WHERE sessions <> 0 OR records <> 0
                ORDER BY machine, day, first_day, configuration
                """)
            let recount = try await lines(
                """
                SELECT concat_ws('|', machine, day - \(firstDay), first_day - \(firstDay), configuration, count(*),
                    sum(records))
                FROM (
                    SELECT machine, rewind_day(updated_at_us) AS day,
                        rewind_day(coalesce(first_recorded_at_us, updated_at_us)) AS first_day,
                        coalesce(configuration, '{}') AS configuration, coalesce(records, 0) AS records
                    FROM projection_states
                    WHERE reached IS NOT NULL AND machine IS NOT NULL AND updated_at_us IS NOT NULL
                ) states
                GROUP BY machine, day, first_day, configuration
                ORDER BY machine, day, first_day, configuration
                """)
            return (counts, recount)
        }
    }
}
