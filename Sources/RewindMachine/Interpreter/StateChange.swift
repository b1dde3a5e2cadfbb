/// What a hook is told about the step that calls it.
public struct StateChange: Hashable, Sendable {
    /// The state whose hook runs; `nil` for the machine-wide hooks
    /// (``Interpreter/onWillTransition(_:)``, ``Interpreter/onDidTransition(_:)``).
    public let state: String?
    /// The event of the step (`"enter"` for direct moves); `nil` for the first entry.
    public let event: Event?
    /// The atomic states before the step; `nil` on the first entry (GKState's
    /// `previousState == nil`).
    public let from: [String]?
    /// The atomic states after the step.
    public let to: [String]
    /// The data the hook's state carries after the step (`.detail(kanji)`); `null` when none.
    ///
    /// - `onDidEnter`: the entered state's data.
    /// - `onWillExit`: the data the exited state carried before the step.
    /// - The machine-wide hooks (`onWillTransition`, `onDidTransition`): the next state's data, as
    ///   StateViewController's `willTransition(to: .ready(model))` sees `model` before anything is
    ///   exited. Precisely: the data the innermost next atomic state (``nextState``) carries after
    ///   the step, or, when it carries none, the data of its nearest ancestor that does (a compound
    ///   state entered with data, `enter("settings", data: …)`, whose initial child carries none);
    ///   `null` when none does. With parallel regions the innermost next atomic state is the last
    ///   one in document order; read ``MachineState/data`` of the session's state for the others.
    public let data: JSONValue

    /// Creates a change (the ``Interpreter`` makes them).
    public init(state: String?, event: Event?, from: [String]?, to: [String], data: JSONValue) {
        self.state = state
        self.event = event
        self.from = from
        self.to = to
        self.data = data
    }

    /// The innermost previous atomic state, `nil` on the first entry (GKState's `previousState`).
    public var previousState: String? { from?.last }

    /// The innermost next atomic state (GKState's `nextState` in `willExit(to:)`).
    public var nextState: String? { to.last }

    /// The data decoded as `type`; `nil` when there is none.
    ///
    /// - Throws: `DecodingError` when the data does not have the shape of `type`.
    public func data<T: Decodable>(as type: T.Type = T.self) throws -> T? {
        data.isNull ? nil : try data.decode(type)
    }
}
