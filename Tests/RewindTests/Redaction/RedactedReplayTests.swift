import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Resume, replay, verification and `rewind check` of sessions whose records hold redacted values,
/// one of them read by a guard (`adult` reads `payload.age`, recorded as the marker: re-run, the
/// machine would reject the sign-up).
struct RedactedReplayTests {
    /// Runs `body` on an engine (the sign-up machine, its policy) reopened on a store holding
    /// `recordSignup`'s session.
    func withRecordedSignup(_ body: (Engine) async throws -> Void) async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        try await recordSignup(in: fixture)
        let engine = try SignupMachine.open(fixture)
        defer { engine.close() }
        try await body(engine)
    }

    /// A session whose `submit` (version 2) the machine only took because of the real age.
    func recordSignup(in fixture: EngineFixture) async throws {
        let engine = try SignupMachine.open(fixture)
        defer { engine.close() }
        let session = try await engine.startSession(
            id: "user-1", machine: "signup", context: ["userID": "42", "email": "a@b"])
        try await session.send("submit", payload: ["email": "ada@example.com", "age": 30])
        try await session.send("finish")
        #expect(session.configuration == ["done"])
        #expect(session.state.context["email"] == "ada@example.com")
    }

    @Test func resumeRestoresTheRecordedRedactedState() async throws {
        try await withRecordedSignup { engine in
            let session = try engine.session("user-1")
            // Where the live session was (not where a re-run of the marked age leads: `rejected`),
            // with the values as recorded.
            #expect(session.configuration == ["done"])
            #expect(session.state.context["email"] == RedactionRule.placeholder)
            let hash = try #require(session.state.context["userID"]?.stringValue)
            #expect(hash.hasPrefix("‹hash:"))
            // It goes on from there, and resumes again.
            try await session.send("restart")
            #expect(try engine.session("user-1").version == session.version)
        }
    }

    @Test func theRecordWhoseRedactedValueAGuardReadIsWrittenWithItsSnapshot() async throws {
        try await withRecordedSignup { engine in
            let snapshots = try engine.store.read { transaction in
                try (1...4).compactMap {
                    try SessionSnapshot.latest(of: SessionID("user-1"), atOrBefore: $0, in: transaction)?.version
                }
            }
            // Version 1 (the start: its context redacted, a hash the machine never reads) replays as
            // recorded; version 2 (`submit`, the marked age) does not, so its snapshot was written.
            #expect(!snapshots.contains(1))
            #expect(snapshots.contains(2))
        }
    }

    @Test func replayAndTheCursorReachEveryRecordedVersion() async throws {
        try await withRecordedSignup { engine in
            var cursor = try engine.replayCursor(for: "user-1")
            let head = try cursor.headVersion()
            let records = try engine.store.records(of: SessionID("user-1"), versions: 1...head)
            for record in records {
                let point = try cursor.seek(to: record.version)
                #expect(point.configuration == record.target)
            }
            _ = try cursor.seek(to: 1)
            while let point = try cursor.stepForward() {
                #expect(point.configuration == records[Int(point.version) - 1].target)
            }
            let player = try engine.player(for: "user-1")
            #expect(try player.play() == records.count)
            #expect(player.snapshot.state.configuration == ["done"])
            #expect(try engine.checkStore().problem == nil)
        }
    }

    @Test func verificationSaysARedactedRecordCannotBeRecheckedAndGoesOn() async throws {
        try await withRecordedSignup { engine in
            let report = try engine.verify("user-1", against: try SignupMachine.machine())
            #expect(report.divergence == nil)
            #expect(report.unverifiableRedactedVersions == [2])
            #expect(report.verifiedRecords == 3)
            #expect(report.description.contains("redacted: cannot be re-checked"))
        }
    }

    @Test func withoutItsSnapshotAReplayOfARedactedRecordIsATypedErrorNotADivergence() async throws {
        try await withRecordedSignup { engine in
            let recording = try #require(engine.registeredRecording(named: "signup"))
            let records = try engine.store.records(of: SessionID("user-1"), versions: 1...2)
            let first = try recording.replay(records[0], on: .empty(definition: recording.definition)).1
            #expect(
                throws: EngineError.redactedRecordNotReproduced(
                    session: SessionID("user-1"), version: 2, event: "submit", recorded: ["profile"],
                    computed: ["rejected"]
                )
            ) {
                _ = try recording.replay(records[1], on: first)
            }
        }
    }

    @Test func anArchiveCarriesTheRecordedStatesSoAnImportedSessionResumesAsRecorded() async throws {
        try await withRecordedSignup { engine in
            let archive = try engine.exportSession("user-1")
            #expect(String(decoding: archive, as: UTF8.self).contains(#""recordedState""#))
            try await engine.importSession(archive, as: "user-1-imported")
            let imported = try engine.session("user-1-imported")
            #expect(imported.configuration == ["done"])
            #expect(imported.state.context["email"] == RedactionRule.placeholder)
            let report = try engine.verify("user-1-imported", against: try SignupMachine.machine())
            #expect(report.divergence == nil)
            #expect(report.unverifiableRedactedVersions == [2])
        }
    }

    /// A device's export writes its lines from the stored records read in place (a redacted one
    /// with its recorded state from its values): the same bytes as an export of the same store
    /// seen through a reader that is not the store's own, whose lines are written from the
    /// records' values. A fork's records carry their origin.
    @Test func aDeviceExportIsTheExportOfTheSameRecordsReadAsValues() async throws {
        try await withRecordedSignup { engine in
            try await engine.fork("user-1", at: 2, as: "user-1-fork")
            try await engine.session("user-1-fork").send("finish")
            let asValues = LogReplay(log: ForwardingLog(store: engine.store))
            for id: SessionID in ["user-1", "user-1-fork"] {
                #expect(try engine.exportSession(id) == asValues.exportSession(id), "\(id)")
            }
            let fork = String(decoding: try engine.exportSession("user-1-fork"), as: UTF8.self)
            #expect(fork.contains(#""origin":{"session":"user-1","version":2}"#))
            #expect(fork.contains(#""recordedState""#))
        }
    }
}

/// A store's log through a reader that forwards every call to the store's read transaction: a
/// log that is not a device's store to the code that reads it.
private struct ForwardingLog: TransitionLog {
    let store: TransitionStoreReader

    func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R {
        try store.readLog { try body(Reader(base: $0)) }
    }

    private struct Reader: TransitionLogReader {
        let base: any TransitionLogReader

        func headSequence() throws -> UInt64 { try base.headSequence() }
        func sessionInfo(for session: SessionID) throws -> SessionInfo? { try base.sessionInfo(for: session) }
        func records(of session: SessionID, fromVersion version: UInt64, limit: Int) throws -> [TransitionRecord] {
            try base.records(of: session, fromVersion: version, limit: limit)
        }
        func records(fromSequence sequence: UInt64, limit: Int) throws -> [TransitionRecord] {
            try base.records(fromSequence: sequence, limit: limit)
        }
        func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
            try base.storedDefinition(name: name, version: version)
        }
        func storedDefinitionDocument(name: String, version: String) throws -> [UInt8]? {
            try base.storedDefinitionDocument(name: name, version: version)
        }
        func latestSnapshot(of session: SessionID, atOrBefore version: UInt64) throws -> SessionSnapshot? {
            try base.latestSnapshot(of: session, atOrBefore: version)
        }
        func erasure(of session: SessionID) throws -> SessionErasure? { try base.erasure(of: session) }
    }
}
