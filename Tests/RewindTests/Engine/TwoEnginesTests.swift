import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Two engines on one store in one process: a session changed through one surfaces as a version
/// conflict in the other; after a reload the send succeeds; nothing is lost or duplicated.
struct TwoEnginesTests {
    @Test func aChangeThroughEngineAIsAConflictOnEngineBsNextSendThenReloadAndRetryWorks() async throws {
        let fixture = try EngineFixture(snapshotInterval: 3)
        defer { fixture.remove() }
        let machine = try ExampleMachines.Onboarding.machine()
        let engineA = try fixture.open(registering: [machine])
        defer { engineA.close() }
        let engineB = try fixture.open(registering: [machine])
        defer { engineB.close() }

        let sessionA = try await engineA.startSession(id: "user", machine: "onboarding")
        let sessionB = try engineB.session("user")
        #expect(sessionB.snapshot == sessionA.snapshot)
        try await sessionA.send("launch")

        await #expect(throws: StoreError.versionConflict(session: sessionB.id, expected: .exact(1), actual: 2)) {
            try await sessionB.send("launch")
        }
        try await sessionB.reload()
        #expect(sessionB.configuration == ["greeting"])
        try await sessionB.send("start")
        await #expect(throws: StoreError.versionConflict(session: sessionA.id, expected: .exact(2), actual: 3)) {
            try await sessionA.send("start")
        }
        try await sessionA.reload()
        try await sessionA.send("loggedIn")

        let audit = try LogAudit(engineA.writableStore)
        #expect(audit.problems.isEmpty)
        #expect(audit.records.map(\.event) == [StepRecording.startEvent, "launch", "start", "loggedIn"])
        #expect(try engineB.session("user").snapshot == sessionA.snapshot)
    }

    @Test(.hangGuard)
    func concurrentWritersThroughTwoEnginesLoseAndDuplicateNothing() async throws {
        let fixture = try EngineFixture(snapshotInterval: 8)
        defer { fixture.remove() }
        let machine = try TickerMachine.machine()
        let engines = [try fixture.open(registering: [machine]), try fixture.open(registering: [machine])]
        defer { for engine in engines { engine.close() } }
        _ = try await engines[0].startSession(id: "shared", machine: TickerMachine.name)
        let perWriter = 150

        // Each writer sends to the shared session (reloading on conflicts) and to its own.
        let results = try await withThrowingTaskGroup(
            of: (writer: Int, acks: [(String, UInt64, Int)], conflicts: Int).self
        ) { group in
            for (writer, engine) in engines.enumerated() {
                group.addTask {
                    let shared = try engine.session("shared")
                    let own = try await engine.startSession(id: "own-\(writer)", machine: TickerMachine.name)
                    var acks: [(String, UInt64, Int)] = []
                    var conflicts = 0
                    for index in 0..<perWriter {
                        let payload: JSONValue = ["writer": .number(Double(writer)), "i": .number(Double(index))]
                        try await own.send(TickerMachine.tick, payload: payload)
                        acks.append((own.id.rawValue, own.version, index))
                        while true {
                            do {
                                try await shared.send(TickerMachine.tick, payload: payload)
                                acks.append(("shared", shared.version, index))
                                break
                            } catch StoreError.versionConflict {
                                conflicts += 1
                                try await shared.reload()
                            }
                        }
                    }
                    return (writer, acks, conflicts)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let audit = try LogAudit(engines[0].writableStore)
        #expect(audit.problems.isEmpty)
        #expect(audit.records.count == 1 + 2 * (1 + 2 * perWriter))
        let coder = JSONPayloadCoder()
        // Every acknowledged send is the record at the acknowledged version.
        for result in results {
            #expect(result.acks.count == 2 * perWriter)
            for (session, version, index) in result.acks {
                let record = try #require(audit.records(of: session).first { $0.version == version })
                let payload = try coder.decode(JSONValue.self, from: record.payload)
                #expect(payload["writer"]?.doubleValue == Double(result.writer))
                #expect(payload["i"]?.doubleValue == Double(index))
            }
        }
        // Each (writer, index) appears once in the shared session.
        let sharedTags = try audit.records(of: "shared").dropFirst().map { record -> String in
            let payload = try coder.decode(JSONValue.self, from: record.payload)
            return "\(payload["writer"]?.doubleValue ?? -1)/\(payload["i"]?.doubleValue ?? -1)"
        }
        #expect(sharedTags.count == 2 * perWriter)
        #expect(Set(sharedTags).count == 2 * perWriter)
        print("two engines: \(results.map(\.conflicts)) conflicts")
    }

    @Test func closingOneEngineLeavesTheOtherOnTheSameStoreWorking() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try ExampleMachines.Onboarding.machine()
        let engineA = try fixture.open(registering: [machine])
        let engineB = try fixture.open(registering: [machine])
        defer { engineB.close() }
        let session = try await engineA.startSession(id: "user", machine: "onboarding")
        try await session.send("launch")
        engineA.close()
        await #expect(throws: EngineError.closed) { try await session.send("start") }
        let resumed = try engineB.session("user")
        try await resumed.send("start")
        #expect(resumed.configuration == ["login"])
        #expect(
            try LogAudit(engineB.writableStore).records.map(\.event) == [StepRecording.startEvent, "launch", "start"])
    }
}
