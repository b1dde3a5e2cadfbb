import Foundation
import Rewind
import RewindTestSupport
import Testing

/// Hooks registered `on: .mainActor` run on the main actor (a `@MainActor` closure may touch the
/// app's UI state), in their usual order with the session's other hooks, before the request that
/// made the step returns, whichever task made it.
struct MainActorHookTests {
    typealias Onboarding = ExampleMachines.Onboarding

    /// UI state only the main actor may touch.
    @MainActor final class ScreenState {
        var shown: [String] = []
    }

    @Test func mainActorHooksRunOnTheMainActorBeforeTheRequestReturns() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let screen = ScreenState()
        let order = LockedBox<[String]>([])
        let session = try await engine.startSession(id: "user", machine: "onboarding")
        session.onWillTransition { _ in order.append("willTransition") }
        session.onDidEnter(Onboarding.Screen.greeting, on: .mainActor) { change in
            MainActor.assertIsolated("a main-actor hook ran off the main actor")
            screen.shown.append(change.to.joined())
            order.append("didEnter greeting (main)")
        }
        session.onDidTransition(on: .mainActor) { change in
            MainActor.assertIsolated("a main-actor hook ran off the main actor")
            order.append("didTransition (main)")
        }
        session.onUpdate("greeting", on: .mainActor) { delta in
            MainActor.assertIsolated("a main-actor hook ran off the main actor")
            screen.shown.append("update \(delta)")
        }

        // Requested from a task that is not on the main actor.
        _ = try await Task.detached { try await session.send(Onboarding.Event.launch) }.value
        #expect(await screen.shown == ["greeting"])
        #expect(order.current == ["willTransition", "didEnter greeting (main)", "didTransition (main)"])
        await Task.detached { await session.update(deltaTime: 0.25) }.value
        #expect(await screen.shown == ["greeting", "update 0.25"])
    }

    @Test @MainActor func aRequestMadeOnTheMainActorRunsItsMainActorHooksBeforeItReturns() async throws {
        let fixture = try EngineFixture()
        defer { fixture.remove() }
        let engine = try fixture.open(registering: [try Onboarding.machine()])
        defer { engine.close() }
        let screen = ScreenState()
        let session = try await engine.startSession(id: "user", machine: "onboarding") { session in
            session.onDidEnter(Onboarding.Screen.initial, on: .mainActor) { change in
                MainActor.assertIsolated("a main-actor hook ran off the main actor")
                screen.shown.append("first: \(change.to.joined())")
            }
        }
        #expect(screen.shown == ["first: initial"])
        session.onWillExit("initial", on: .mainActor) { _ in screen.shown.append("leaving initial") }
        session.onTransition(on: .mainActor) { microstep in screen.shown.append("microstep \(microstep.target)") }
        try await session.send(Onboarding.Event.launch)
        #expect(screen.shown == ["first: initial", "leaving initial", "microstep [\"greeting\"]"])
    }
}
