import Foundation
import RewindExamples
import Testing

@testable import Rewind

struct SessionSnapshotTests {
    private static func codableBytes(_ snapshot: SessionSnapshot) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try encoder.encode(snapshot))
    }

    private static func decode(_ bytes: [UInt8]) throws -> SessionSnapshot {
        try bytes.withUnsafeBytes { try SessionSnapshot.decode($0, session: SessionID("s")) }
    }

    /// A snapshot of the onboarding example a step in, with context, queues, navigation, timestamp.
    private static func sample(
        version: UInt64 = 3, timestamp: Timestamp? = Timestamp(microsecondsSince1970: 1_763_600_000_123_456)
    ) throws -> SessionSnapshot {
        let machine = try ExampleMachines.Onboarding.machine()
        var state = try machine.start(context: ["user": "ada/lovelace", "score": 1.25, "tags": ["a", nil]]).state
        state = try machine.send("launch", in: state).state
        state.pendingSends = [
            ScheduledEvent(event: Event("tick", payload: ["n": 1]), due: .milliseconds(1_500), sendID: "t")
        ]
        state.internalQueue = [Event("queued")]
        return SessionSnapshot(
            version: version, definition: "sha256:abc", state: state,
            navigation: ScreenStack(screens: ["greeting", "login"]), timestamp: timestamp)
    }

    @Test func encodedSnapshotsAreTheBytesJSONEncoderWrites() throws {
        for snapshot in [try Self.sample(), try Self.sample(timestamp: nil), SessionSnapshot.empty(definition: "d")] {
            #expect(try snapshot.encoded() == Self.codableBytes(snapshot))
        }
    }

    @Test func encodedSnapshotsAreTheirTreesBytesAndNameAnUnwritableNumbersPath() throws {
        let stack = ScreenStack(entries: [
            NavigationEntry(screen: "home"), NavigationEntry(screen: "detail", data: ["id": 7, "path": "a/b"]),
        ])
        for snapshot in [
            try Self.sample(), try Self.sample(version: 0, timestamp: Timestamp(microsecondsSince1970: -5)),
            SessionSnapshot(
                version: 9, definition: "d\"", state: MachineState(configuration: ["x"]), navigation: stack,
                timestamp: nil),
        ] {
            #expect(try snapshot.encoded() == snapshot.jsonValue.jsonBytes())
            #expect(try snapshot.encoded() == Self.codableBytes(snapshot))
        }
        var broken = try Self.sample()
        broken.state.context = ["score": .number(Double.infinity)]
        let error = #expect(throws: JSONWriteError.self) { try broken.encoded() }
        #expect(error?.path == ["state", "context", "score"])
    }

    @Test func snapshotsWrittenByJSONEncoderDecodeWithTheFastPath() throws {
        let snapshot = try Self.sample()
        #expect(try Self.decode(try Self.codableBytes(snapshot)) == snapshot)
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted]
        #expect(try Self.decode(Array(try pretty.encode(snapshot))) == snapshot)
    }

    @Test func snapshotsWrittenByTheFastPathDecodeWithJSONDecoder() throws {
        for snapshot in [try Self.sample(), try Self.sample(timestamp: nil)] {
            #expect(try JSONDecoder().decode(SessionSnapshot.self, from: Data(try snapshot.encoded())) == snapshot)
            #expect(try Self.decode(try snapshot.encoded()) == snapshot)
        }
    }

    @Test func versionsBeyondExactDoublesFallBackToCodable() throws {
        let snapshot = try Self.sample(version: (1 << 60) + 1)
        let bytes = try snapshot.encoded()
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"version\":1152921504606846977"))
        #expect(try Self.decode(bytes) == snapshot)
    }

    @Test func malformedOrMisshapenSnapshotsAreCorruptedEntries() throws {
        var bytes = try Self.sample().encoded()
        bytes.removeLast()
        for broken in [bytes, Array(#"{"version":1}"#.utf8)] {
            #expect {
                try Self.decode(broken)
            } throws: { error in
                guard case EngineError.corruptedEntry(let what, _, _) = error else { return false }
                return what.contains("snapshot of session 's'")
            }
        }
    }
}
