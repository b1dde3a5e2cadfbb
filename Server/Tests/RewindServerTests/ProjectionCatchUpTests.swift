import Foundation
import PostgresNIO
import Rewind
import RewindServer
@_spi(Internals) import RewindStore
import RewindWire
import Testing

/// The server folds the built-in projections over the uploaded records with their own Swift code:
/// its states are byte for byte the ones the device's engine stores, caught up after ingestion
/// and at start, rebuilt when a version changes, folded once with two servers.
@Suite(.timeLimit(.minutes(10))) struct ProjectionCatchUpTests {
    /// The stored states of `projection` for `storeID`, by key.
    static func states(_ database: TestDatabase, store storeID: UUID, projection: String) async throws -> [String:
        [UInt8]]
    {
        try await database.withClient { client in
            var states: [String: [UInt8]] = [:]
            for try await (key, state) in try await client.query(
                """
                SELECT key, state FROM projection_states WHERE store_id = \(storeID) AND projection = \(projection)
                """
            ).decode((String, ByteBuffer).self) {
                states[key] = Array(buffer: state)
            }
            return states
        }
    }

    /// Expects the server's states of both built-in projections for `device` to be the bytes the
    /// device's own projections encode.
    static func expectSameStates(
        _ server: TestServer, _ device: Device, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try device.registerBuiltInProjections()
        let flows = try device.engine.screenFlows.all()
        let stacks = try device.engine.reader(for: NavigationProjection()).states()
        #expect(!flows.isEmpty, sourceLocation: sourceLocation)
        var expectedFlows: [String: [UInt8]] = [:]
        for (key, flow) in flows {
            var bytes: [UInt8] = []
            ScreenFlowProjection().encode(flow, into: &bytes)
            expectedFlows[key.rawValue] = bytes
        }
        var expectedStacks: [String: [UInt8]] = [:]
        for (key, navigation) in stacks {
            var bytes: [UInt8] = []
            try NavigationProjection().encode(navigation, into: &bytes)
            expectedStacks[key.rawValue] = bytes
        }
        let serverFlows = try await states(
            server.database, store: device.storeID, projection: ScreenFlowProjection().name)
        let serverStacks = try await states(
            server.database, store: device.storeID, projection: NavigationProjection().name)
        #expect(serverFlows == expectedFlows, sourceLocation: sourceLocation)
        #expect(serverStacks == expectedStacks, sourceLocation: sourceLocation)
    }

    @Test func theStatesAreTheDevicesOwnAfterEachBatch() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runMixed(records: 150, seed: 1)
        // Small batches: sessions span batches, so states are loaded, folded further and rewritten.
        try await server.uploadAll(device, batchSize: 7)
        try await server.waitUntilCaughtUp()
        try await Self.expectSameStates(server, device)
        let status = try await server.get("/v1/projections/status").json(ProjectionStatusBody.self)
        #expect(status.projections.map(\.name) == [ScreenFlowProjection().name, NavigationProjection().name])
        #expect(status.projections.allSatisfy { $0.stores == 1 && $0.lag == 0 && $0.failedStores == 0 })
        // More records of the same sessions' device later: folded on top of the stored states.
        try await device.runMixed(records: 40, seed: 2, prefix: "later")
        try await server.uploadAll(device, batchSize: 15)
        try await server.waitUntilCaughtUp()
        try await Self.expectSameStates(server, device)
        try await server.stop()
    }

    @Test func aServerCatchesUpAtStartWithWhatTheDatabaseHolds() async throws {
        let first = try await TestServer.start()
        let device = try Device()
        try await device.runMixed(records: 60, seed: 3)
        try await first.uploadAll(device)
        try await first.waitUntilCaughtUp()
        try await first.stop()
        // As if the projections had never run (a database from before migration 2 had records).
        try await first.database.withClient { client in
            try await client.query("DELETE FROM projection_states")
            try await client.query("DELETE FROM projection_checkpoints")
        }
        let second = try await TestServer.start(database: first.database)
        try await second.waitUntilCaughtUp(key: first.app.readKey)
        try await Self.expectSameStates(second, device)
        try await second.stop()
    }

    @Test func aCatchUpPassRunOnADatabaseFoldsWhatTheServiceWould() async throws {
        let server = try await TestServer.start()
        let devices = try (0..<3).map { _ in try Device() }
        for (index, device) in devices.enumerated() {
            try await device.runMixed(records: 90, seed: 30 + UInt64(index))
            try await server.uploadAll(device, batchSize: 40)
        }
        try await server.stop()
        // As if nothing had been folded: one pass on the database, with no server running.
        try await server.database.withClient { client in
            try await client.query("DELETE FROM projection_states")
            try await client.query("DELETE FROM projection_checkpoints")
        }
        let read = try await server.database.withClient { client in
            try await RewindServer.catchUpProjections(on: client, logger: testLogger)
        }
        let total = try devices.reduce(0) { $0 + (try $1.records().count) }
        #expect(read == Int64(total))
        for device in devices { try await Self.expectSameStates(server, device) }
        // Nothing is behind any more: a second pass reads nothing.
        let again = try await server.database.withClient { client in
            try await RewindServer.catchUpProjections(on: client, logger: testLogger)
        }
        #expect(again == 0)
    }

    @Test func aDamagedStoredRecordStopsThePassWithATypedErrorNamingItAndWritesNothing() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runMixed(records: 40, seed: 7)
        try await server.uploadAll(device, batchSize: 40)
        try await server.stop()
        let storeID = device.storeID
        var damaged = RecordCodec.encode(try device.records()[4])
        damaged[damaged.count / 2] ^= 0x10
        let flipped = damaged
        try await server.database.withClient { client in
            try await client.query("DELETE FROM projection_states")
            try await client.query("DELETE FROM projection_checkpoints")
            try await client.query(
                """
                UPDATE records SET record = \(ByteBuffer(bytes: flipped)) WHERE store_id = \(storeID) AND sequence = 5
                """)
        }
        let error = await #expect(throws: PostgresLogError.self) {
            try await server.database.withClient { client in
                try await RewindServer.catchUpProjections(on: client, logger: testLogger)
            }
        }
        guard case .damagedRecord(let store, let sequence, _) = error else {
            Issue.record("expected a damaged record, got \(String(describing: error))")
            return
        }
        #expect(store == storeID)
        #expect(sequence == 5)
        // The chunk holding it was not folded: no state of either projection was written.
        #expect(try await Self.states(server.database, store: storeID, projection: ScreenFlowProjection().name).isEmpty)
        #expect(try await Self.states(server.database, store: storeID, projection: NavigationProjection().name).isEmpty)
    }

    @Test func aServerStoppedWhileFoldingLeavesStatesAndCheckpointsTogether() async throws {
        let first = try await TestServer.start()
        let devices = try (0..<4).map { _ in try Device() }
        for (index, device) in devices.enumerated() {
            try await device.runMixed(records: 300, seed: 60 + UInt64(index))
            try await first.uploadAll(device, batchSize: 50)
        }
        // Stopped at once: the catch-up finishes the transaction it is in and stops.
        try await first.stop()
        let second = try await TestServer.start(database: first.database)
        try await second.waitUntilCaughtUp(key: first.app.readKey)
        // Nothing folded twice, nothing skipped across the restart.
        for device in devices { try await Self.expectSameStates(second, device) }
        try await second.stop()
    }

    @Test func aChangedProjectionVersionIsRebuiltFromTheFirstRecord() async throws {
        let first = try await TestServer.start()
        let device = try Device()
        try await device.runMixed(records: 50, seed: 4)
        try await first.uploadAll(device)
        try await first.waitUntilCaughtUp()
        try await first.stop()
        // Checkpoints of an older version, next to states the current version cannot read.
        try await first.database.withClient { client in
            try await client.query("UPDATE projection_checkpoints SET version = version + 100")
            try await client.query("UPDATE projection_states SET state = '\\x00ff'::bytea")
        }
        let second = try await TestServer.start(database: first.database)
        try await second.waitUntilCaughtUp(key: first.app.readKey)
        try await Self.expectSameStates(second, device)
        let versions = try await first.database.withClient { client in
            var versions: [String: Int64] = [:]
            for try await (name, version) in try await client.query(
                "SELECT projection, version FROM projection_checkpoints"
            ).decode((String, Int64).self) {
                versions[name] = version
            }
            return versions
        }
        #expect(
            versions == [
                ScreenFlowProjection().name: Int64(ScreenFlowProjection().version),
                NavigationProjection().name: Int64(NavigationProjection().version),
            ])
        try await second.stop()
    }

    @Test func aProjectionStopsBeforeARecordItsApplyRejectsAndTheOtherGoesOn() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        var generator = SeededGenerator(state: 42)
        try await device.runKanji("k", records: 8, using: &generator)
        try await device.runOnboarding("o", events: 3)
        // A push whose state data is not JSON (a store with another coder, say): its checksum is
        // valid, so it is stored, but the navigation projection's `apply` throws on it.
        var batch = try device.batch()
        var records = try device.records()
        let index = try #require(records.firstIndex { !$0.stateData.isEmpty && $0.navigation.contains { $0 != .none } })
        records[index].stateData = Array("not json".utf8)
        batch.records[index] = RecordCodec.encode(records[index])
        #expect(try await server.upload(batch, store: device.storeID).status == 200)
        try await server.waitUntilCaughtUp()

        let status = try await server.get("/v1/projections/status").json(ProjectionStatusBody.self)
        let byName = Dictionary(uniqueKeysWithValues: status.projections.map { ($0.name, $0) })
        #expect(byName[NavigationProjection().name]?.failedStores == 1)
        #expect(byName[ScreenFlowProjection().name]?.failedStores == 0)
        let checkpoints = try await server.database.withClient { client in
            var checkpoints: [String: (Int64, String?)] = [:]
            for try await (name, sequence, failure) in try await client.query(
                "SELECT projection, sequence, failure FROM projection_checkpoints"
            ).decode((String, Int64, String?).self) {
                checkpoints[name] = (sequence, failure)
            }
            return checkpoints
        }
        let failed = try #require(checkpoints[NavigationProjection().name])
        #expect(failed.0 == Int64(index))  // stopped before the record (sequence index + 1)
        #expect(failed.1?.contains("sequence \(index + 1)") == true, "\(failed)")
        #expect(checkpoints[ScreenFlowProjection().name]?.0 == Int64(records.count))
        #expect(checkpoints[ScreenFlowProjection().name]?.1 == nil)
        // Later uploads fold into the healthy projection; the stopped one stays where it stopped.
        try await device.runOnboarding("later", events: 1)
        try await server.uploadAll(device)
        try await server.waitUntilCaughtUp()
        let funnel = try await server.get("/v1/machines/onboarding/funnel").json(FunnelBody.self)
        #expect(funnel.sessions == 2)
        try await server.stop()
    }

    @Test func twoServersOnOneDatabaseFoldEveryRecordOnce() async throws {
        let first = try await TestServer.start()
        let second = try await TestServer.start(database: first.database)
        let devices = try (0..<4).map { _ in try Device() }
        for (index, device) in devices.enumerated() {
            try await device.runMixed(records: 120, seed: 10 + UInt64(index))
        }
        // Each device's batches alternate between the servers, so both fold the same stores.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask {
                    var next: UInt64 = 1
                    let last = UInt64(try device.records().count)
                    var turn = 0
                    while next <= last {
                        let server = turn % 2 == 0 ? first : second
                        let response = try await server.upload(
                            try device.batch(from: next, limit: 9), store: device.storeID,
                            key: first.app.ingestKey)
                        guard response.status == 200 else { throw TestServer.UnexpectedResponse(response: response) }
                        next = try response.json(IngestionResult.self).nextSequence
                        turn += 1
                    }
                }
            }
            try await group.waitForAll()
        }
        try await first.waitUntilCaughtUp()
        try await second.waitUntilCaughtUp(key: first.app.readKey)
        // A navigation stack folded twice from any record would differ (pushes are not idempotent).
        for device in devices { try await Self.expectSameStates(first, device) }
        try await first.stop()
        try await second.stop()
    }
}
