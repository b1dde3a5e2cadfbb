import Foundation
import Rewind
import RewindBaseTestSupport
import RewindExamples

/// Shared fixtures of the replay tests: an engine in a temporary directory with every example
/// machine registered, and one recorded session per example.
public final class ReplayFixture {
    /// The store's temporary directory (removed when the fixture goes).
    public let directory: TemporaryDirectory
    /// The engine on it, with the machines registered.
    public let engine: Engine

    /// An engine on a new temporary store with `machines` (every example by default) registered.
    public init(snapshotInterval: UInt64 = 4, registering machines: [Machine]? = nil) throws {
        directory = try TemporaryDirectory(prefix: "rewind-replay")
        engine = try Engine(
            directory: directory.path,
            configuration: EngineConfiguration(durability: .noSync, snapshotInterval: snapshotInterval))
        for machine in try machines ?? Self.exampleMachines() {
            try engine.register(machine)
        }
    }

    deinit {
        engine.close()
        directory.remove()
    }

    /// The seeds' example machines.
    public static func exampleMachines() throws -> [Machine] {
        [
            try ExampleMachines.Onboarding.machine(), try ExampleMachines.Kanji.machine(),
            try ExampleMachines.Map.machine(), try ExampleMachines.StateKit.machine(),
            try ExampleMachines.LoadingView.machine(), try ExampleMachines.Browser.machine(),
            try ExampleMachines.Upload.machine(),
        ]
    }

    /// One step of a scripted session.
    public enum Request: Sendable {
        case send(String, JSONValue = .null)
        case enter(String, JSONValue = .null)
    }

    /// A scripted session of each example: its machine, whether it starts normally (else with a
    /// first `enter`), and its requests.
    public static let scripts: [(machine: String, starts: Bool, requests: [Request])] = [
        ("onboarding", true, [.send("launch"), .send("start"), .send("loggedIn")]),
        (
            "kanji", false,
            [
                .enter("all"), .enter("detail", ["character": "日", "meanings": ["day", "sun"]]),
                .enter("list", ["word": "日本"]), .enter("detail", ["character": "本", "meanings": ["book"]]),
                .enter("all"),
            ]
        ),
        (
            "map", false,
            [
                .enter("start"), .enter("preview"), .enter("navigation"), .enter("start"), .enter("preview"),
                .enter("start"),
            ]
        ),
        (
            "statekit", true,
            [
                .send("apiRespondedError"), .send("userPressedRetryButton"), .send("apiRespondedSuccessfully"),
            ]
        ),
        (
            "loading-view", true,
            [
                .send("loaded", ["title": "Inbox", "items": ["a", "b"]]), .send("reload"), .send("failed", "timeout"),
                .send("retry"), .send("loaded", ["title": "Inbox", "items": ["a", "b", "c"]]),
            ]
        ),
        (
            "browser", true,
            [
                .send("open"), .send("showComments"), .send("openSettings"), .send("closeSettings"), .send("back"),
                .send("close"), .send("showProfile"), .send("showFeed"),
            ]
        ),
        (
            "upload", true,
            [
                .send("start"), .send("sent"), .send("rendered"), .send("reset"), .send("start"), .send("cancel"),
            ]
        ),
    ]

    /// Records the scripted session of `machine` as `id`; returns the live session.
    @discardableResult
    public func record(_ machine: String, as id: String, configure: (Session) -> Void = { _ in }) async throws
        -> Session
    {
        guard let script = Self.scripts.first(where: { $0.machine == machine }) else {
            throw EngineError.unknownMachine(machine)
        }
        let session: Session
        if script.starts {
            session = try await engine.startSession(id: id, machine: machine, configure: configure)
        } else {
            session = try engine.makeSession(id: try SessionID(id), machine: machine)
            configure(session)
        }
        for request in script.requests {
            switch request {
            case .send(let event, let payload): try await session.send(event, payload: payload)
            case .enter(let state, let data): try await session.enter(state, data: data)
            }
        }
        return session
    }

    /// Records every example's scripted session (as `<machine>-1`); returns their ids.
    public func recordAllExamples() async throws -> [SessionID] {
        var ids: [SessionID] = []
        for script in Self.scripts {
            let id = "\(script.machine)-1"
            try await record(script.machine, as: id)
            ids.append(try SessionID(id))
        }
        return ids
    }
}
