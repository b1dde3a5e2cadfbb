import RewindMachine

/// Where a session runs hooks registered with it: `session.onDidEnter(Screen.detail, on: .mainActor) { … }`.
///
/// Hooks registered without it run on the task that made the request, off the main actor (see
/// ``Session``).
public enum HookIsolation: Sendable, Hashable {
    /// On the main actor: the hook is a `@MainActor` closure that may touch the app's UI state.
    /// Once a session has one, it runs all its hooks of a step on the main actor, in their usual
    /// order, before the request that made the step returns.
    case mainActor
}

// Hooks for UI code: `@MainActor` closures, run on the main actor. Registering one switches the
// session to running every step's hooks inside one `MainActor.run` (Session.runHooks), so the
// closures below are on the main actor whenever the session calls them.

extension Session {
    /// Runs `hook` on the main actor each time `state` is entered.
    public func onDidEnter(
        _ state: String, on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (StateChange) -> Void
    ) {
        registerMainActorHook { $0.onDidEnter(state) { change in MainActor.assumeIsolated { hook(change) } } }
    }

    /// Runs `hook` on the main actor each time the typed state `state` is entered.
    public func onDidEnter<S: RawRepresentable<String>>(
        _ state: S, on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (StateChange) -> Void
    ) {
        onDidEnter(state.rawValue, on: isolation, hook)
    }

    /// Runs `hook` on the main actor each time `state` is exited.
    public func onWillExit(
        _ state: String, on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (StateChange) -> Void
    ) {
        registerMainActorHook { $0.onWillExit(state) { change in MainActor.assumeIsolated { hook(change) } } }
    }

    /// Runs `hook` on the main actor each time the typed state `state` is exited.
    public func onWillExit<S: RawRepresentable<String>>(
        _ state: S, on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (StateChange) -> Void
    ) {
        onWillExit(state.rawValue, on: isolation, hook)
    }

    /// Runs `hook` on the main actor on ``update(deltaTime:)`` while `state` is active.
    public func onUpdate(
        _ state: String, on isolation: HookIsolation,
        _ hook: @escaping @MainActor @Sendable (_ deltaTime: Double) -> Void
    ) {
        registerMainActorHook { $0.onUpdate(state) { delta in MainActor.assumeIsolated { hook(delta) } } }
    }

    /// Runs `hook` on the main actor on ``update(deltaTime:)`` while the typed state `state` is
    /// active.
    public func onUpdate<S: RawRepresentable<String>>(
        _ state: S, on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (_ deltaTime: Double) -> Void
    ) {
        onUpdate(state.rawValue, on: isolation, hook)
    }

    /// Runs `hook` on the main actor before each step's exits (see `onWillTransition(_:)`).
    public func onWillTransition(
        on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (StateChange) -> Void
    ) {
        registerMainActorHook { $0.onWillTransition { change in MainActor.assumeIsolated { hook(change) } } }
    }

    /// Runs `hook` on the main actor after each step's entries (see `onDidTransition(_:)`).
    public func onDidTransition(
        on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (StateChange) -> Void
    ) {
        registerMainActorHook { $0.onDidTransition { change in MainActor.assumeIsolated { hook(change) } } }
    }

    /// Runs `hook` on the main actor for each microstep between its exits and its entries (see
    /// `onTransition(_:)`).
    public func onTransition(on isolation: HookIsolation, _ hook: @escaping @MainActor @Sendable (Microstep) -> Void) {
        registerMainActorHook { $0.onTransition { microstep in MainActor.assumeIsolated { hook(microstep) } } }
    }
}
