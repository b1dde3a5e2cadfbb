import Foundation
import PostgresNIO
import Rewind
import RewindExamples
import RewindServer
@_spi(Internals) import RewindStore
import RewindSync
import RewindWire
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A device's erasures reach the server end to end: stores written and erased by the engine,
/// uploaded by the real `Uploader` and `rewind push`, against the real server and PostgreSQL.
@Suite(.timeLimit(.minutes(10))) struct DeviceErasureTests {
    @Test func aSessionErasedAfterItsUploadLeavesTheServerWithTheNextUpload() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b", "c"])
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 5)
        #expect(try await uploader.uploadNow().acknowledgedThrough == 12)
        try await server.waitUntilCaughtUp()

        let report = try device.engine.erase("b")
        #expect(report.sessions == ["b"])
        #expect(try device.engine.store.read { try $0.erasureNotices() }.map(\.number) == [1])
        let batches = uploader.progress.batchesUploaded
        let progress = try await uploader.uploadNow()
        #expect(progress.acknowledgedThrough == 12)
        #expect(progress.batchesUploaded == batches, "no record to send: the notice was all")

        // The server's copy is the device's log, byte for byte: b's records, heads, listing gone.
        try await server.database.expectHolds(device, sequences: [1, 2, 3, 4, 9, 10, 11, 12])
        #expect(Set(try await server.database.sessionHeads(store: device.storeID).keys) == ["a", "c"])
        let listed = try await server.get("/v1/stores/\(device.storeID)/sessions").json(
            ErasureTests.StoreSessionsBody.self)
        #expect(listed.sessions.map(\.session) == ["a", "c"])
        #expect(try await server.database.tombstoneCount() == 1)
        let base = "/v1/stores/\(device.storeID)/sessions/b"
        for path in [base, base + "/history", base + "/state?version=1", base + "/archive", base + "/page"] {
            let response = try await server.request("GET", path, key: server.app.readKey)
            #expect(response.status == 410, "\(path): \(response.text)")
        }
        #expect(
            try await server.request("GET", "/v1/stores/\(device.storeID)/sessions/a/history", key: server.app.readKey)
                .status == 200)
        try await server.waitUntilCaughtUp()
        #expect(try await server.database.projectionStates().values.allSatisfy { $0["b"] == nil })
        try await ErasureTests.expectProjectionsOfAServerThatOnlyReceived([(device, ["b"])], equal: server)

        // Acknowledged: the device forgot its notice; a further upload sends nothing.
        #expect(try device.engine.store.read { try $0.erasureNotices() }.isEmpty)
        #expect(try await server.database.erasureNoticesThrough(store: device.storeID) == 1)
        let again = try await uploader.uploadNow()
        #expect(again.batchesUploaded == batches)
        #expect(again.failures == 0)
        #expect(try await server.database.erasureNoticesThrough(store: device.storeID) == 1)
        try await server.stop()
    }

    @Test func sessionsErasedBeforeTheirUploadAreSkippedTheNewestToo() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b", "c", "d"])
        // A gap in the middle (b: 5…8) and the log's newest records (d: 13…16), never uploaded.
        try device.engine.erase("b")
        try device.engine.erase("d")
        #expect(try device.head == 16)
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token, batchRecords: 3)
        let progress = try await withDeadline(.seconds(120), { "uploadNow" }) { try await uploader.uploadNow() }
        #expect(progress.acknowledgedThrough == 16)
        #expect(progress.recordsUploaded == 8)
        #expect(progress.failures == 0)
        try await uploader.waitUntilUploaded(through: 16, deadline: .seconds(60))
        try await server.database.expectHolds(device, sequences: [1, 2, 3, 4, 9, 10, 11, 12])
        #expect(try await server.position(store: device.storeID) == 17, "past the device's head")
        // The server never held them: a notice names sequences, so there is no id to tombstone
        // (the device's own tombstones refuse them there).
        #expect(try await server.database.tombstoneCount() == 0)
        #expect(try device.engine.store.read { try $0.erasureNotices() }.isEmpty)

        // The background upload: an erasure of the newest session wakes it (no commit follows),
        // and a wait for the head returns.
        await uploader.start()
        try await device.runOnboarding(["e", "f"])
        try await uploader.waitUntilUploaded(through: 24, deadline: .seconds(60))
        try device.engine.erase("f")
        // The pass it wakes ends (a progress update) after the server acknowledged the notice.
        try await withDeadline(.seconds(60), { "the notice of f acknowledged; last: \(uploader.progress)" }) {
            for await _ in uploader.progressUpdates {
                if try device.engine.store.read({ try $0.erasureNotices() }).isEmpty { return }
            }
        }
        #expect(try await server.database.erasureNoticesThrough(store: device.storeID) == 3)
        try await uploader.waitUntilUploaded(through: try device.head, deadline: .seconds(60))
        try await server.database.expectHolds(device, sequences: [1, 2, 3, 4, 9, 10, 11, 12, 17, 18, 19, 20])
        #expect(try await server.position(store: device.storeID) == 25)
        await uploader.stop()
        #expect(uploader.progress.failures == 0)
        try await server.waitUntilCaughtUp()
        try await ErasureTests.expectProjectionsOfAServerThatOnlyReceived([(device, [])], equal: server)
        try await server.stop()
    }

    @Test func pushSendsTheStoresErasuresBeforeItsRecords() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b"])
        let url = "http://127.0.0.1:\(server.port)"
        let arguments = ["--store", device.directory, "--server", url, "--key", server.app.ingestKey.token, "--json"]
        let first = try await PushCommandTests.push(arguments)
        #expect(first.status == 0, "\(first.errors)")
        try await device.runOnboarding(["c", "d"])
        // a was uploaded; d, the newest, never was.
        try device.engine.erase("a")
        try device.engine.erase("d")
        let run = try await PushCommandTests.push(arguments)
        #expect(run.status == 0, "\(run.output)\n\(run.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        #expect(report?["recordsUploaded"] as? Int == 4)
        #expect(report?["acknowledgedThrough"] as? Int == 16)
        try await server.database.expectHolds(device, sequences: [5, 6, 7, 8, 9, 10, 11, 12])
        #expect(try await server.position(store: device.storeID) == 17)
        #expect(try await server.database.erasureNoticesThrough(store: device.storeID) == 2)
        #expect(try device.engine.store.read { try $0.erasureNotices() }.isEmpty)
        #expect(
            try await server.request("GET", "/v1/stores/\(device.storeID)/sessions/a/history", key: server.app.readKey)
                .status == 410)
        try await server.stop()
    }

    /// A device's retention saves its own storage: the server keeps the sessions it holds, and
    /// only passes the sequences it never received.
    @Test func retentionOnTheDeviceKeepsTheFleetsCopy() async throws {
        let server = try await TestServer.start()
        let device = try Device(retention: RetentionPolicy(maximumSessions: 1, requiredUploadDestinations: ["fleet"]))
        try await device.runOnboarding(["a", "b", "c"])
        // Nothing uploaded yet: retention keeps everything.
        let before = try device.engine.applyRetention()
        #expect(before.sessions.isEmpty)
        #expect(before.keptUnacknowledged == 2)
        let uploader = Uploader.forTest(
            device, port: server.port, key: server.app.ingestKey.token, destination: "fleet")
        #expect(try await uploader.uploadNow().acknowledgedThrough == 12)
        // Uploaded: retention drops a and b on the device…
        #expect(try device.engine.applyRetention().sessions == ["a", "b"])
        #expect(try device.engine.store.read { try $0.erasureNotices() }.map(\.kind) == [.retention])
        #expect(try await uploader.uploadNow().failures == 0)
        // …and the server keeps them, with no tombstone; the notice is acknowledged all the same.
        #expect(try await server.database.records(store: device.storeID).map(\.sequence) == Array(1...12))
        #expect(Set(try await server.database.sessionHeads(store: device.storeID).keys) == ["a", "b", "c"])
        #expect(try await server.database.tombstoneCount() == 0)
        #expect(
            try await server.request("GET", "/v1/stores/\(device.storeID)/sessions/a/history", key: server.app.readKey)
                .status == 200)
        #expect(try await server.database.erasureNoticesThrough(store: device.storeID) == 1)
        #expect(try device.engine.store.read { try $0.erasureNotices() }.isEmpty)

        // A policy that drops what was never uploaded: the server passes those sequences only.
        try await device.runOnboarding(["d", "e"])
        var configuration = EngineConfiguration()
        configuration.durability = .noSync
        configuration.retention = RetentionPolicy(maximumSessions: 1, keepsUnacknowledgedUploads: false)
        let careless = try Engine(directory: device.directory, configuration: configuration)
        defer { careless.close() }
        #expect(try careless.applyRetention().sessions == ["c", "d"])
        let progress = try await uploader.uploadNow()
        #expect(progress.acknowledgedThrough == 20)
        #expect(progress.failures == 0)
        #expect(
            try await server.database.records(store: device.storeID).map(\.sequence) == Array(1...12) + Array(17...20))
        #expect(Set(try await server.database.sessionHeads(store: device.storeID).keys) == ["a", "b", "c", "e"])
        #expect(try await server.position(store: device.storeID) == 21)
        #expect(try await server.database.tombstoneCount() == 0)
        try await server.stop()
    }

    @Test func aSessionTrimmedOnTheDeviceIsTrimmedOnTheServerWhichReplaysItFromItsBase() async throws {
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["a", "b"])
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token)
        #expect(try await uploader.uploadNow().acknowledgedThrough == 8)
        let all = try await server.database.records(store: device.storeID).map(\.sequence)
        let trimmed = try device.sequences(of: "a").prefix(2).map { Int64($0) }

        // The device trims a's history before version 3: a `records` notice goes with the next upload.
        let report = try device.engine.trimHistory(of: "a", before: 3)
        #expect(report.records == 2)
        #expect(try device.engine.store.read { try $0.erasureNotices() }.map(\.kind) == [.records])
        #expect(try await uploader.uploadNow().failures == 0)

        // The server trims its copy too and keeps the session with what is left…
        #expect(
            try await server.database.records(store: device.storeID).map(\.sequence)
                == all.filter { !trimmed.contains($0) })
        let heads = try await server.database.sessionHeads(store: device.storeID)
        #expect(heads["a"]?.headVersion == 4)
        #expect(heads["a"]?.recordCount == 2)
        #expect(heads["b"]?.recordCount == 4)
        #expect(try await server.database.tombstoneCount() == 0)
        // …and replays it from the base it rebuilt from the records it held, as the device does.
        try await Self.expectSameTrimmedReplay(of: "a", device: device, server: server)
        #expect(
            try await server.request("GET", "/v1/stores/\(device.storeID)/sessions/b/history", key: server.app.readKey)
                .status == 200)
        // Acknowledged: the device forgot its notice.
        #expect(try await server.database.erasureNoticesThrough(store: device.storeID) == 1)
        #expect(try device.engine.store.read { try $0.erasureNotices() }.isEmpty)
        try await server.stop()
    }

    @Test func aSessionImportedFromATrimmedArchiveUploadsWithItsBaseAndReplaysFromIt() async throws {
        // A trimmed session's archive (format version 3: its base and the records from it on)…
        let origin = try Device()
        try await origin.runOnboarding(["a"])
        try origin.engine.trimHistory(of: "a", before: 3)
        let archive = try origin.engine.exportSession("a")
        #expect(
            String(decoding: archive.prefix(while: { $0 != UInt8(ascii: "\n") }), as: UTF8.self)
                .contains(#""formatVersion":\#(SessionArchive.trimmedFormatVersion)"#))

        // …imported on another device beside a whole session: it begins at the base there.
        let server = try await TestServer.start()
        let device = try Device()
        try await device.runOnboarding(["b"])
        let imported = try await device.engine.importSession(archive, as: "imported")
        #expect(imported.baseVersion == 3)
        #expect(imported.headVersion == 4)
        let uploader = Uploader.forTest(device, port: server.port, key: server.app.ingestKey.token)
        let progress = try await uploader.uploadNow()
        #expect(progress.acknowledgedThrough == 6)
        #expect(progress.failures == 0)

        // The server holds the device's log byte for byte: b's 4 records, then the imported
        // versions 3 and 4 (new, contiguous sequences).
        try await server.database.expectHolds(device, sequences: [1, 2, 3, 4, 5, 6])
        let heads = try await server.database.sessionHeads(store: device.storeID)
        #expect(heads["imported"]?.headVersion == 4)
        #expect(heads["imported"]?.recordCount == 2)
        #expect(heads["b"]?.recordCount == 4)
        #expect(try await server.database.tombstoneCount() == 0)
        let listed = try await server.get("/v1/stores/\(device.storeID)/sessions").json(
            ErasureTests.StoreSessionsBody.self)
        #expect(listed.sessions.map(\.session) == ["b", "imported"])
        // The base went with the session's first record: replay begins there, as on the device.
        try await Self.expectSameTrimmedReplay(of: "imported", device: device, server: server)
        #expect(
            try await server.request("GET", "/v1/stores/\(device.storeID)/sessions/b/history", key: server.app.readKey)
                .status == 200)
        try await server.stop()
    }

    @Test func aSessionThatArrivesTrimmedWithoutItsBaseAnswers410AndBadBasesAre400() async throws {
        let origin = try Device()
        try await origin.runOnboarding(["a"])
        try origin.engine.trimHistory(of: "a", before: 3)
        let device = try Device()
        _ = try await device.engine.importSession(try origin.engine.exportSession("a"))
        let server = try await TestServer.start()

        // Bases that do not check: a snapshot that is not one, a version it is not of, a base
        // naming no record of the batch. Nothing is stored.
        let plain = try device.batch()
        #expect(plain.records.count == 2)
        let base = try #require(try device.engine.store.read { try $0.latestSnapshot(of: "a", atOrBefore: 3) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let snapshot = Array(try encoder.encode(base))
        for (base, says) in [
            (RecordBatch.Base(session: "a", version: 3, snapshot: Array("not json".utf8)), "is not a session snapshot"),
            (
                RecordBatch.Base(session: "a", version: 4, snapshot: snapshot),
                "names version 4 but its snapshot is of version 3"
            ),
            (RecordBatch.Base(session: "b", version: 3, snapshot: snapshot), "names no record of the batch"),
        ] {
            var batch = plain
            batch.bases = [base]
            let response = try await server.upload(batch, store: device.storeID)
            #expect(response.status == 400, "\(response.text)")
            #expect(response.text.contains(says), "\(response.text)")
            #expect(try response.object()["baseIndex"] as? Int == 0)
        }
        #expect(try await server.database.records(store: device.storeID).isEmpty)

        // Without a base (a device older than bases): held, listed, and its replay a 410 that
        // says where its history begins and that it never reached the server.
        #expect(try await server.upload(plain, store: device.storeID).status == 200)
        let history = try await server.request(
            "GET", "/v1/stores/\(device.storeID)/sessions/a/history", key: server.app.readKey)
        #expect(history.status == 410, "\(history.text)")
        #expect(try history.object()["historyBeginsAt"] as? Int == 3)
        #expect(try history.object()["erasedAt"] == nil)
        #expect(history.text.contains("never reached the server"), "\(history.text)")
        try await server.stop()
    }

    /// Expects the server to replay trimmed session `session` of `device` as the device's engine
    /// does: its listing (where its history begins), history, the state at every version it
    /// holds, a diff, and the archive byte for byte (format 3, with the base); a version below
    /// the base is a 410 that says where its history begins.
    static func expectSameTrimmedReplay(of session: SessionID, device: Device, server: TestServer) async throws {
        let engine = device.engine
        let info = try #require(try engine.store.sessionInfo(for: session))
        let base = try #require(info.baseVersion)
        #expect(base > 1)
        let listing = try await ReplayRoutesTests.get(
            SessionListing.self, server, ReplayRoutesTests.path(device, session))
        #expect(listing.historyBeginsAt == base)
        #expect(listing == SessionListing(info, head: try engine.store.read { try $0.record(at: info.headSequence) }))
        let rows = try await ReplayRoutesTests.get(
            [HistoryRow].self, server, ReplayRoutesTests.path(device, session, "/history"))
        #expect(rows.first?.version == base)
        let coder = engine.store.coder
        #expect(rows == (try engine.store.read { try HistoryRow.rows(of: session, in: $0, coder: coder) }))
        var cursor = try engine.replayCursor(for: session)
        for version in base...info.headVersion {
            let point = try await ReplayRoutesTests.get(
                ReplayPointReport.self, server, ReplayRoutesTests.path(device, session, "/state?version=\(version)"))
            #expect(
                point
                    == ReplayPointReport(
                        try cursor.seek(to: version), machine: info.machine, versions: info.headVersion),
                "\(session) at \(version)")
        }
        let diff = try await ReplayRoutesTests.get(
            ReplayDiffReport.self, server,
            ReplayRoutesTests.path(device, session, "/diff?from=\(base)&to=\(info.headVersion)"))
        #expect(diff == ReplayDiffReport(try engine.diff(session, from: base, to: info.headVersion)))
        let archive = try await server.request(
            "GET", ReplayRoutesTests.path(device, session, "/archive"), key: server.app.readKey)
        #expect(archive.status == 200)
        #expect(archive.body == Array(try engine.exportSession(session)), "archive of \(session)")
        // Below the base: gone, and where the history begins.
        let below = try await server.request(
            "GET", ReplayRoutesTests.path(device, session, "/state?version=\(base - 1)"), key: server.app.readKey)
        #expect(below.status == 410, "\(below.text)")
        #expect(try below.object()["historyBeginsAt"] as? Int == Int(base))
        #expect(below.text.contains("history begins at version \(base)"), "\(below.text)")
    }

    @Test func aServerOlderThanErasuresStopsTheUploadTypedAndNothingIsLost() async throws {
        let device = try Device()
        try await device.runOnboarding(["a", "b"])
        try device.engine.erase("a")
        let old = try OldServer()
        defer { old.close() }
        let toOld = Uploader.forTest(device, port: old.port, key: "k", destination: "fleet")
        do {
            try await toOld.uploadNow()
            Issue.record("an upload to a server without erasures succeeded")
        } catch let error as UploadError {
            guard case .serverOutdated = error else { throw error }
            #expect(!error.isRetryable)
            #expect(error.description.contains("the server must be updated"), "\(error)")
        }
        #expect(
            old.requests.filter { $0.hasSuffix("/records") }.isEmpty, "no record before the server has the erasures")
        #expect(try device.engine.store.read { try $0.erasureNotices() }.map(\.number) == [1])
        // The same destination, updated: everything goes.
        let server = try await TestServer.start()
        let toUpdated = Uploader.forTest(
            device, port: server.port, key: server.app.ingestKey.token, destination: "fleet")
        #expect(try await toUpdated.uploadNow().acknowledgedThrough == 8)
        try await server.database.expectHolds(device, sequences: [5, 6, 7, 8])
        #expect(try device.engine.store.read { try $0.erasureNotices() }.isEmpty)
        try await server.stop()
    }
}

/// A fleet server from before erasures, as far as an uploader sees it: it answers a store's
/// position (it holds nothing) and 404 to anything else. HTTP/1.1 with keep-alive on blocking
/// sockets, on threads of its own.
private final class OldServer: Sendable {
    let port: Int
    private let listener: Int32
    private let seen = Mutex<[String]>([])

    /// The request lines' paths, in order.
    var requests: [String] { seen.withLock { $0 } }

    init() throws {
        let bound = try TCPProxy.loopbackSocket(listening: 16)
        listener = bound.descriptor
        port = bound.port
        Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { if errno == EINTR { continue } else { return } }
                Thread { [self] in serve(client) }.start()
            }
        }.start()
    }

    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Answers the requests of one connection until the client closes it.
    private func serve(_ client: Int32) {
        defer { shutdown(client, Int32(SHUT_RDWR)) }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            // The head, then as many body bytes as it announces.
            var end: Int?
            while end == nil {
                end = buffer.indices.dropLast(3).first { buffer[$0..<($0 + 4)].elementsEqual("\r\n\r\n".utf8) }
                if end == nil {
                    let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { return }
                    buffer += chunk[..<count]
                }
            }
            let head = String(decoding: buffer[..<end!], as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            let length =
                lines.first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < end! + 4 + length {
                let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                buffer += chunk[..<count]
            }
            buffer.removeFirst(end! + 4 + length)
            seen.withLock { $0.append(path) }
            // The position as every server answers it (`/v1/stores/{id}/position`); nothing else.
            let store = path.split(separator: "/").dropFirst(2).first.map(String.init) ?? ""
            let (status, body) =
                path.hasSuffix("/position")
                ? ("200 OK", #"{"storeID": "\#(store)", "nextSequence": 1, "mayUpload": true}"#) : ("404 Not Found", "")
            let answer = Array(
                "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    .utf8)
            _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }
}

extension TestDatabase {
    /// Asserts that the server holds exactly `device`'s log for its store, at `sequences`: each
    /// record byte for byte the device's (erased sequences held by neither).
    func expectHolds(_ device: Device, sequences: [Int64], sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let rows = try await records(store: device.storeID)
        let deviceRecords = try device.records()
        #expect(
            deviceRecords.map { Int64($0.sequence) } == sequences, "the device's log", sourceLocation: sourceLocation)
        #expect(rows.map(\.sequence) == sequences, "the server's copy", sourceLocation: sourceLocation)
        #expect(
            rows.map(\.bytes) == deviceRecords.map(RecordCodec.encode), "byte for byte", sourceLocation: sourceLocation)
    }

    /// The last erasure notice of `storeID` the server applied (0 when none, or no such store).
    func erasureNoticesThrough(store storeID: UUID) async throws -> Int64 {
        try await withClient { client in
            for try await through in try await client.query(
                """
                SELECT erasure_notices_through FROM stores WHERE store_id = \(storeID)
                """
            ).decode(Int64.self) {
                return through
            }
            return 0
        }
    }
}
