/// The outcome of one macrostep (one `start`, `send` or `enter`): the new state and every
/// microstep taken, in order.
///
/// A step is computed purely; nothing has run yet. The engine persists it (one record per step:
/// ``source`` → ``target``, ``event``, ``navigation``), then commits ``state`` and runs the hooks.
public struct Step: Hashable, Sendable {
    /// The external event that started the macrostep; `nil` for the start step.
    public var event: Event?
    /// The full active configuration before the step (document order); empty for the start step.
    public var source: [String]
    /// The full active configuration after the step (document order).
    public var target: [String]
    // `state` is declared before `microsteps` so that the synthesized memberwise initializer,
    // `init(event:source:target:state:microsteps:logs:)`, differs from the public one and both
    // exist (see the extension below).
    /// The machine's state after the step.
    public var state: MachineState
    /// The microsteps taken, in order: the external event's transitions first (or the initial
    /// entry), then those of eventless transitions and raised events.
    public var microsteps: [Microstep]
    /// Lines written by `log` actions, in order.
    public var logs: [String]

    /// The navigation operations of the whole macrostep: every microstep's operations,
    /// concatenated in order (``NavigationOperation/none`` never appears). Applying them in order
    /// to a ``ScreenStack`` gives the stack after the step.
    public var navigation: [NavigationOperation] {
        microsteps.flatMap(\.navigation)
    }

    /// Every state exited during the step, in exit order (a state may appear more than once when
    /// several microsteps exit it).
    public var exited: [String] { microsteps.flatMap(\.exited) }

    /// Every state entered during the step, in entry order.
    public var entered: [String] { microsteps.flatMap(\.entered) }

    /// Whether the step changed nothing (an ignored event, or a targetless transition without
    /// entries or exits).
    public var isEmpty: Bool { microsteps.allSatisfy { $0.exited.isEmpty && $0.entered.isEmpty } }
}

extension Step {
    /// Creates a step from its parts.
    ///
    /// It hands its parts to the synthesized memberwise initializer instead of assigning them one
    /// by one: a step built with the assignments was copied whole once more (each of its
    /// references retained, then released: about 425 instructions a send) wherever a function
    /// returned it, and the memberwise initializer builds it in place (callgrind,
    /// Benchmarks/HISTORY.md, 2026-11-29).
    public init(
        event: Event?, source: [String], target: [String], microsteps: [Microstep],
        state: MachineState, logs: [String] = []
    ) {
        self.init(event: event, source: source, target: target, state: state, microsteps: microsteps, logs: logs)
    }
}

/// One microstep: a set of non-conflicting transitions taken together (W3C SCXML), or the initial
/// entry of the machine.
public struct Microstep: Hashable, Sendable {
    /// The event the transitions were selected on; `nil` for eventless transitions and the start.
    public var event: Event?
    /// The transitions taken, in document order.
    public var transitions: [TransitionReference]
    /// The full active configuration before the microstep.
    public var source: [String]
    /// The full active configuration after the microstep.
    public var target: [String]
    /// The states exited, innermost first (exit order).
    public var exited: [String]
    /// The states entered, outermost first (entry order).
    public var entered: [String]
    /// The navigation operations of the microstep, in entry order (see ``Machine`` docs).
    public var navigation: [NavigationOperation]
    /// The data carried by the entered states that carry some, by state id.
    public var data: [String: JSONValue]

    /// Creates a microstep from its parts.
    public init(
        event: Event?, transitions: [TransitionReference], source: [String], target: [String],
        exited: [String], entered: [String], navigation: [NavigationOperation],
        data: [String: JSONValue]
    ) {
        self.event = event
        self.transitions = transitions
        self.source = source
        self.target = target
        self.exited = exited
        self.entered = entered
        self.navigation = navigation
        self.data = data
    }
}

/// Names one transition of a definition: its source state and its index among that state's
/// transitions. The synthetic transitions of `start` and `enter(_:)` have index `-1`.
public struct TransitionReference: Hashable, Sendable, Codable {
    /// The source state id (`""` for the machine's initial transition).
    public var source: String
    /// The index within the source's ``StateDefinition/transitions``; `-1` when synthetic.
    public var index: Int
    /// The target state ids.
    public var targets: [String]

    /// Creates a reference.
    public init(source: String, index: Int, targets: [String]) {
        self.source = source
        self.index = index
        self.targets = targets
    }
}
