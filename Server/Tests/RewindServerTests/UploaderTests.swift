import Foundation
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import RewindSync
import Testing

/// RewindSync's uploader against the real server and PostgreSQL.
@Suite(.timeLimit(.minutes(10))) struct UploaderTests {
    @Test func anEngineWritingWhileTheUploaderRunsUploadsEverythingExactlyOnce() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(5, prefix: "before")
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 37)
        await uploader.start()
        // Sessions go on while it uploads: sends never wait for it.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<3 {
                group.addTask { try await device.writeSessions(30, prefix: "writer\(writer)") }
            }
            group.addTask {
                let session = try await device.engine.startSession(
                    id: "kanji", machine: ExampleMachines.Kanji.definition.name)
                _ = try await session.enter(
                    ExampleMachines.Kanji.State.detail,
                    data: ExampleMachines.Kanji.Character(character: "木", meanings: ["tree"]))
            }
            try await group.waitForAll()
        }
        let head = try device.head
        #expect(head == 4 * 95 + 2)
        try await uploader.waitUntilUploaded(through: head)
        let progress = uploader.progress
        #expect(progress.acknowledgedThrough == head)
        #expect(progress.recordsUploaded == Int(head))
        #expect(progress.recordsAlreadyHeld == 0)
        #expect(progress.batchesUploaded >= Int(head) / 37)
        #expect(progress.failures == 0)
        try await server.database.expectHoldsPrefix(of: device, count: Int(head))
        #expect(try await server.database.count("definitions") == 2)
        #expect(try await server.position(store: device.storeID) == head + 1)
        // New commits are picked up without being asked.
        try await device.writeSessions(2, prefix: "after")
        try await uploader.waitUntilUploaded(through: try device.head)
        try await server.database.expectHoldsPrefix(of: device, count: Int(try device.head))
        await uploader.stop()
        #expect(uploader.progress.status == .stopped)
        try await server.stop()
    }

    @Test func aRestartedUploaderResumesFromTheStoreCheckpoint() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(10, prefix: "first")
        let first = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 16)
        let uploaded = try await first.uploadNow()
        #expect(uploaded.acknowledgedThrough == 40)
        #expect(uploaded.batchesUploaded == 3)
        await first.stop()

        try await device.writeSessions(5, prefix: "second")
        // Another engine on the same store (as after an app's restart): the checkpoint is in the store.
        var configuration = EngineConfiguration()
        configuration.durability = .noSync
        let reopened = try Engine(directory: device.directory, configuration: configuration)
        defer { reopened.close() }
        let second = Uploader(
            engine: reopened, server: URL(string: "http://127.0.0.1:\(server.port)")!, key: server.app.ingestKey.token,
            configuration: UploaderConfiguration(maximumBatchRecords: 16))
        #expect(second.progress.acknowledgedThrough == 40, "known before any request")
        let resumed = try await second.uploadNow()
        #expect(resumed.acknowledgedThrough == 60)
        #expect(resumed.recordsUploaded == 20, "only what followed the checkpoint")
        #expect(resumed.recordsAlreadyHeld == 0)
        #expect(resumed.batchesUploaded == 2)
        try await server.database.expectHoldsPrefix(of: device, count: 60)
        // Nothing left: a pass sends nothing.
        let again = try await second.uploadNow()
        #expect(again.batchesUploaded == 2)
        try await server.stop()
    }

    @Test func aServerBehindTheCheckpointGetsEverythingAgain() async throws {
        let old = try await TestServer.start()
        let device = try Device()
        try await device.writeSessions(6, prefix: "s")
        let toOld = Uploader.forTest(
            device, port: old.port, key: old.app.ingestKey.token, batchRecords: 10, destination: "fleet")
        #expect(try await toOld.uploadNow().acknowledgedThrough == 24)
        try await old.stop()
        // The same destination now answers from an empty database (a restored backup, say): the
        // checkpoint says 24, the server holds nothing; the records and definitions go again.
        let fresh = try await TestServer.start()
        let toFresh = Uploader.forTest(
            device, port: fresh.port, key: fresh.app.ingestKey.token, batchRecords: 10, destination: "fleet")
        #expect(toFresh.progress.acknowledgedThrough == 24)
        let progress = try await toFresh.uploadNow()
        #expect(progress.acknowledgedThrough == 24)
        #expect(progress.recordsUploaded == 24)
        try await fresh.database.expectHoldsPrefix(of: device, count: 24)
        #expect(try await fresh.database.count("definitions") == 1)
        try await fresh.stop()
    }
}
