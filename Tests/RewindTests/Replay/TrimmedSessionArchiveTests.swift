import Foundation
@_spi(Internals) import RewindStore
import RewindTestSupport
import Testing

@testable import Rewind

/// Export and import of a session whose history was trimmed (archive format version 3): the
/// archive carries the base snapshot, and the imported session begins at the same base, resumes
/// exactly and says where its history begins.
struct TrimmedSessionArchiveTests {
    /// The archive's lines, newlines dropped.
    private func lines(_ archive: Data) -> [String] {
        String(decoding: archive, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(arguments: [UInt64(0), 10])
    func aTrimmedSessionExportsAndImportsAtItsBaseAndResumesExactly(interval: UInt64) async throws {
        let fixture = try EngineFixture(snapshotInterval: interval)
        defer { fixture.remove() }
        let machine = try HistoryTrimTests.loopMachine()
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let live = try await HistoryTrimTests.longSession("long", records: 100, in: engine)
        try engine.trimHistory(of: "long", before: 70)

        let archive = try engine.exportSession("long")
        let header = try #require(lines(archive).first)
        #expect(header.contains(#""formatVersion":3"#))
        #expect(header.contains(#""base":{"state":"#))
        #expect(header.contains(#""records":31"#))
        #expect(lines(archive).count == 33)  // header, versions 70…100, trailer
        #expect(try SessionArchive.validate(archive) == "long")

        let otherFixture = try EngineFixture(snapshotInterval: interval)
        defer { otherFixture.remove() }
        var other = try otherFixture.open(registering: [machine])
        let info = try await other.importSession(archive)
        // Reopened, the store reads the session from its entry and the log as written.
        other.close()
        other = try otherFixture.open(registering: [machine])
        defer { other.close() }
        #expect(info.baseVersion == 70)
        #expect(info.firstVersion == 70)
        #expect(info.headVersion == 100)
        #expect(info.recordCount == 31)
        let original = try engine.store.read { try $0.records(of: SessionID("long")) }
        let imported = try other.store.read { try $0.records(of: SessionID("long")) }
        #expect(imported.map(\.version) == original.map(\.version))
        #expect(imported.map(\.transition) == original.map(\.transition))
        let check = try other.checkStore()
        #expect(check.isConsistent, "\(check)")

        // History says where it begins; the states at kept versions are the original's.
        #expect(throws: ReplayError.historyTrimmed(session: "long", requested: 69, firstVersion: 70)) {
            try other.replay().point(of: "long", at: 69)
        }
        #expect(try other.replay().cursor(for: "long").point.version == 70)
        for version: UInt64 in [70, 71, 85, 100] {
            #expect(try other.replay().point(of: "long", at: version) == engine.replay().point(of: "long", at: version))
        }
        #expect(try other.verify("long", against: machine).baseVersion == 70)

        // Resume is exact and goes on as the original does.
        let resumed = try other.session("long")
        #expect(resumed.version == 100)
        try await HistoryTrimTests.expectSameCourse(resumed, as: live)
        #expect(try other.checkStore().isConsistent)
    }

    @Test func aTrimmedArchiveImportsUnderAnotherIdBesideItsOriginalAndAgainAfterATrimAcrossIndexBlocks() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 80, in: engine)
        // A base in the middle of an index block (blocks of 32 versions), records past the next.
        try engine.trimHistory(of: "long", before: 45)
        let copy = try await engine.importSession(try engine.exportSession("long"), as: "copy")
        #expect(copy.baseVersion == 45)
        #expect(copy.headVersion == 80)
        #expect(try engine.checkStore().isConsistent)
        #expect(
            try engine.store.read { try $0.records(of: SessionID("copy"), from: 1, limit: 3) }.map(\.version)
                == [45, 46, 47])
        #expect(
            try engine.store.read { try $0.records(of: SessionID("copy"), direction: .backward) }.map(\.version)
                == Array((45...80).reversed()))
        // The imported session trims like any other, across the block that holds its base.
        let report = try engine.trimHistory(of: "copy", before: 70)
        #expect(report.records == 25)
        #expect(try engine.checkStore().isConsistent)
        let resumed = try engine.session("copy")
        #expect(resumed.snapshot.state == (try engine.session("long")).snapshot.state)
        // Importing it again under an existing id is refused, nothing written.
        await #expect(throws: EngineError.sessionExists("copy")) {
            try await engine.importSession(try engine.exportSession("long"), as: "copy")
        }
    }

    @Test func anUntrimmedSessionStillExportsInFormatVersion2WithoutABase() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("whole", records: 10, in: engine)
        let header = try #require(lines(try engine.exportSession("whole")).first)
        #expect(header.contains(#""formatVersion":2"#))
        #expect(!header.contains(#""base""#))
    }

    @Test func aForgedBaseIsAMalformedHeaderAndImportsNothing() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 40, in: engine)
        try engine.trimHistory(of: "long", before: 20)
        let archive = try engine.exportSession("long")

        func forged(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var output = ""
            let all = lines(archive)
            for (index, line) in all.enumerated() {
                var body = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8.dropFirst(28).dropLast())) as? [String: Any])
                if index == 0 { change(&body) }
                if index == all.count - 1 {
                    body["checksum"] = SessionArchive.hex(CRC32C.checksum(Array(output.utf8)))
                }
                let bytes = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
                output +=
                    #"{"crc32c":""# + SessionArchive.hex(CRC32C.checksum(Array(bytes))) + #"","body":"#
                    + String(decoding: bytes, as: UTF8.self) + "}\n"
            }
            return Data(output.utf8)
        }
        func refusal(line: Int = 1, _ change: (inout [String: Any]) -> Void) async throws -> String? {
            do {
                try await engine.importSession(try forged(change), as: "forged")
                return nil
            } catch let error as SessionArchiveError {
                #expect(error.line == line, "\(error)")
                return error.description
            }
        }
        // Unchanged, the forger's archive imports: the refusals below are the changes'.
        #expect(try await refusal { _ in } == nil)
        #expect(try engine.store.sessionInfo(for: "forged")?.baseVersion == 20)

        func base(_ body: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
            var base = body["base"] as? [String: Any] ?? [:]
            change(&base)
            body["base"] = base
        }
        let olderFormat = try await refusal { $0["formatVersion"] = 2 }
        #expect(olderFormat?.contains("format version 2 does not have") == true, "\(olderFormat ?? "")")
        let otherVersion = try await refusal { body in base(&body) { $0["version"] = 21 } }
        #expect(otherVersion?.contains("not of the base version 21") == true, "\(otherVersion ?? "")")
        let versionOne = try await refusal { body in base(&body) { $0["version"] = 1 } }
        #expect(versionOne?.contains("out of range") == true, "\(versionOne ?? "")")
        let notAState = try await refusal { body in base(&body) { $0["state"] = "nothing" } }
        #expect(notAState?.contains("base state does not decode") == true, "\(notAState ?? "")")
        // Without its base, the records begin at version 20 instead of 1.
        let withoutBase = try await refusal(line: 2) { $0["base"] = nil }
        #expect(withoutBase != nil)
        #expect(try engine.store.sessionInfo(for: "forged")?.headVersion == 40)  // the first import only
        #expect(try engine.checkStore().isConsistent)
    }

    @Test func aTrimmedArchiveIsRewrittenOnlyWithAChangeOfItsBase() async throws {
        let fixture = try EngineFixture(snapshotInterval: 0)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try HistoryTrimTests.loopMachine()])
        defer { engine.close() }
        _ = try await HistoryTrimTests.longSession("long", records: 20, in: engine)
        try engine.trimHistory(of: "long", before: 10)
        let archive = try engine.exportSession("long")
        // Without a change of the base, its state would leave the machine as it is: refused.
        #expect {
            _ = try SessionArchive.rewritten(archive) { _ in }
        } throws: { error in
            "\(error)".contains("history begins at version 10")
        }
        // With one, the base's values change and its version stays; the archive is format 3 and
        // imports as a session that begins at the same base, with the changed state there.
        let rewritten = try SessionArchive.rewritten(
            archive,
            changingBase: { base in
                base.state.context = ["userID": "‹changed›"]
                base.version = 99
            }
        ) { values in
            values.payload = nil
        }
        #expect(try SessionArchive.validate(rewritten) == "long")
        #expect(self.lines(rewritten)[0].contains(#""formatVersion":\#(SessionArchive.trimmedFormatVersion)"#))
        let imported = try await engine.importSession(rewritten, as: "copy")
        #expect(imported.baseVersion == 10)
        #expect(imported.headVersion == 20)
        let cursor = try engine.replayCursor(for: "copy")
        #expect(cursor.point.version == 10)
        #expect(cursor.point.context == ["userID": "‹changed›"])
        #expect(try engine.replay().point(of: "copy", at: 20).payload == .null)
    }
}
