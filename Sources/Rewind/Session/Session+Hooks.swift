import Foundation
import RewindMachine
import RewindStore

/// A session's hooks: their registration (GKState and StateViewController style),
/// `update(deltaTime:)`, and running them after a committed step.
extension Session {
    /// Forwards `update(deltaTime:)` to the hooks of the active states (GKState's `update`).
    public func update(deltaTime: Double) async {
        await gate.withGate {
            let state = self.state
            if guarded.withLock({ $0.hooksOnMainActor }) {
                await MainActor.run { registeredHooks().update(deltaTime: deltaTime, in: state) }
            } else {
                registeredHooks().update(deltaTime: deltaTime, in: state)
            }
        }
        await drainQueued()
    }

    /// Runs `hook` each time `state` is entered (GKState's `didEnter(from:)`).
    public func onDidEnter(_ state: String, _ hook: @escaping @Sendable (StateChange) -> Void) {
        guarded.withLock { $0.hooks.onDidEnter(state, hook) }
    }

    /// Runs `hook` each time `state` is exited (GKState's `willExit(to:)`).
    public func onWillExit(_ state: String, _ hook: @escaping @Sendable (StateChange) -> Void) {
        guarded.withLock { $0.hooks.onWillExit(state, hook) }
    }

    /// Runs `hook` on ``update(deltaTime:)`` while `state` is active.
    public func onUpdate(_ state: String, _ hook: @escaping @Sendable (_ deltaTime: Double) -> Void) {
        guarded.withLock { $0.hooks.onUpdate(state, hook) }
    }

    /// Runs `hook` before each step's exits (StateViewController's `willTransition(to:)`); the
    /// change's `data` is the next state's data (see `StateChange.data`).
    public func onWillTransition(_ hook: @escaping @Sendable (StateChange) -> Void) {
        guarded.withLock { $0.hooks.onWillTransition(hook) }
    }

    /// Runs `hook` after each step's entries (StateViewController's `didTransition(from:)`); the
    /// change's `data` is the next state's data (see `StateChange.data`).
    public func onDidTransition(_ hook: @escaping @Sendable (StateChange) -> Void) {
        guarded.withLock { $0.hooks.onDidTransition(hook) }
    }

    /// Runs `hook` for each microstep between its exits and its entries (transition actions).
    public func onTransition(_ hook: @escaping @Sendable (Microstep) -> Void) {
        guarded.withLock { $0.hooks.onTransition(hook) }
    }

    /// Registers a hook that must run on the main actor (Session+MainActorHooks.swift): from now
    /// on the session runs its hooks there.
    func registerMainActorHook(_ register: (StepHooks) -> Void) {
        guarded.withLock { guarded in
            guarded.hooksOnMainActor = true
            register(guarded.hooks)
        }
    }

    /// A copy of the hooks registered now, to run outside the lock (a hook may register another,
    /// or read the session).
    private func registeredHooks() -> StepHooks {
        guarded.withLock { $0.hooks.copy() }
    }

    /// Runs the hooks of `steps` in order, each step's previous state the one the step before it
    /// reached (the first's `previous`); steps that moved nothing run none. `onMainActor`: a
    /// `@MainActor` hook is registered, and all of them run on the main actor.
    ///
    /// The caller asks first whether any hook is registered (`Guarded.hooksRunOnMainActor`, read
    /// with the state it updates anyway): with none (the usual case) there is no call, and no
    /// frame of an async call to allocate and free on every send.
    func runHooks(of steps: [Step], from previous: MachineState, onMainActor: Bool) async {
        if onMainActor {
            await MainActor.run { runHooksHere(of: steps, from: previous) }
        } else {
            runHooksHere(of: steps, from: previous)
        }
    }

    /// `runHooks(of:from:)` on the current thread.
    private func runHooksHere(of steps: [Step], from previous: MachineState) {
        let hooks = registeredHooks()
        var previous = previous
        for step in steps {
            if !step.microsteps.isEmpty { hooks.run(step, of: machine, previous: previous) }
            previous = step.state
        }
    }
}
