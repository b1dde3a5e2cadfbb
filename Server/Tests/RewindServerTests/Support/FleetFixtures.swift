import Foundation
import Rewind
import RewindExamples
import RewindServer
import RewindWire

/// A small deterministic generator (SplitMix64), so a device's sessions are the same every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Device {
    static let kanji = [
        ExampleMachines.Kanji.Character(character: "日", meanings: ["day", "sun"]),
        ExampleMachines.Kanji.Character(character: "本", meanings: ["book", "origin"]),
        ExampleMachines.Kanji.Character(character: "水", meanings: ["water"]),
    ]
    static let words = ["日本", "本日", "水曜日"].map(ExampleMachines.Kanji.Word.init)

    /// A kanji session of `records` records: its start (in `all`), then a walk through details
    /// and lists chosen by `generator` (pushes, and pops to the root on `all`).
    func runKanji(_ id: String, records: Int, using generator: inout SeededGenerator) async throws {
        typealias State = ExampleMachines.Kanji.State
        let session = try await engine.startSession(id: id, machine: ExampleMachines.Kanji.definition.name)
        var current = State.all
        for _ in 0..<(records - 1) {
            let next: State =
                switch current {
                case .all: .detail
                case .detail: Bool.random(using: &generator) ? .list : .all
                case .list: Int.random(in: 0..<3, using: &generator) == 0 ? .all : .detail
                }
            switch next {
            case .all: try await session.enter(State.all.rawValue)
            case .detail: try await session.enter(State.detail, data: Self.kanji.randomElement(using: &generator)!)
            case .list: try await session.enter(State.list, data: Self.words.randomElement(using: &generator)!)
            }
            current = next
        }
    }

    /// An onboarding session sending the first `events` of its events (0–3): `1 + events` records.
    func runOnboarding(_ id: String, events: Int) async throws {
        let session = try await engine.startSession(id: id, machine: ExampleMachines.Onboarding.definition.name)
        for event in ExampleMachines.Onboarding.Event.allCases.prefix(events) { _ = try await session.send(event) }
    }

    /// Sessions of both machines, `records` records in all, chosen by `seed`; returns their ids.
    @discardableResult
    func runMixed(records: Int, seed: UInt64, prefix: String = "s") async throws -> [String] {
        var generator = SeededGenerator(state: seed)
        var remaining = records
        var ids: [String] = []
        while remaining > 0 {
            let id = "\(prefix)-\(ids.count)"
            if remaining >= 4, Bool.random(using: &generator) {
                let events = min(Int.random(in: 0...3, using: &generator), remaining - 1)
                try await runOnboarding(id, events: events)
                remaining -= 1 + events
            } else {
                let count = min(remaining, Int.random(in: 2...24, using: &generator))
                try await runKanji(id, records: count, using: &generator)
                remaining -= count
            }
            ids.append(id)
        }
        return ids
    }

    /// The device's own screen flows and navigation stacks, folded by its engine (registered
    /// now, so caught up from the store's first record; inline from then on).
    func registerBuiltInProjections() throws {
        let registered = engine.registeredProjections
        if !registered.contains(ScreenFlowProjection().name) { try engine.register(ScreenFlowProjection()) }
        if !registered.contains(NavigationProjection().name) { try engine.register(NavigationProjection()) }
    }
}

extension TestServer {
    /// A GET with the app's read key (or `key`), which must answer 200.
    func get(_ path: String, key: APIKey? = nil) async throws -> HTTPTestResponse {
        let response = try await request("GET", path, key: key ?? app.readKey)
        guard response.status == 200 else { throw UnexpectedResponse(response: response) }
        return response
    }

    /// Waits until every projection has folded every record `key`'s app holds (polling
    /// `GET /v1/projections/status` until each lag is 0), or fails after `deadline`.
    func waitUntilCaughtUp(key: APIKey? = nil, deadline: Duration = .seconds(300)) async throws {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while true {
            let status = try await get("/v1/projections/status", key: key).json(ProjectionStatusBody.self)
            if status.projections.allSatisfy({ $0.lag == 0 }) { return }
            guard clock.now < end else { throw NotCaughtUp(status: status) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    struct NotCaughtUp: Error { var status: ProjectionStatusBody }

    /// Uploads every record of `device` in batches of `batchSize`, from the server's position.
    func uploadAll(_ device: Device, batchSize: Int = 200) async throws {
        var next = try await position(store: device.storeID, key: app.ingestKey)
        let last = UInt64(try device.records().count)
        while next <= last {
            let response = try await upload(try device.batch(from: next, limit: batchSize), store: device.storeID)
            guard response.status == 200 else { throw UnexpectedResponse(response: response) }
            next = try response.json(IngestionResult.self).nextSequence
        }
    }
}

/// The body of `GET /v1/projections/status`.
struct ProjectionStatusBody: Decodable {
    struct Progress: Decodable {
        var name: String
        var version: UInt32
        var stores: Int
        var lag: Int
        var failedStores: Int
    }
    var projections: [Progress]
}

/// The body of `GET /v1/machines/{machine}/funnel`.
struct FunnelBody: Decodable, Equatable {
    var machine: String
    var sessions: Int
    var reached: [String: Int]
    var stoppedAt: [String: Int]
}

/// The body of `GET /v1/stores/{store}/sessions/{session}/stack`.
struct StackBody: Decodable {
    struct Entry: Decodable {
        var screen: String
        var data: JSONValue
    }
    var machine: String
    var depth: Int
    var entries: [Entry]
}

/// The body of `GET /v1/machines/{machine}/stacks`.
struct StacksBody: Decodable {
    var machine: String
    var sessions: Int
    var histogram: [String: Int]
    var maximum: Int
}

/// The body of `GET /v1/sessions` with paging and configurations.
struct SessionPage: Decodable {
    struct Summary: Decodable, Hashable {
        var storeID: UUID
        var sessionID: String
        var machine: String
        var headVersion: Int64
        var lastRecordedAtMicroseconds: Int64
        var configuration: [String]?
    }
    var sessions: [Summary]
    var nextCursor: String?
}

/// `text` percent-encoded for a path segment or query value.
func percentEncoded(_ text: String) -> String {
    text.addingPercentEncoding(
        withAllowedCharacters: CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
}
