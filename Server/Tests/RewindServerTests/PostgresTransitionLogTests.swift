import Foundation
import PostgresNIO
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import Testing

/// The contract: the server's PostgreSQL reader of an uploaded store answers every question of
/// `AsyncTransitionLogReader` as the device's own LMDB reader does, for real device stores; it
/// sees one consistent log; damaged rows are typed errors; a session loaded from it replays as
/// the device's.
@Suite(.timeLimit(.minutes(10))) struct PostgresTransitionLogTests {
    /// Uploads the whole of `device`'s log.
    static func upload(_ device: Device, to server: TestServer, from sequence: UInt64 = 1) async throws {
        let response = try await server.upload(try device.batch(from: sequence), store: device.storeID)
        #expect(response.status == 200, "\(response.text)")
    }

    /// The session ids to ask about: the device's, and ones it does not have.
    static func sessions(of device: Device, extra: [SessionID] = []) throws -> [SessionID] {
        try device.sessionIDs() + extra + ["nobody"]
    }

    func compare(_ device: Device, server: TestServer, client: PostgresClient) async throws {
        let sessions = try Self.sessions(of: device)
        let local = try await LogAnswers.of(device.engine.store, sessions: sessions)
        #expect(local.recordCount == (try device.records().count))
        #expect(local.recordCount > 0)
        let log = PostgresTransitionLog(
            client: client, appID: server.app.appID, storeID: device.storeID, logger: testLogger)
        let remote = try await LogAnswers.of(try await log.reader(), sessions: sessions)
        #expect(remote.head == local.head)
        #expect(remote.infos == local.infos)
        for (key, records) in local.sessionRecords.sorted(by: { $0.key < $1.key }) {
            #expect(remote.sessionRecords[key] == records, "records of \(key)")
        }
        for (key, records) in local.logRecords.sorted(by: { $0.key < $1.key }) {
            #expect(remote.logRecords[key] == records, "records from \(key)")
        }
        #expect(remote.definitions == local.definitions)
        #expect(remote == local)
    }

    @Test func answersAsTheDeviceStoreDoes() async throws {
        let server = try await TestServer.start()
        let variety = try Device.withExamples()
        try await variety.runVariety()
        let migrated = try await Device.withMigratedSession()
        let fixture = try Device(copying: Self.fixturePath)
        for device in [variety, migrated, fixture] { try await Self.upload(device, to: server) }
        // The answers name forks, state data, payloads and both definitions of the migrated session.
        #expect(
            try variety.engine.store.sessionInfo(for: "kanji-fork")?.origin
                == RecordOrigin(session: "kanji-1", version: 3))
        #expect(Set(try migrated.records().map(\.definition)).count == 2)
        try await server.database.withClient { client in
            for device in [variety, migrated, fixture] {
                try await compare(device, server: server, client: client)
            }
        }
        try await server.stop()
    }

    @Test func aReaderSeesTheLogAsItWasWhenItBegan() async throws {
        let server = try await TestServer.start()
        let device = try Device.withExamples()
        try await device.runVariety()
        try await Self.upload(device, to: server)
        let sessions = try Self.sessions(of: device, extra: ["ob-late"])
        let before = try await LogAnswers.of(device.engine.store, sessions: sessions)
        try await server.database.withClient { client in
            let log = PostgresTransitionLog(
                client: client, appID: server.app.appID, storeID: device.storeID, logger: testLogger)
            let reader = try await log.reader()
            // More records of sessions the reader knows, and a new session, uploaded after it began.
            let next = try await server.position(store: device.storeID)
            _ = try await device.engine.session("lv-1").send(ExampleMachines.LoadingView.Event.reload)
            _ = try await device.engine.session("kanji-fork").enter(
                ExampleMachines.Kanji.State.detail,
                data: ExampleMachines.Kanji.Character(character: "日", meanings: ["sun"]))
            try await device.runOnboarding(["ob-late"])
            try await Self.upload(device, to: server, from: next)
            let seen = try await LogAnswers.of(reader, sessions: sessions)
            #expect(seen == before)
            #expect(seen.infos["lv-1"] != nil && seen.infos["ob-late"] == nil)
            // A new reader sees everything.
            let after = try await LogAnswers.of(device.engine.store, sessions: sessions)
            #expect(after != before)
            #expect(try await LogAnswers.of(try await log.reader(), sessions: sessions) == after)
        }
        try await server.stop()
    }

    @Test func anotherAppsReaderSeesNothingOfTheStore() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b"])
        try await Self.upload(device, to: server)
        let other = try await server.createApp()
        try await server.database.withClient { client in
            let log = PostgresTransitionLog(
                client: client, appID: other.appID, storeID: device.storeID, logger: testLogger)
            let answers = try await LogAnswers.of(try await log.reader(), sessions: ["a", "b"])
            #expect(answers.head == 0)
            #expect(answers.infos.isEmpty)
            #expect(answers.recordCount == 0)
            #expect(answers.definitions.isEmpty)
        }
        try await server.stop()
    }

    @Test func aDamagedRowIsATypedErrorNamingIt() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b"])
        try await Self.upload(device, to: server)
        let records = try device.records()
        let appID = server.app.appID
        let storeID = device.storeID
        try await server.database.withClient { client in
            let log = PostgresTransitionLog(client: client, appID: appID, storeID: storeID, logger: testLogger)
            func damage(sequence: Int64, with bytes: [UInt8]) async throws {
                _ = try await client.query(
                    """
                    UPDATE records SET record = \(ByteBuffer(bytes: bytes))
                    WHERE app_id = \(appID) AND store_id = \(storeID) AND sequence = \(sequence)
                    """, logger: testLogger)
            }
            func expectDamaged(at sequence: UInt64) async throws {
                let error = await #expect(throws: PostgresLogError.self) {
                    _ = try await log.reader().records(fromSequence: 1, limit: .max)
                }
                guard case .damagedRecord(let store, let at, _) = error else {
                    Issue.record("expected a damaged record, got \(String(describing: error))")
                    return
                }
                #expect(store == storeID)
                #expect(at == sequence)
                let again = await #expect(throws: PostgresLogError.self) {
                    _ = try await log.reader().records(of: "a", fromVersion: 1, limit: .max)
                }
                #expect(again == error)
            }
            // A flipped bit: the checksum fails.
            var flipped = RecordCodec.encode(records[2])
            flipped[flipped.count / 2] ^= 0x10
            try await damage(sequence: 3, with: flipped)
            try await expectDamaged(at: 3)
            // Another record's bytes (its own sequence inside): not the record of this sequence.
            try await damage(sequence: 3, with: RecordCodec.encode(records[3]))
            try await expectDamaged(at: 3)
            // A valid record of this sequence, but of another session than its row says.
            var other = records[2]
            other.session = "b"
            try await damage(sequence: 3, with: RecordCodec.encode(other))
            try await expectDamaged(at: 3)
            // The session's info reads its first record: damaged there, a typed error too.
            try await damage(sequence: 3, with: RecordCodec.encode(records[2]))
            try await damage(sequence: 1, with: flipped)
            await #expect(throws: PostgresLogError.self) { _ = try await log.reader().sessionInfo(for: "a") }
            try await damage(sequence: 1, with: RecordCodec.encode(records[0]))
            #expect(try await log.reader().records(fromSequence: 1, limit: .max) == records)

            // A stored definition that is not a definition document.
            let name = records[0].machine
            let version = records[0].definition
            _ = try await client.query(
                """
                UPDATE definitions SET document = \(ByteBuffer(string: "{\"not\": \"a definition\"}"))
                WHERE app_id = \(appID) AND machine = \(name) AND content_version = \(version)
                """, logger: testLogger)
            // Loaded as it is; replaying under it says which definition does not decode.
            let session = try #require(try await log.session("a"))
            let error = #expect(throws: ReplayError.self) {
                _ = try session.storedDefinition(name: name, version: version)
            }
            if case .invalidStoredDefinition(let damagedName, let damagedVersion, _) = error {
                #expect(damagedName == name && damagedVersion == version)
            } else {
                Issue.record("expected an invalid stored definition, got \(String(describing: error))")
            }
        }
        try await server.stop()
    }

    /// A session loaded from the server (``SessionLog/load(_:from:)``) is the device's: the same
    /// records, head and definition documents, so replay over it answers as the device does.
    @Test func aLoadedSessionIsTheDevicesSession() async throws {
        let server = try await TestServer.start()
        let device = try await Device.withMigratedSession()
        try await Self.upload(device, to: server)
        try await server.database.withClient { client in
            let log = PostgresTransitionLog(
                client: client, appID: server.app.appID, storeID: device.storeID, logger: testLogger)
            for session in try device.sessionIDs() {
                let remote = try #require(try await log.session(session))
                let local = try #require(
                    try await SessionLog.load(session, from: device.engine.store))
                #expect(remote.info == local.info)
                #expect(remote.records == local.records)
                #expect(remote.definitionDocuments == local.definitionDocuments)
                #expect(!remote.definitionDocuments.isEmpty)
                let head = remote.info.headVersion
                #expect(
                    try LogReplay(log: remote).point(of: session, at: head)
                        == (try LogReplay(log: device.engine.store).point(of: session, at: head)))
            }
            #expect(try await log.session("nobody") == nil)
        }
        try await server.stop()
    }

    /// The store committed in Tests/Fixtures, written by main at e1a963d.
    static let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/store-e1a963d/store").path
}

/// Runs blocking `body` on a thread of its own (never the cooperative pool).
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
