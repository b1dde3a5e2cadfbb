import Foundation
import Rewind
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

/// ``SessionArchiveStream`` — the archive of a log read asynchronously (the fleet server's),
/// written a part at a time — over a device's store seen through the asynchronous reader
/// interface: its bytes are the device's export (several pages of records, two definitions, a
/// trimmed session), its parts end with lines, what the header needs fails before the first
/// byte, and a session erased while it streams cuts the archive before its trailer.
struct SessionArchiveStreamTests {
    /// The parts `stream` writes with parts of about `partSize` bytes.
    private func parts(of stream: SessionArchiveStream<some AsyncTransitionLogReader>, partSize: Int) async throws
        -> [[UInt8]]
    {
        var parts: [[UInt8]] = []
        try await stream.write(partSize: partSize) { parts.append($0) }
        return parts
    }

    @Test func aLongSessionUnderTwoDefinitionsStreamsTheBytesTheDeviceExports() async throws {
        let fixture = try EngineFixture(snapshotInterval: 16)
        defer { fixture.remove() }
        do {
            let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
            defer { engine.close() }
            _ = try await HistoryTrimTests.longSession("long", records: 1_200, in: engine)
        }
        // Resumed under a newer definition (one more route): its later records name that one.
        let engine = try fixture.open(
            registering: [try HistoryTrimTests.loopMachine(more: [Route(from: "home", to: "login", by: "relogin")])])
        defer { engine.close() }
        let session = try engine.session("long")
        while session.version < 2_345 {
            try await session.send(
                HistoryTrimTests.nextEvent(of: session), payload: ["later": .number(Double(session.version))])
        }
        let exported = Array(try engine.exportSession("long"))
        let stream = try #require(try await SessionArchiveStream("long", from: engine.store))
        #expect(stream.info.headVersion == 2_345)

        let parts = try await parts(of: stream, partSize: 4_096)
        #expect(parts.joined().elementsEqual(exported))
        #expect(parts.count > 10)
        // A part is about partSize bytes and ends with a line; the last holds the trailer.
        for part in parts {
            #expect(part.last == UInt8(ascii: "\n"))
            #expect(part.count < 4_096 + 2_048)
        }
        let header = String(decoding: exported.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let versions = try await engine.store.records(of: "long", fromVersion: 1, limit: 3_000).map(\.definition)
        #expect(Set(versions).count == 2)
        #expect(header.contains(#""definitions":[{"document":"#))
        // What the header lists, in order, is what the default (reading the records) finds.
        #expect(
            try await engine.store.definitionVersions(of: "long", fromVersion: 1)
                == [versions[0], try #require(versions.last)])
        // A whole archive, imported as the export is.
        let imported = try await engine.importSession(Data(parts.joined()), as: "imported")
        #expect(imported.headVersion == 2_345)
    }

    @Test func aTrimmedSessionStreamsItsBaseAndTheRecordsFromIt() async throws {
        let fixture = try EngineFixture(snapshotInterval: 7)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 60, in: engine)
        try engine.trimHistory(of: "long", before: 38)

        let stream = try #require(try await SessionArchiveStream("long", from: engine.store))
        let parts = try await parts(of: stream, partSize: 1 << 16)
        #expect(parts.count == 1)
        #expect(parts.joined().elementsEqual(try engine.exportSession("long")))
        #expect(String(decoding: parts.joined(), as: UTF8.self).contains(#""formatVersion":3"#))
    }

    @Test func whatTheHeaderNeedsFailsBeforeTheFirstByte() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 20, in: engine)
        try engine.trimHistory(of: "long", before: 10)

        #expect(try await SessionArchiveStream("none", from: engine.store) == nil)
        do {
            _ = try await SessionArchiveStream("long", from: SessionLogTests.ReaderWithoutBases(store: engine.store))
            Issue.record("a trimmed session streamed without its base")
        } catch ReplayError.incompleteSession(let session, let reason) {
            #expect(session == "long")
            #expect(reason.contains("begins at version 10"), "\(reason)")
        }
    }

    @Test func aSessionErasedWhileItStreamsIsCutBeforeItsTrailer() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 2_500, in: engine)

        let stream = try #require(try await SessionArchiveStream("long", from: engine.store))
        var written: [UInt8] = []
        do {
            try await stream.write(partSize: 1_024) { part in
                written += part
                // Erased once the first part is out: the next page finds no record.
                if try engine.store.sessionInfo(for: "long") != nil { _ = try engine.erase("long") }
            }
            Issue.record("an erased session streamed whole")
        } catch ReplayError.incompleteSession(let session, let reason) {
            #expect(session == "long")
            #expect(reason.contains("holds") || reason.contains("where version"), "\(reason)")
        }
        #expect(!written.isEmpty)
        #expect(!String(decoding: written, as: UTF8.self).contains(#""end":"rewind.session""#))
        #expect(throws: SessionArchiveError.self) { try SessionArchive.validate(Data(written), as: "long") }
    }
}
