import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// `Engine.openSession`: starts a session the store lacks, resumes one it holds, installs the
/// hooks both ways, and survives two callers opening the same new session at once.
struct OpenSessionTests {
    typealias Onboarding = ExampleMachines.Onboarding

    @Test func startsWhenAbsentAndResumesWhenPresentWithTheHooksInstalledBothWays() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let entered = LockedBox<[String]>([])
        let configured = LockedBox(0)
        func configure(_ session: Session) {
            configured.withValue { $0 += 1 }
            for id in ["initial", "greeting", "login"] {
                session.onDidEnter(id) { change in entered.append("\(id) from \(change.previousState ?? "-")") }
            }
        }
        do {
            let engine = try fixture.open(registering: [try Onboarding.machine()])
            defer { engine.close() }
            let session = try await engine.openSession(
                id: "user", machine: "onboarding", context: ["plan": "free"], configure: configure)
            #expect(session.version == 1)
            #expect(session.state.context == ["plan": "free"])
            #expect(entered.current == ["initial from -"])  // the first entry ran the hook
            try await session.send(Onboarding.Event.launch)
            #expect(entered.current == ["initial from -", "greeting from initial"])
        }
        entered.withValue { $0.removeAll() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let resumed = try await engine.openSession(
            id: "user", machine: "onboarding", context: ["plan": "ignored"], configure: configure)
        #expect(resumed.version == 2)
        #expect(resumed.activeStates == ["greeting"])
        #expect(resumed.state.context == ["plan": "free"])  // a resumed session keeps its context
        #expect(entered.current.isEmpty)  // resuming enters nothing
        #expect(configured.current == 2)
        try await resumed.send(Onboarding.Event.start)
        #expect(entered.current == ["login from greeting"])  // the hooks were installed on resume
        #expect(try engine.store.sessionInfo(for: SessionID("user"))?.headVersion == 3)
    }

    @Test func refusesAnotherMachineAndAnUnknownMachineWritingNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [
            try Onboarding.machine(), try ExampleMachines.Kanji.machine(),
        ])
        defer { engine.close() }
        _ = try await engine.openSession(id: "user", machine: "onboarding")
        let head = try engine.store.headSequence()
        let configured = LockedBox(0)
        await #expect(
            throws: EngineError.sessionOfAnotherMachine(
                session: SessionID("user"), machine: "onboarding", requested: "kanji")
        ) {
            _ = try await engine.openSession(id: "user", machine: "kanji") { _ in configured.withValue { $0 += 1 } }
        }
        await #expect(throws: EngineError.unknownMachine("nope")) {
            _ = try await engine.openSession(id: "other", machine: "nope") { _ in configured.withValue { $0 += 1 } }
        }
        #expect(configured.current == 0)
        #expect(try engine.store.headSequence() == head)
        #expect(try engine.store.sessionInfo(for: SessionID("other")) == nil)
        #expect(
            EngineError.sessionOfAnotherMachine(session: SessionID("user"), machine: "onboarding", requested: "kanji")
                .description
                == "session 'user' runs machine 'onboarding', not 'kanji'; open it with machine 'onboarding'")
    }

    /// The race made deterministic: another writer commits the session's start after this call
    /// looked it up and before its own start is appended (from inside `configure`, which runs in
    /// between). The call's start writes nothing; it takes up the other writer's session with the
    /// hooks `configure` installed.
    @Test func aStartCommittedByAnotherWriterMeanwhileIsResumedNotAnError() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let machine = try #require(engine.machine(named: "onboarding"))
        let other = StepRecording(
            machine: machine, machineName: "onboarding", definition: machine.definition.contentVersion,
            coder: engine.store.coder)
        let entered = LockedBox<[String]>([])
        let configured = LockedBox(0)
        let session = try await engine.openSession(id: "user", machine: "onboarding", context: ["mine": true]) {
            session in
            configured.withValue { $0 += 1 }
            session.onDidEnter("initial") { _ in entered.append("initial") }
            session.onDidEnter("greeting") { _ in entered.append("greeting") }
            // The other writer's start, committed now.
            let time = Timestamp(microsecondsSince1970: 1_000_000)
            let step = try? other.evaluate(.start(context: ["theirs": true]), in: MachineState(), at: time)
            if let step,
                let transition = try? other.transition(for: step, request: .start(context: ["theirs": true]), at: time)
            {
                _ = try? engine.writableStore.append([transition], to: SessionID("user"), expectedVersion: .noStream)
            }
        }
        #expect(configured.current == 1)
        #expect(session.version == 1)
        #expect(session.state.context == ["theirs": true])  // the committed start, not this call's
        #expect(entered.current.isEmpty)  // this call's start ran no hook
        #expect(try engine.store.sessionInfo(for: SessionID("user"))?.recordCount == 1)
        try await session.send(Onboarding.Event.launch)
        #expect(entered.current == ["greeting"])
        #expect(session.version == 2)
    }

    @Test func concurrentOpensOfOneNewSessionAllGetItsState() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let openers = 8
        for round in 0..<10 {
            let id = "user-\(round)"
            let opened = try await withThrowingTaskGroup(of: (UInt64, [String]).self) { group in
                for _ in 0..<openers {
                    group.addTask {
                        let session = try await engine.openSession(id: id, machine: "onboarding")
                        return (session.version, session.activeStates)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(opened.count == openers)
            #expect(opened.allSatisfy { $0.0 == 1 && $0.1 == ["initial"] })
            #expect(try engine.store.sessionInfo(for: try SessionID(id))?.recordCount == 1)
        }
    }
}
