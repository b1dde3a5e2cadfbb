import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `SessionID` is written as a string literal, and every API taking a session id takes a plain
/// `String` as well, checked as `SessionID.init(_:)` checks it.
struct EngineSessionIDTests {
    typealias Onboarding = ExampleMachines.Onboarding

    @Test func aSessionIDIsAStringLiteral() throws {
        let id: SessionID = "user-42"
        #expect(id == (SessionID("user-42")))
        #expect(id.rawValue == "user-42")
        let ids: [SessionID] = ["a", "b"]
        #expect(ids.map(\.rawValue) == ["a", "b"])
    }

    @Test func anInvalidSessionIDLiteralStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let id: SessionID = ""
            _ = id
        }
    }

    @Test func everySessionAPITakesAPlainString() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try Onboarding.machine()
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        // Plain `String` values (not literals), as an app reads them from a file or a URL.
        let user = String("user")
        let blank = String("blank")
        let copy = String("copy")
        let fork = String("fork")

        let session = try await engine.startSession(id: user, machine: "onboarding")
        try await session.send(Onboarding.Event.launch)
        _ = try engine.makeSession(id: blank, machine: "onboarding")
        #expect(try engine.session(user).version == 2)
        #expect(try engine.history(of: user).map(\.event) == ["rewind.start", "launch"])
        #expect(try engine.verify(user, against: machine).isClean)
        #expect(try engine.replayCursor(for: user).session == session.id)
        #expect(try engine.player(for: user).session == session.id)

        let archive = try engine.exportSession(user)
        try SessionArchive.validate(archive, as: copy)
        let imported = try await engine.importSession(archive, as: copy)
        #expect(imported.session.rawValue == "copy")
        #expect(imported.headVersion == 2)
        #expect(try await engine.fork(user, at: 1, as: fork).headVersion == 1)

        let file = fixture.directory.path + "/archive.ndjson"
        try engine.exportSession(copy, to: URL(fileURLWithPath: file))
        let fromFile = try await engine.importSession(from: URL(fileURLWithPath: file), as: String("copy-2"))
        #expect(fromFile.headVersion == 2)
        let opened = try await engine.openSession(id: String("copy-2"), machine: "onboarding")
        #expect(opened.configuration == ["greeting"])
    }

    @Test func anInvalidStringIsRefusedBeforeAnythingIsReadOrWritten() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        let archive = try engine.exportSession(session.id)
        let empty = String("")
        let withNUL = String("a\u{0}b")
        #expect(throws: StoreError.invalidSessionID("", reason: "it is empty")) { try engine.history(of: empty) }
        #expect(throws: StoreError.invalidSessionID("a\u{0}b", reason: "it contains a NUL character")) {
            try engine.makeSession(id: withNUL, machine: "onboarding")
        }
        await #expect(throws: StoreError.self) { try await engine.importSession(archive, as: empty) }
        #expect(try engine.sessions().map(\.session) == [session.id])
    }
}
