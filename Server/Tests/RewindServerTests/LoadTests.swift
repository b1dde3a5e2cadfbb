import Foundation
import PostgresNIO
import Rewind
import RewindServer
import Testing

/// Issue 22's load: 200 devices × 500 transitions, real stores written by the engine, uploading
/// concurrently over loopback to one server in batches. Every record is stored exactly once,
/// each device's sequence is gap-free, and the server's funnels and navigation stacks are the
/// devices' own, summed. Prints the ingestion and catch-up rates and the tables' sizes.
@Suite(.timeLimit(.minutes(10))) struct LoadTests {
    static let deviceCount = 200
    static let recordsPerDevice = 500
    static let batchSize = 100

    /// What the test keeps of one device once its store is written and its engine closed: the
    /// batches it uploads and what its own projections say. Two hundred open engines hold about 800
    /// file descriptors; with the other suites' in the same process, descriptors past 1,024 broke
    /// the `select()` under Foundation's URLSession that the uploader's tests use, and a whole run
    /// hung. So at most `openDevices` engines are open at once.
    struct DeviceCopy: Sendable {
        var storeID: UUID
        var batches: [IngestionBatch]
        var funnels: [String: FunnelBody]
        var kanjiDepths: [Int: Int]
        var stacks: [String: ScreenStack]
    }

    static let openDevices = 16

    /// Device `index`'s store written, read into a ``DeviceCopy``, and closed.
    static func writeDevice(_ index: Int) async throws -> DeviceCopy {
        let device = try Device()
        try await device.runMixed(records: recordsPerDevice, seed: 5000 + UInt64(index), prefix: "u\(index)")
        let batches = try stride(from: 1, through: recordsPerDevice, by: batchSize).map {
            try device.batch(from: UInt64($0), limit: batchSize)
        }
        try device.registerBuiltInProjections()
        var funnels: [String: FunnelBody] = [:]
        for machine in ["onboarding", "kanji"] {
            funnels[machine] = try ProjectionRoutesTests.summedFunnel([device], machine: machine)
        }
        var stacks: [String: ScreenStack] = [:]
        for (key, stack) in try device.engine.navigationStacks.all() {
            stacks["\(device.storeID)/\(key.rawValue)"] = stack
        }
        return DeviceCopy(
            storeID: device.storeID, batches: batches, funnels: funnels,
            kanjiDepths: try device.engine.navigationStacks.depthStatistics(machine: "kanji").histogram, stacks: stacks)
    }

    @Test func twoHundredDevicesUploadingAtOnce() async throws {
        let clock = ContinuousClock()
        let writing = clock.now
        // The devices' stores, written in parallel tasks, at most `openDevices` at once.
        let devices = try await withThrowingTaskGroup(of: DeviceCopy.self) { group in
            var devices: [DeviceCopy] = []
            for index in 0..<Self.deviceCount {
                if index >= Self.openDevices, let device = try await group.next() { devices.append(device) }
                group.addTask { try await Self.writeDevice(index) }
            }
            for try await device in group { devices.append(device) }
            return devices
        }
        let written = clock.now - writing

        let server = try await TestServer.start()
        let uploading = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask {
                    for batch in device.batches {
                        let response = try await server.upload(batch, store: device.storeID)
                        guard response.status == 200 else { throw TestServer.UnexpectedResponse(response: response) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let uploaded = clock.now - uploading
        try await server.waitUntilCaughtUp()
        let caughtUp = clock.now - uploading

        let total = Self.deviceCount * Self.recordsPerDevice
        // Every record exactly once; every device's sequence 1...500 without a gap.
        let (count, distinct, stores) = try await server.database.withClient { client in
            var result: (Int64, Int64, [UUID: (Int64, Int64, Int64)]) = (0, 0, [:])
            for try await (count, distinct) in try await client.query(
                "SELECT count(*)::bigint, count(DISTINCT (store_id, sequence))::bigint FROM records"
            ).decode((Int64, Int64).self) {
                result.0 = count
                result.1 = distinct
            }
            for try await (store, first, last, count) in try await client.query(
                "SELECT store_id, min(sequence), max(sequence), count(*)::bigint FROM records GROUP BY store_id"
            ).decode((UUID, Int64, Int64, Int64).self) {
                result.2[store] = (first, last, count)
            }
            return result
        }
        #expect(count == Int64(total))
        #expect(distinct == Int64(total))
        #expect(stores.count == Self.deviceCount)
        for device in devices {
            let range = try #require(stores[device.storeID])
            #expect(range == (1, Int64(Self.recordsPerDevice), Int64(Self.recordsPerDevice)), "\(device.storeID)")
        }

        // The devices' own projections, summed, against the server's.
        for machine in ["onboarding", "kanji"] {
            let funnel = try await server.get("/v1/machines/\(machine)/funnel").json(FunnelBody.self)
            var sum = FunnelBody(machine: machine, sessions: 0, reached: [:], stoppedAt: [:])
            for device in devices {
                guard let own = device.funnels[machine] else { continue }
                sum.sessions += own.sessions
                sum.reached.merge(own.reached, uniquingKeysWith: +)
                sum.stoppedAt.merge(own.stoppedAt, uniquingKeysWith: +)
            }
            #expect(funnel == sum, "\(machine)")
        }
        var histogram: [Int: Int] = [:]
        for device in devices { histogram.merge(device.kanjiDepths, uniquingKeysWith: +) }
        let stacks = try await server.get("/v1/machines/kanji/stacks").json(StacksBody.self)
        #expect(stacks.histogram == Dictionary(uniqueKeysWithValues: histogram.map { (String($0.key), $0.value) }))
        // Every session's stack, entries and data.
        let serverStacks = try await server.database.withClient { client in
            var stacks: [String: ScreenStack] = [:]
            for try await (store, key, state) in try await client.query(
                """
                SELECT store_id, key, state FROM projection_states WHERE projection = \(NavigationProjection().name)
                """
            ).decode((UUID, String, ByteBuffer).self) {
                stacks["\(store)/\(key)"] = try state.readableBytesView.withUnsafeBytes {
                    try NavigationProjection().decode($0)
                }.stack
            }
            return stacks
        }
        var deviceStacks: [String: ScreenStack] = [:]
        for device in devices { deviceStacks.merge(device.stacks, uniquingKeysWith: { first, _ in first }) }
        #expect(serverStacks.count == deviceStacks.count)
        #expect(serverStacks == deviceStacks)

        // The numbers for the report.
        let sizes = try await server.database.withClient { client in
            var sizes: [(String, Int64)] = []
            for table in ["records", "sessions", "projection_states", "projection_checkpoints"] {
                for try await size in try await client.query("SELECT pg_total_relation_size(\(table)::regclass)")
                    .decode(Int64.self)
                {
                    sizes.append((table, size))
                }
            }
            return sizes
        }
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        print("load: \(Self.deviceCount) devices × \(Self.recordsPerDevice) records written in \(written)")
        print("load: ingested \(total) records in \(uploaded): \(Int(Double(total) / seconds(uploaded))) records/s")
        print("load: projections caught up \(caughtUp) after the first upload")
        print(
            "load: \(try await server.database.count("sessions")) sessions, \(try await server.database.count("projection_states")) projection states"
        )
        for (table, size) in sizes {
            print("load: \(table) \(size) bytes, \(size * 1_000_000 / Int64(total)) bytes per million records")
        }
        try await server.stop()
    }
}
