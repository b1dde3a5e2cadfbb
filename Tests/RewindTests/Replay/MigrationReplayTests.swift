import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Replay across a migration (``ResumePolicy/replayWithRegistered``): a session recorded under
/// one definition, resumed under another that reaches the same configurations for the old events
/// but computes another state for them (pending sends, or context), then continued. Every replay
/// path must show, at each version, the state the live session had there: the old definition's
/// before the migration, the migrated one's at its `rewind.migrate` record and after it.
struct MigrationReplayTests {
    /// Two definitions of one machine, the bindings both need, and the events sent under each.
    struct Pair: CustomStringConvertible, Sendable {
        var description: String
        var old: MachineDefinition
        var new: MachineDefinition
        var bindings: Bindings
        var eventsBefore: [String]
        var eventsAfter: [String]

        func machine(_ definition: MachineDefinition) throws -> Machine {
            try Machine(definition, bindings: bindings)
        }
    }

    /// A list and a detail screen; the new definition reminds the user an hour after each `open`
    /// (a delayed send, pending for the whole test). No bindings: an archive's definitions
    /// compile on their own.
    static let reminders: Pair = {
        func flow(reminding: Bool) -> MachineDefinition {
            MachineDefinition("flow") {
                StateNode("list") {
                    On(
                        "open", to: "detail",
                        actions: reminding ? [.send(event: "remind", delay: .milliseconds(3_600_000))] : [])
                }
                StateNode("detail") {
                    On("back", to: "list")
                }
            }
        }
        return Pair(
            description: "pending sends", old: flow(reminding: false), new: flow(reminding: true),
            bindings: Bindings(), eventsBefore: ["open", "back", "open", "back", "open"],
            eventsAfter: ["back", "open", "back", "open", "back"])
    }()

    /// A counter whose taps count one each under the old definition and ten under the new one.
    static let counter: Pair = {
        func adding(_ amount: Double) -> @Sendable (inout ActionScope) throws -> Void {
            { scope in scope.context["count"] = .number((scope.context["count"]?.doubleValue ?? 0) + amount) }
        }
        func counter(action: String) -> MachineDefinition {
            MachineDefinition("flow") {
                StateNode("counting") {
                    On("tap", actions: [.custom(action)])
                }
            }
        }
        return Pair(
            description: "context", old: counter(action: "countOne"), new: counter(action: "countTen"),
            bindings: Bindings(actions: ["countOne": adding(1), "countTen": adding(10)]),
            eventsBefore: Array(repeating: "tap", count: 5), eventsAfter: Array(repeating: "tap", count: 5))
    }()

    /// Records `pair`'s session: its events under the old definition, a migration, its events under
    /// the new one. Returns the fixture and the live snapshot at every version (the one at the
    /// last version under the old definition is the old definition's: what the user saw there;
    /// the migration record's is the migrated state).
    func record(_ pair: Pair) async throws -> (EngineFixture, [UInt64: SessionSnapshot]) {
        let fixture = try EngineFixture(snapshotInterval: 4)
        var live: [UInt64: SessionSnapshot] = [:]
        do {
            let engine = try fixture.open(registering: [try pair.machine(pair.old)])
            defer { engine.close() }
            let session = try await engine.startSession(id: "user", machine: "flow")
            live[session.version] = session.snapshot
            for event in pair.eventsBefore {
                try await session.send(event)
                live[session.version] = session.snapshot
            }
        }
        let engine = try fixture.open(registering: [try pair.machine(pair.new)])
        defer { engine.close() }
        let session = try engine.session("user", policy: .replayWithRegistered)
        // The pair really diverges: the migration computed another state for the same version.
        let before = try #require(live[session.version])
        #expect(session.snapshot.state.configuration == before.state.configuration)
        #expect(session.snapshot.state != before.state)
        var migrated = session.snapshot
        for event in pair.eventsAfter {
            try await session.send(event)
            live[session.version] = session.snapshot
        }
        // The migration record went with the first event, one version before it.
        migrated.version += 1
        let record = try #require(
            try engine.store.records(of: session.id, versions: migrated.version...migrated.version).first)
        #expect(record.event == StepRecording.migrateEvent)
        migrated.timestamp = record.timestamp
        live[migrated.version] = migrated
        return (fixture, live)
    }

    @Test(arguments: [reminders, counter])
    func seekingSteppingAndPlayingShowTheLiveStateAtEveryVersion(_ pair: Pair) async throws {
        let (fixture, live) = try await record(pair)
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try pair.machine(pair.new)])
        defer { engine.close() }
        let head = UInt64(1 + pair.eventsBefore.count + 1 + pair.eventsAfter.count)
        var seeking = try engine.replayCursor(for: "user", bindings: pair.bindings)
        var stepping = try engine.replayCursor(for: "user", bindings: pair.bindings)
        let playing = try engine.player(for: "user", bindings: pair.bindings)
        let skipping = try engine.player(for: "user", bindings: pair.bindings)
        for version in 1...head {
            let expected = try #require(live[version])
            let point = try seeking.seek(to: version)
            #expect(point.state == expected.state, "seeking to \(version)")
            #expect(point.navigation == expected.navigation, "seeking to \(version)")
            let stepped = try #require(try stepping.stepForward())
            #expect(stepped.state == expected.state, "stepping to \(version)")
            try playing.play(through: version)
            #expect(playing.snapshot == expected, "playing through \(version)")
            try skipping.skip(to: version)
            #expect(skipping.snapshot == expected, "skipping to \(version)")
        }
        // Stepping back over the migration record and forward again.
        let first = UInt64(1 + pair.eventsBefore.count) + 1
        try stepping.seek(to: first)
        #expect(try stepping.stepBack()?.state == live[first - 1]?.state)
        #expect(try stepping.stepForward()?.state == live[first]?.state)
    }

    @Test func anImportedSessionResumesAndReplaysAsTheLiveOne() async throws {
        let pair = Self.reminders
        let (fixture, live) = try await record(pair)
        defer { fixture.remove() }
        let archive: Data
        do {
            let engine = try fixture.open(registering: [try pair.machine(pair.new)])
            defer { engine.close() }
            archive = try engine.exportSession(SessionID("user"))
        }
        // Into a fresh store: its snapshots are computed at import (every 4 versions).
        let other = try EngineFixture(snapshotInterval: 4)
        defer { other.remove() }
        let engine = try other.open(registering: [try pair.machine(pair.new)])
        defer { engine.close() }
        let info = try await engine.importSession(archive)
        let expected = try #require(live[info.headVersion])
        #expect(try engine.session("user").snapshot.state == expected.state)
        var cursor = try engine.replayCursor(for: "user")
        for version in 1...info.headVersion {
            #expect(try cursor.seek(to: version).state == live[version]?.state, "seeking to \(version)")
        }
    }
}
