import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Redaction before write: a policy's values never reach the store's files (records, snapshots,
/// a fork's copies, a migration record, an archive), while the live session keeps them.
struct RedactionBeforeWriteTests {
    @Test func aRedactedValueReachesNoFileOfTheStoreNorAnArchive() async throws {
        // A snapshot at every version: each holds the state the session had then.
        let fixture = try EngineFixture(snapshotInterval: 1)
        defer { fixture.remove() }
        let markers = (0..<7).map { "MARK\($0)-\(UUID().uuidString)" }
        let engine = try SignupMachine.open(fixture)
        let seen = LockedBox<[JSONValue]>([])
        // rewind.start's context.
        let session = try await engine.startSession(
            id: "user-1", machine: "signup",
            context: ["userID": .string(markers[0]), "email": .string(markers[1])]
        ) { session in
            session.onDidTransition { change in seen.withValue { $0.append(change.event?.payload ?? .null) } }
        }
        // An event's payload; the action copies it into the context and into two sends' payloads
        // (`welcome` delivered in the same append as `rewind.due`, `reminder` pending in the snapshot).
        try await session.send(
            "submit", payload: ["email": .string(markers[2]), "userID": .string(markers[3]), "age": 30])
        // The live session keeps the real values, and its hooks saw them.
        #expect(session.configuration == ["profile"])
        #expect(session.state.context["email"] == .string(markers[2]))
        #expect(session.state.context["userID"] == .string(markers[0]))
        #expect(session.state.pendingSends.first?.event.payload["email"] == .string(markers[2]))
        #expect(seen.current.contains { $0["email"] == .string(markers[2]) })
        // A bulk send.
        try await session.send(contentsOf: [Event("welcome", payload: ["email": .string(markers[5])])])
        // An `enter`'s data (state data, the navigation entry's data).
        try await session.enter("done", data: ["email": .string(markers[4]), "name": "Ada"])
        #expect(session.state.data["done"]?["email"] == .string(markers[4]))
        // A fork's copies and an archive.
        try await engine.fork("user-1", at: session.version, as: "user-1-fork")
        let archive = try engine.exportSession("user-1")
        engine.close()

        // A migration record (the registered definition changed) and a hand-over of a replay.
        let upgraded = try SignupMachine.open(fixture, machine: try SignupMachine.machine(version: 2))
        let resumed = try upgraded.session("user-1")
        try await resumed.send("restart", payload: ["email": .string(markers[6])])
        #expect(
            try upgraded.store.records(of: SessionID("user-1"), versions: 1...100).map(\.event)
                .contains(StepRecording.migrateEvent))
        let player = try upgraded.player(for: "user-1", bindings: SignupMachine.bindings)
        _ = try player.play(through: 3)
        _ = try await player.handOver(as: "user-1-handed-over")
        upgraded.close()

        for marker in markers {
            #expect(try SignupMachine.files(in: fixture.directory.path, containing: marker) == [], "\(marker)")
            #expect(archive.range(of: Data(marker.utf8)) == nil, "\(marker) in the archive")
        }
        // What was there to find: the unredacted name.
        #expect(try SignupMachine.files(in: fixture.directory.path, containing: "Ada") == ["data.mdb"])
    }

    @Test func recordsHoldTheMarkerTheKeyedHashOrNothingAndAreFlagged() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try SignupMachine.open(fixture)
        defer { engine.close() }
        for id in ["a", "b"] {
            let session = try await engine.startSession(
                id: id, machine: "signup", context: ["userID": "42", "email": "x@y"])
            try await session.send("submit", payload: ["email": "ada@example.com", "userID": "42", "age": 30])
        }
        let coder = JSONPayloadCoder()
        func payloads(_ id: String) throws -> [JSONValue] {
            try engine.store.records(of: try SessionID(id), versions: 1...2).map {
                try coder.decode(JSONValue.self, from: $0.payload)
            }
        }
        let (a, b) = (try payloads("a"), try payloads("b"))
        // rewind.start's context: the user id hashed, the e-mail marked.
        let hash = try #require(a[0]["userID"]?.stringValue)
        #expect(hash.hasPrefix("‹hash:") && hash.hasSuffix("›") && hash.count == "‹hash:".count + 32 + 1)
        #expect(a[0]["email"] == RedactionRule.placeholder)
        // The event: the e-mail dropped, the user id hashed as in the context (the same value,
        // the same hash), the age marked; equal in both sessions.
        #expect(a[1] == ["userID": .string(hash), "age": RedactionRule.placeholder])
        #expect(a == b)
        let records = try engine.store.records(of: SessionID("a"), versions: 1...3)
        #expect(records.map(\.redacted) == [true, true, true])
    }

    @Test func aMachineWithoutFieldsRecordsItsValuesAsTheyAreUnflagged() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try SignupMachine.open(fixture, policy: ["another-machine": [.dropped("payload.email")]])
        defer { engine.close() }
        let session = try await engine.startSession(id: "a", machine: "signup", context: ["email": "x@y"])
        try await session.send("submit", payload: ["email": "ada@example.com", "age": 30])
        let records = try engine.store.records(of: SessionID("a"), versions: 1...10)
        #expect(records.allSatisfy { !$0.redacted })
        let payload = try JSONPayloadCoder().decode(JSONValue.self, from: records[1].payload)
        #expect(payload["email"] == "ada@example.com")
    }

    @Test func aPathThatDoesNotParseIsATypedErrorNamingTheMachineAndPath() throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        #expect(
            throws: RedactionPolicyError(
                machine: "signup", path: "paylod.email", reason: "it must start with payload, data or context"
            )
        ) {
            try SignupMachine.open(fixture, policy: ["signup": [.marker("payload.ok"), .dropped("paylod.email")]])
        }
        #expect(throws: RedactionPolicyError(machine: "m", path: "data..email", reason: "segment 2 is empty")) {
            try SignupMachine.open(fixture, policy: ["m": [.keyedHash("data..email")]])
        }
        // The message says which machine and which path.
        let error = RedactionPolicyError(
            machine: "signup", path: "paylod.email", reason: "it must start with payload, data or context")
        #expect(
            error.description
                == "redaction policy of machine 'signup': path 'paylod.email': it must start with payload, data or context"
        )
    }
}
