import Foundation
import Rewind
import RewindTestSupport
import Testing

/// `Session.send(contentsOf:)`: many events, one append — the same records, states and snapshots
/// as one `send` per event; all or nothing; hooks after the commit, in order.
struct SessionBatchTests {
    typealias Browser = ExampleMachines.Browser
    static let events = [
        "open", "showComments", "back", "close", "showProfile", "showFeed", "openSettings", "closeSettings",
    ]

    /// A record without its time and global sequence (the two stores interleave nothing, but the
    /// clock moves between the two runs).
    struct Shape: Hashable {
        var version: UInt64, event: String, source: [String], target: [String]
        var navigation: [NavigationOperation], payload: [UInt8], stateData: [UInt8]
        init(_ record: TransitionRecord) {
            version = record.version
            event = record.event
            source = record.source
            target = record.target
            navigation = record.navigation
            payload = record.payload
            stateData = record.stateData
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func aBatchRecordsWhatOneSendPerEventRecords(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let single = try EngineFixture(snapshotInterval: 5)
        let batched = try EngineFixture(snapshotInterval: 5)
        defer {
            single.remove()
            batched.remove()
        }
        let one = try single.open(registering: [try Browser.machine()])
        let many = try batched.open(registering: [try Browser.machine()])
        defer {
            one.close()
            many.close()
        }
        let a = try await one.startSession(id: "s", machine: "browser")
        let b = try await many.startSession(id: "s", machine: "browser")

        // One send per event, keeping those the machine accepts.
        var accepted: [Event] = []
        for _ in 0..<300 {
            let event = Event(Self.events.randomElement(using: &random) ?? "open")
            do {
                try await a.send(event)
                accepted.append(event)
            } catch is MachineError {
                continue
            }
        }
        // The same events in batches of 1…40.
        var rest = accepted[...]
        var stepCount = 0
        while !rest.isEmpty {
            let chunk = rest.prefix(Int.random(in: 1...40, using: &random))
            rest = rest.dropFirst(chunk.count)
            stepCount += try await b.send(contentsOf: chunk).count
        }
        #expect(stepCount == accepted.count)

        let expected = try one.store.records(of: a.id).map(Shape.init)
        #expect(try many.store.records(of: b.id).map(Shape.init) == expected)
        #expect(b.version == a.version && b.state == a.state && b.navigationStack == a.navigationStack)
        #expect(try many.store.sessionInfo(for: b.id)?.headVersion == a.version)
        // The same snapshots, at the same versions.
        for version in stride(from: UInt64(5), through: a.version, by: 5) {
            let key = StoreKey.compound("s", version)
            let left = try one.store.read { try $0.value(forKey: key, in: .snapshots) }
            let right = try many.store.read { try $0.value(forKey: key, in: .snapshots) }
            #expect(left != nil && right != nil)
        }
        // And the batched session resumes to the same state.
        let resumed = try many.session(b.id)
        #expect(resumed.state == a.state && resumed.version == a.version)
    }

    @Test func aRefusedEventInTheBatchWritesNothingAndRunsNoHook() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Browser.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "s", machine: "browser")
        let hooks = LockedBox<[String]>([])
        session.onDidTransition { change in hooks.append(change.to.joined(separator: ",")) }
        let before = session.snapshot
        let head = try engine.store.headSequence()
        await #expect(throws: MachineError.self) {
            try await session.send(contentsOf: [Event("open"), Event("showComments"), Event("open")])
        }
        #expect(try engine.store.headSequence() == head)
        #expect(session.snapshot == before)
        #expect(hooks.current.isEmpty)
        #expect(try await session.send(contentsOf: [Event]()).isEmpty)
        #expect(try engine.store.headSequence() == head)
    }

    @Test func hooksRunAfterTheWholeBatchIsCommittedInOrder() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Browser.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "s", machine: "browser")
        let seen = LockedBox<[String]>([])
        let store = engine.store
        let id = session.id
        session.onDidTransition { change in
            let head = (try? store.sessionInfo(for: id)?.headVersion) ?? 0
            seen.append("\(change.to.joined(separator: ",")) @\(head)")
        }
        let steps = try await session.send(contentsOf: ["open", "showComments", "back"].map { Event($0) })
        #expect(steps.map(\.target.last) == ["postBody", "postComments", "postBody"].map { Optional($0) })
        #expect(seen.current == ["postBody @4", "postComments @4", "postBody @4"])
        #expect(session.version == 4)
    }
}
