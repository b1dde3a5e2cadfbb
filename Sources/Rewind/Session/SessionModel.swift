import Observation
import RewindMachine

/// A ``Session`` for an app's views: an `@Observable` model on the main actor that publishes the
/// session's committed state (configuration, active states, state data, context, version and
/// navigation stack) after each commit, for SwiftUI views and `withObservationTracking`.
///
/// ```swift
/// let session = try await engine.openSession(id: "user-42", machine: "kanji")
/// let model = SessionModel(session: session)
/// try await model.enter("detail", data: ["character": "日"])   // committed, then published
/// model.path                                                      // ["detail"]
/// ```
///
/// The published values change only after a commit, and all at once (a view never sees the new
/// configuration with the old stack); a refused request (`MachineError`, a failed append) changes
/// nothing and notifies no observer. Requests made through the model (``send(_:payload:)``,
/// `enter(_:data:)`) publish before they return. Commits made on the session by other means
/// (requests queued from hooks with `setNeedsTransition`, delayed sends delivered, another task
/// sending on the session) are published too, shortly after, on the main actor: the model
/// registers an `onDidTransition` hook that hops there. A commit made by another engine or
/// process is published after ``Session/reload()`` and ``refresh()``.
@Observable
@MainActor
public final class SessionModel {
    /// The session the model shows.
    @ObservationIgnored public let session: Session

    /// The session's latest committed version published (0 before its first record).
    public private(set) var version: UInt64
    /// The active configuration, in document order.
    public private(set) var configuration: [String]
    /// The active atomic states (the screens shown).
    public private(set) var activeStates: [String]
    /// The data carried by the active states (`.detail(kanji)`), by state id.
    public private(set) var data: [String: JSONValue]
    /// The machine's context.
    public private(set) var context: JSONValue
    /// The navigation stack the user sees, root first.
    public private(set) var navigationStack: ScreenStack

    /// The screens pushed above the stack's root, bottom first: what a SwiftUI `NavigationStack`'s
    /// path (or the view controllers above a `UINavigationController`'s root) shows.
    public var path: [String] { Array(navigationStack.screens.dropFirst()) }

    /// The entries above the stack's root decoded as the app's route values, ready for
    /// SwiftUI's `NavigationStack(path:)` (see ``ScreenStack/navigationPath(as:)``).
    ///
    /// - Throws: ``NavigationRouteError`` naming the first entry that does not decode.
    public func navigationPath<Route: Decodable>(as type: Route.Type = Route.self) throws(NavigationRouteError)
        -> [Route]
    {
        try navigationStack.navigationPath(as: type)
    }

    /// Publishes `session`'s state now, and after each of its commits.
    public init(session: Session) {
        self.session = session
        let snapshot = session.snapshot
        version = snapshot.version
        configuration = snapshot.state.configuration
        activeStates = session.machine.atomicStates(of: snapshot.state.configuration)
        data = snapshot.state.data
        context = snapshot.state.context
        navigationStack = snapshot.navigation
        // Commits the model did not request: published from the main actor once it gets there.
        session.onDidTransition { [weak self] _ in
            Task { @MainActor [weak self] in self?.refresh() }
        }
    }

    /// The data the active state `id` carries, decoded as `type`; `nil` when it carries none.
    ///
    /// - Throws: `DecodingError` when the data does not have the shape of `type`.
    public func data<T: Decodable>(of id: String, as type: T.Type = T.self) throws -> T? {
        guard let value = data[id], !value.isNull else { return nil }
        return try value.decode(type)
    }

    /// Publishes the session's latest committed state, when it differs from the state published
    /// (by version): only changed values notify their observers.
    public func refresh() {
        let snapshot = session.snapshot
        guard snapshot.version != version else { return }
        version = snapshot.version
        let state = snapshot.state
        if state.configuration != configuration {
            configuration = state.configuration
            activeStates = session.machine.atomicStates(of: state.configuration)
        }
        if state.data != data { data = state.data }
        if state.context != context { context = state.context }
        if snapshot.navigation != navigationStack { navigationStack = snapshot.navigation }
    }

    /// Sends the event named `name` with `payload` on the session (`Session/send(_:payload:)`) and
    /// publishes the committed state before returning.
    ///
    /// - Throws: what the session's `send` throws; then nothing is published.
    @discardableResult
    public func send(_ name: String, payload: JSONValue = .null) async throws -> Step {
        let step = try await session.send(name, payload: payload)
        refresh()
        return step
    }

    /// Moves directly to the state `id` carrying `data` (`Session/enter(_:data:)`) and publishes
    /// the committed state before returning.
    ///
    /// - Throws: what the session's `enter` throws; then nothing is published.
    @discardableResult
    public func enter(_ id: String, data: JSONValue = .null) async throws -> Step {
        let step = try await session.enter(id, data: data)
        refresh()
        return step
    }

    /// Moves directly to a typed state, carrying `Encodable` data if given (see `enter(_:data:)`).
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the data cannot be encoded,
    ///   what the session's `enter` throws.
    @discardableResult
    public func enter<ID: RawRepresentable<String>>(
        _ id: ID, data: some Encodable = JSONValue.null
    ) async throws -> Step {
        try await enter(id.rawValue, data: try Session.jsonValue(of: data, event: StepRecording.enterEvent))
    }
}
