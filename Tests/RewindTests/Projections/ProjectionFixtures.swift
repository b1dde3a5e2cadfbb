import Foundation
import Rewind
import RewindTestSupport

/// Counts each session's records (JSON-encoded `Int` states: the protocol's default encoding).
/// Throws on the record `failOn` names while `failOn` holds one; counts every apply in `applied`.
struct EventCountProjection: Projection {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "refusing this record on purpose" }
    }

    var name = "test.event-counts"
    var version: UInt32 = 1
    /// (session, event) of the record to fail on; `nil` = never fail.
    var failOn = LockedBox<(session: String, event: String)?>(nil)
    var applied = LockedBox(0)
    /// Version 2 keys by machine instead of session.
    var keysByMachine = false

    func key(for record: TransitionRecord) -> String? {
        keysByMachine ? "machine:" + record.machine : record.session.rawValue
    }

    func apply(_ record: TransitionRecord, to state: inout Int?) throws {
        if let failOn = failOn.current, failOn.session == record.session.rawValue, failOn.event == record.event {
            throw Failure()
        }
        applied.withValue { $0 += 1 }
        state = (state ?? 0) + 1
    }
}

/// Engines on temporary stores, and raw views of the projection databases.
enum ProjectionFixtures {
    static func configuration(projections: [any Projection] = []) -> EngineConfiguration {
        var configuration = EngineConfiguration(durability: .noSync)
        configuration.projections = projections
        return configuration
    }

    static func engine(in directory: TemporaryDirectory, projections: [any Projection] = []) throws -> Engine {
        let engine = try Engine(directory: directory.path, configuration: configuration(projections: projections))
        try engine.register(try ExampleMachines.Onboarding.machine())
        try engine.register(try ExampleMachines.Kanji.machine())
        return engine
    }

    /// Every entry of `database` whose key starts with `prefix`, as raw bytes, in key order.
    static func entries(
        of store: TransitionStore, in database: AuxiliaryDatabase, prefix: String = ""
    ) throws -> [[UInt8]: [UInt8]] {
        let prefix = Array(prefix.utf8)
        var entries: [[UInt8]: [UInt8]] = [:]
        try store.read { transaction in
            try transaction.forEach(in: database) { key, value in
                if key.starts(with: prefix) { entries[Array(key)] = Array(value) }
                return .next
            }
        }
        return entries
    }

    /// Runs an onboarding session `id` through the first `steps` of launch, start, loggedIn.
    static func onboard(_ engine: Engine, id: String, steps: Int) async throws {
        let session = try await engine.startSession(id: id, machine: "onboarding")
        for event in ["launch", "start", "loggedIn"].prefix(steps) {
            try await session.send(event)
        }
    }

    /// The Kanji seed's session: all → detail(日) → list(日本) → detail(本) → all.
    static let kanjiMoves: [(state: String, data: JSONValue)] = [
        ("all", .null),
        ("detail", ["character": "日", "meanings": ["sun", "day"]]),
        ("list", ["word": "日本"]),
        ("detail", ["character": "本", "meanings": ["book", "origin"]]),
        ("all", .null),
    ]

    /// A transition of the onboarding machine for direct store appends.
    static func transition(event: String, to state: String, navigation: [NavigationOperation] = [], at time: Int64)
        -> TransitionDraft
    {
        TransitionDraft(
            timestamp: Timestamp(microsecondsSince1970: time), machine: "bulk", definition: "v1", event: event,
            source: [], target: [state], navigation: navigation)
    }
}
