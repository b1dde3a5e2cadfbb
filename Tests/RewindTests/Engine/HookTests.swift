import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// Hooks run only after the step's record is committed, never for a failed append, in the
/// statechart's order; transitions requested from hooks run after the current step.
struct HookTests {
    typealias Onboarding = ExampleMachines.Onboarding

    struct InjectedFault: Error, Equatable {}

    @Test func hooksRunAfterTheCommitAndSeeTheirRecordInTheStore() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let seen = LockedBox<[String]>([])
        let session = try await engine.startSession(id: "user", machine: "onboarding") { session in
            let id = session.id
            session.onDidTransition { change in
                // Read the store from the hook: the record of this step must already be committed.
                let head = (try? engine.store.sessionInfo(for: id))?.headVersion ?? 0
                let last = (try? engine.store.records(of: id, versions: head...head))?.first
                seen.append(
                    "\(change.to.joined()) head=\(head) last=\(last?.target.joined() ?? "-") session=\(session.version)"
                )
            }
        }
        try await session.send(Onboarding.Event.launch)
        #expect(
            seen.current == [
                "initial head=1 last=initial session=1",
                "greeting head=2 last=greeting session=2",
            ])
    }

    @Test func failedAppendRunsNoHookAndChangesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let hooks = LockedBox<[String]>([])
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        session.onWillExit("initial") { _ in hooks.append("willExit initial") }
        session.onDidEnter("greeting") { _ in hooks.append("didEnter greeting") }
        session.onWillTransition { _ in hooks.append("willTransition") }
        session.onDidTransition { _ in hooks.append("didTransition") }
        session.onTransition { _ in hooks.append("transition") }
        let snapshotBefore = session.snapshot
        let headBefore = try engine.store.headSequence()
        let snapshotsBefore = try engine.store.read { try $0.sessions() }

        engine.commits.injectFaults { _ in InjectedFault() }
        await #expect(throws: InjectedFault()) { try await session.send(Onboarding.Event.launch) }
        #expect(hooks.current.isEmpty)
        #expect(session.snapshot == snapshotBefore)
        #expect(try engine.store.headSequence() == headBefore)
        #expect(try engine.store.read { try $0.sessions() } == snapshotsBefore)

        engine.commits.injectFaults(nil)
        try await session.send(Onboarding.Event.launch)
        #expect(
            hooks.current == ["willTransition", "willExit initial", "transition", "didEnter greeting", "didTransition"])
        #expect(session.version == 2)
        #expect(try engine.store.headSequence() == headBefore + 1)
    }

    @Test func aFaultFailsEveryAppendOfItsGroupCommitAndNoneIsWritten() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        var sessions: [Session] = []
        for index in 0..<8 { sessions.append(try await engine.startSession(id: "s\(index)", machine: "onboarding")) }
        let ran = LockedBox(0)
        for session in sessions { session.onDidTransition { _ in ran.withValue { $0 += 1 } } }
        engine.commits.injectFaults { _ in InjectedFault() }
        let failures = await withTaskGroup(of: Bool.self) { group in
            for session in sessions {
                group.addTask {
                    do {
                        try await session.send(Onboarding.Event.launch)
                        return false
                    } catch {
                        return error is InjectedFault
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 8)
        #expect(ran.current == 0)
        #expect(try engine.store.headSequence() == 8)
        #expect(sessions.allSatisfy { $0.version == 1 && $0.configuration == ["initial"] })
    }

    @Test func versionConflictRunsNoHookAndChangesNothing() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        let other = try engine.session("user")
        try await other.send(Onboarding.Event.launch)

        let hooks = LockedBox<[String]>([])
        session.onWillTransition { _ in hooks.append("willTransition") }
        session.onDidEnter("greeting") { _ in hooks.append("didEnter greeting") }
        let snapshotBefore = session.snapshot
        await #expect(throws: StoreError.versionConflict(session: session.id, expected: .exact(1), actual: 2)) {
            try await session.send(Onboarding.Event.launch)
        }
        #expect(hooks.current.isEmpty)
        #expect(session.snapshot == snapshotBefore)
        #expect(try engine.store.headSequence() == 2)

        try await session.reload()
        #expect(session.snapshot == other.snapshot)
        try await session.send(Onboarding.Event.start)
        #expect(hooks.current == ["willTransition"])
        #expect(session.configuration == ["login"])
    }

    @Test func hooksRunInStatechartOrder() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let machine = try ExampleMachines.Browser.machine()
        let engine = try fixture.open(registering: [machine])
        defer { engine.close() }
        let log = LockedBox<[String]>([])
        let session = try await engine.startSession(id: "browser", machine: "browser") { session in
            for id in machine.stateIDs {
                session.onWillExit(id) { _ in log.append("exit \(id)") }
                session.onDidEnter(id) { _ in log.append("enter \(id)") }
            }
            session.onWillTransition { change in log.append("will \(change.from ?? ["nil"]) → \(change.to)") }
            session.onDidTransition { change in log.append("did \(change.from ?? ["nil"]) → \(change.to)") }
            session.onTransition { microstep in log.append("transition \(microstep.transitions.map(\.targets))") }
        }
        #expect(
            log.current == [
                "will [\"nil\"] → [\"feedList\"]", "transition [[\"app\"]]",
                "enter app", "enter browse", "enter feed", "enter feedList",
                "did [\"nil\"] → [\"feedList\"]",
            ])
        try await session.send("open")
        try await session.send("showComments")
        log.withValue { $0.removeAll() }

        try await session.send("openSettings")
        #expect(
            log.current == [
                "will [\"postComments\"] → [\"settings\"]",
                "exit postComments", "exit post", "exit feed", "exit browse",
                "transition [[\"settings\"]]",
                "enter settings",
                "did [\"postComments\"] → [\"settings\"]",
            ])
    }

    @Test func firstEntryHasNoPreviousState() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Kanji.machine()])
        defer { engine.close() }
        let session = try engine.makeSession(id: SessionID("kanji"), machine: "kanji")
        let previous = LockedBox<[String?]>([])
        let entered = LockedBox<[JSONValue]>([])
        session.onDidEnter("all") { previous.append($0.previousState) }
        session.onDidEnter("detail") { entered.append($0.data) }
        try await session.enter("all")
        try await session.enter("detail", data: ["character": "月", "meanings": ["moon"]])
        try await session.enter("all")
        #expect(previous.current == [nil, "detail"])
        #expect(entered.current == [["character": "月", "meanings": ["moon"]]])
        #expect(session.navigationStack.screens == ["all"])
    }

    @Test func transitionsRequestedFromHooksRunAfterTheStepInOrderEachItsOwnRecord() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        let log = LockedBox<[String]>([])
        session.onDidEnter("greeting") { _ in
            session.setNeedsTransition("start")
            session.setNeedsTransition("loggedIn")
            log.append("enter greeting")
        }
        session.onDidEnter("login") { _ in log.append("enter login") }
        session.onDidEnter("home") { _ in log.append("enter home") }
        session.onDidTransition { change in log.append("did → \(change.to.joined())") }

        let step = try await session.send(Onboarding.Event.launch)
        #expect(step.target == ["greeting"])
        #expect(session.configuration == ["home"])
        #expect(
            log.current == [
                "enter greeting", "did → greeting", "enter login", "did → login", "enter home", "did → home",
            ])
        let records = try engine.store.records(of: session.id)
        #expect(records.map(\.event) == [StepRecording.startEvent, "launch", "start", "loggedIn"])
        #expect(records.map(\.version) == [1, 2, 3, 4])
        #expect(session.deferredErrors.isEmpty)
    }

    @Test func aRefusedQueuedTransitionIsReportedAsADeferredError() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        session.onDidEnter("greeting") { _ in session.setNeedsTransition("loggedIn") }
        try await session.send(Onboarding.Event.launch)
        #expect(session.configuration == ["greeting"])
        let errors = session.deferredErrors.compactMap { $0 as? MachineError }
        #expect(errors == [MachineError.invalidTransition(from: ["greeting"], event: "loggedIn")])
        #expect(try engine.store.headSequence() == 2)
    }
}

/// Hooks outside steps: `update(deltaTime:)` and transitions requested outside any step.
struct HookOutsideStepTests {
    @Test func updateReachesTheHooksOfTheActiveStatesOnly() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Browser.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "browser", machine: "browser")
        let updates = LockedBox<[String]>([])
        for id in ["browse", "feedList", "settings"] {
            session.onUpdate(id) { delta in updates.append("\(id) \(delta)") }
        }
        await session.update(deltaTime: 0.5)
        try await session.send("openSettings")
        await session.update(deltaTime: 0.25)
        #expect(updates.current == ["browse 0.5", "feedList 0.5", "settings 0.25"])
        #expect(try engine.store.headSequence() == 2)
    }

    @Test(.hangGuard)
    func aTransitionRequestedOutsideAnyStepRunsOnItsOwn() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try ExampleMachines.Onboarding.machine()])
        defer { engine.close() }
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        session.setNeedsTransition("launch")
        session.setNeedsTransition("start")
        while session.version < 3 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(session.configuration == ["login"])
        #expect(try engine.store.records(of: session.id).map(\.event) == [StepRecording.startEvent, "launch", "start"])
        #expect(session.deferredErrors.isEmpty)
    }

    /// StateViewController's `willTransition(to: .ready(model))` on a durable session: the hook
    /// sees the model the next state carries (from the event's payload) before anything is exited; a payload-free event (the machine's table of precomputed steps)
    /// into a state carrying nothing gives `null`.
    @Test func willTransitionSeesTheNextStatesDataOnEveryPath() async throws {
        typealias LoadingView = ExampleMachines.LoadingView
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try LoadingView.machine()])
        defer { engine.close() }
        let log = LockedBox<[String]>([])
        let session = try await engine.startSession(id: "screen", machine: "loading-view") { session in
            session.onWillTransition { change in
                let model = try? change.data(as: LoadingView.Model.self)
                log.append("will \(change.nextState ?? "-") \(model.map { "ready(\($0.title))" } ?? "\(change.data)")")
            }
            session.onWillExit("loading") { _ in log.append("exit loading") }
        }
        try await session.send("loaded", payload: try JSONValue(encoding: LoadingView.Model(title: "Inbox", items: [])))
        try await session.send(LoadingView.Event.reload)
        try await session.send(
            "loaded", payload: try JSONValue(encoding: LoadingView.Model(title: "Cached", items: [])))
        #expect(
            log.current == [
                "will loading \(JSONValue.null)",
                "will ready ready(Inbox)", "exit loading",
                "will loading \(JSONValue.null)",
                "will ready ready(Cached)", "exit loading",
            ])
    }
}
