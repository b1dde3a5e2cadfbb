import Foundation
import Rewind
import RewindTestSupport
import Testing

/// A store and session archives written by an earlier Rewind (`Tests/Fixtures/store-e1a963d`, see
/// its README) open, resume, replay and import the same with today's code.
@Suite("Stores and archives written before")
struct OldFormatFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/store-e1a963d")
    static let sessions = ["kanji-nav", "mixed-values"]

    /// What the earlier code's cursor showed at each version, per session.
    static func expected() throws -> [String: [JSONValue]] {
        let bytes = try Data(contentsOf: fixture.appendingPathComponent("expected.json"))
        guard case .object(let sessions) = try JSONValue(jsonBytes: bytes) else {
            throw FixtureError.malformed("expected.json is not an object")
        }
        return try sessions.mapValues { value in
            guard case .array(let versions) = value else { throw FixtureError.malformed("not an array") }
            return versions
        }
    }

    enum FixtureError: Error { case malformed(String) }

    static func register(on engine: Engine) throws {
        try engine.register(try ExampleMachines.Kanji.machine())
        try engine.register(
            try Machine(MixedFeatureChart.definition(delayedSend: false), bindings: MixedFeatureChart.bindings))
    }

    /// A copy of the fixture store in a temporary directory, opened with the fixture's machines.
    static func openCopy() throws -> (Engine, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "rewind-old-store")
        try FileManager.default.removeItem(atPath: directory.path)
        try FileManager.default.copyItem(atPath: fixture.appendingPathComponent("store").path, toPath: directory.path)
        let engine = try Engine(directory: directory.path, configuration: EngineConfiguration(snapshotInterval: 2))
        try register(on: engine)
        return (engine, directory)
    }

    /// The fields of `expected.json` for one replayed version.
    static func shown(_ point: ReplayPoint) -> [String: JSONValue] {
        [
            "version": .number(Double(point.version)),
            "event": point.event.map { .string($0) } ?? .null,
            "payload": point.payload,
            "configuration": .array(point.configuration.map { .string($0) }),
            "activeStates": .array(point.activeStates.map { .string($0) }),
            "data": .object(point.stateData),
            "context": point.context,
            "history": .object(point.state.history.mapValues { .array($0.map { .string($0) }) }),
            "screens": .array(point.navigation.screens.map { .string($0) }),
        ]
    }

    static func expectReplaysAsBefore(_ engine: Engine, session id: String, expected: [JSONValue]) throws {
        var cursor = try engine.replayCursor(for: id)
        #expect(try cursor.headVersion() == UInt64(expected.count))
        for (index, version) in expected.enumerated() {
            let point = try cursor.seek(to: UInt64(index + 1))
            guard case .object(let fields) = version else { throw FixtureError.malformed("a version is not an object") }
            for (key, value) in shown(point) {
                #expect(fields[key] == value, "\(id) v\(index + 1): \(key)")
            }
        }
    }

    @Test func anOldStoreResumesEverySessionAtItsHead() async throws {
        let expected = try Self.expected()
        let (engine, directory) = try Self.openCopy()
        defer { directory.remove() }
        defer { engine.close() }
        for id in Self.sessions {
            let session = try engine.session(id)
            guard let head = expected[id]?.last, case .object(let fields) = head else {
                throw FixtureError.malformed("no versions for \(id)")
            }
            #expect(fields["configuration"] == .array(session.configuration.map { .string($0) }))
            #expect(fields["data"] == .object(session.state.data))
            #expect(fields["context"] == session.state.context)
            #expect(fields["screens"] == .array(session.navigationStack.screens.map { .string($0) }))
        }
    }

    @Test func anOldStoreReplaysEveryVersionAsBefore() throws {
        let expected = try Self.expected()
        let (engine, directory) = try Self.openCopy()
        defer { directory.remove() }
        defer { engine.close() }
        for id in Self.sessions {
            try Self.expectReplaysAsBefore(engine, session: id, expected: expected[id] ?? [])
            let machine = try #require(engine.machine(named: id == "kanji-nav" ? "kanji" : "mixed"))
            let report = try engine.verify(try SessionID(id), against: machine)
            #expect(report.divergence == nil)
        }
    }

    @Test func anOldStorePassesTheStoreCheck() throws {
        let (engine, directory) = try Self.openCopy()
        defer { directory.remove() }
        defer { engine.close() }
        let report = try engine.checkStore()
        #expect(report.problem == nil, "\(report)")
        #expect(report.snapshots > 0)
        #expect(report.sessions == Self.sessions.count)
    }

    @Test func oldArchivesImportAndReplayAsBefore() async throws {
        let expected = try Self.expected()
        let fixture = try EngineFixture(snapshotInterval: 2)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [])
        defer { engine.close() }
        try Self.register(on: engine)
        for id in Self.sessions {
            let info = try await engine.importSession(from: Self.fixture.appendingPathComponent("\(id).rewind"))
            #expect(info.session.rawValue == id)
            try Self.expectReplaysAsBefore(engine, session: id, expected: expected[id] ?? [])
        }
    }
}
