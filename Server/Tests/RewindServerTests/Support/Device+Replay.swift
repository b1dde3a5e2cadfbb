import Foundation
import Rewind
import RewindExamples
import RewindServer

/// Devices whose logs exercise replay: several machines, state data and payloads, interleaved
/// sessions, a fork and a migrated session.
extension Device {
    /// A device with the loading-view and browser examples registered beside onboarding and kanji.
    static func withExamples() throws -> Device {
        try Device(extra: [
            (ExampleMachines.LoadingView.definition.name, try ExampleMachines.LoadingView.machine()),
            (ExampleMachines.Browser.definition.name, try ExampleMachines.Browser.machine()),
        ])
    }

    /// Interleaved sessions of onboarding, kanji (with state data) and loading-view (with
    /// payloads), and a fork of the kanji session that goes its own way.
    func runVariety() async throws {
        typealias Kanji = ExampleMachines.Kanji
        typealias Loading = ExampleMachines.LoadingView
        let onboarding = try await engine.startSession(id: "ob-1", machine: ExampleMachines.Onboarding.definition.name)
        let kanji = try await engine.startSession(id: "kanji-1", machine: Kanji.definition.name)
        let loading = try await engine.startSession(id: "lv-1", machine: Loading.definition.name)
        let events = ExampleMachines.Onboarding.Event.allCases
        _ = try await onboarding.send(events[0])
        _ = try await kanji.enter(
            Kanji.State.detail, data: Kanji.Character(character: "木", meanings: ["tree", "wood"]))
        _ = try await loading.send(Loading.Event.loaded, payload: Loading.Model(title: "Inbox", items: ["a", "b"]))
        _ = try await onboarding.send(events[1])
        _ = try await kanji.enter(Kanji.State.list, data: Kanji.Word(word: "日本"))
        _ = try await loading.send(Loading.Event.reload)
        _ = try await kanji.enter(
            Kanji.State.detail, data: Kanji.Character(character: "本", meanings: ["book", "origin"]))
        _ = try await loading.send(Loading.Event.failed, payload: "offline \"quoted\" \\ / ✓")
        _ = try await kanji.enter(Kanji.State.all)
        _ = try await loading.send(Loading.Event.retry)
        _ = try await loading.send(
            Loading.Event.loaded, payload: Loading.Model(title: "Inbox", items: ["a", "c", "d"]))
        for event in events.dropFirst(2) { _ = try await onboarding.send(event) }
        try await runOnboarding(["ob-2"])
        _ = try await engine.fork("kanji-1", at: 3, as: "kanji-fork")
        let fork = try engine.session("kanji-fork")
        _ = try await fork.enter(Kanji.State.detail, data: Kanji.Character(character: "日", meanings: ["day", "sun"]))
        _ = try await fork.enter(Kanji.State.all)
    }

    /// The sessions of the device's store, by id.
    func sessionIDs() throws -> [SessionID] {
        try engine.sessions().map(\.session).sorted { $0.rawValue < $1.rawValue }
    }

    /// A device whose session `user` of machine `flow` was recorded under one definition and then
    /// migrated (resumed with `.replayWithRegistered` under another that reminds the user an hour
    /// after each `open`, a pending delayed send) and continued: its log holds the
    /// `rewind.migrate` record and records under both definitions.
    static func withMigratedSession() async throws -> Device {
        func flow(reminding: Bool) -> MachineDefinition {
            MachineDefinition("flow") {
                StateNode("list") {
                    On(
                        "open", to: "detail",
                        actions: reminding ? [.send(event: "remind", delay: .seconds(3_600))] : [])
                }
                StateNode("detail") {
                    On("back", to: "list")
                }
            }
        }
        let directory = NSTemporaryDirectory() + "rewind-server-migration-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = EngineConfiguration()
        configuration.durability = .noSync
        do {
            let engine = try Engine(directory: directory, configuration: configuration)
            defer { engine.close() }
            try engine.register(try Machine(flow(reminding: false)))
            let session = try await engine.startSession(id: "user", machine: "flow")
            for event in ["open", "back", "open"] { _ = try await session.send(event) }
        }
        let device = try Device(copying: directory)
        try device.engine.register(try Machine(flow(reminding: true)))
        let session = try device.engine.session("user", policy: .replayWithRegistered)
        for event in ["back", "open", "back"] { _ = try await session.send(event) }
        return device
    }
}
