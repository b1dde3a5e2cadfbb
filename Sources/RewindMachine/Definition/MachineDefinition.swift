/// The structure of a state machine: every state, transition and declared effect, with no closures.
///
/// A `MachineDefinition` is plain data. It is what the builder produces, what SCXML import produces,
/// what the JSON interchange document encodes, and what the store keeps so that tools can read a
/// session without the app's code. Behaviour that needs code (guards on payloads, custom actions,
/// hooks) is referenced *by name* and bound when the definition is compiled into a ``Machine``.
///
/// States are a tree. The definition's top-level ``states`` are the children of an implicit root
/// (SCXML's `<scxml>` element), in document order. Document order matters: it breaks ties between
/// conflicting transitions and orders entry and exit of parallel regions, as in the W3C algorithm.
public struct MachineDefinition: Hashable, Sendable {
    /// The machine's name, unique within a store (for example `"onboarding"`).
    public var name: String

    /// The initial targets of the root; empty means the first top-level state in document order.
    public var initial: [String]

    /// The top-level states, in document order.
    public var states: [StateDefinition]

    /// Creates a definition from its parts.
    public init(name: String, initial: [String] = [], states: [StateDefinition]) {
        self.name = name
        self.initial = initial
        self.states = states
    }

    /// Every state's id in document order (a state before its children, depth first): the order
    /// in which a flow's screens are written, which funnels follow.
    public var stateIDs: [String] {
        var ids: [String] = []
        func walk(_ states: [StateDefinition]) {
            for state in states {
                ids.append(state.id)
                walk(state.children)
            }
        }
        walk(states)
        return ids
    }
}

/// One state of a ``MachineDefinition``: atomic, compound (it has child states), parallel, final or
/// a history pseudo-state.
public struct StateDefinition: Hashable, Sendable {
    /// What a state is.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A state that is atomic when it has no children and compound when it has some; exactly one
        /// child of a compound state is active while it is.
        case state
        /// A state whose children (regions) are all active together.
        case parallel
        /// A final state: entering it completes its parent (`done.state.<parent>`).
        case final
        /// A history pseudo-state (see ``StateDefinition/history``).
        case history
    }

    /// The state's identity, unique within the machine. It is the name written in the log.
    public var id: String

    /// What kind of state this is.
    public var kind: Kind

    /// For a history pseudo-state: shallow or deep. `nil` for every other kind.
    public var history: HistoryType?

    /// The `initial` attribute: the initial targets of a compound state. Empty means the
    /// ``initialTransition`` if there is one, else the first child in document order.
    public var initial: [String]

    /// SCXML's `<initial>` element: a transition taken on default entry, which may run actions.
    /// For a history pseudo-state this is its default transition (taken when it has no memory).
    public var initialTransition: TransitionDefinition?

    /// The child states, in document order.
    public var children: [StateDefinition]

    /// The transitions leaving this state, in document order.
    public var transitions: [TransitionDefinition]

    /// Executable content run when the state is entered (SCXML `<onentry>`), in order.
    public var onEntry: [ActionDefinition]

    /// Executable content run when the state is exited (SCXML `<onexit>`), in order.
    public var onExit: [ActionDefinition]

    /// What entering this state does to the navigation stack, unless the transition taken says
    /// otherwise. `nil` means the state is not a screen of the navigation stack.
    public var navigation: NavigationDeclaration?

    /// GKStateMachine's model: the states this state may move to directly with `enter(_:)`.
    /// `nil` means `enter(_:)` is not allowed from this state; an empty array likewise.
    public var validNextStates: [String]?

    /// Events this state explicitly ignores: sending one while the state is active (and no
    /// transition handles it) is not an error and changes nothing. Every other unhandled event is
    /// an error (`invalidTransition`). Patterns follow event matching (`"*"`, prefixes).
    public var ignoredEvents: [String]

    /// Creates a state from its parts.
    public init(
        id: String,
        kind: Kind = .state,
        history: HistoryType? = nil,
        initial: [String] = [],
        initialTransition: TransitionDefinition? = nil,
        children: [StateDefinition] = [],
        transitions: [TransitionDefinition] = [],
        onEntry: [ActionDefinition] = [],
        onExit: [ActionDefinition] = [],
        navigation: NavigationDeclaration? = nil,
        validNextStates: [String]? = nil,
        ignoredEvents: [String] = []
    ) {
        self.id = id
        self.kind = kind
        self.history = history
        self.initial = initial
        self.initialTransition = initialTransition
        self.children = children
        self.transitions = transitions
        self.onEntry = onEntry
        self.onExit = onExit
        self.navigation = navigation
        self.validNextStates = validNextStates
        self.ignoredEvents = ignoredEvents
    }
}

/// Shallow history remembers the active children of its parent; deep history remembers the
/// active atomic descendants.
public enum HistoryType: String, Hashable, Sendable, CaseIterable {
    /// Remembers the parent's active direct children.
    case shallow
    /// Remembers the parent's active atomic descendants.
    case deep
}

/// A transition of a ``StateDefinition``.
public struct TransitionDefinition: Hashable, Sendable {
    /// External transitions exit their source; internal ones (whose targets are all descendants of a
    /// compound source) do not. W3C SCXML §3.13.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Exits and re-enters the source when the target is a descendant.
        case external
        /// Does not exit a compound source whose descendants are the targets.
        case `internal`
    }

    /// The event descriptors this transition matches. Empty means eventless (taken as soon as its
    /// guard holds). `"*"` matches any event; `"a.b"` matches `"a.b"` and `"a.b.c"` (token prefix).
    public var events: [String]

    /// The target state ids. Empty means a targetless transition (runs actions, changes no state).
    public var targets: [String]

    /// External (default) or internal.
    public var kind: Kind

    /// An optional guard; the transition is enabled only when it holds.
    public var condition: GuardDefinition?

    /// Executable content run between the exits and the entries of the transition.
    public var actions: [ActionDefinition]

    /// What this transition does to the navigation stack; overrides the target state's
    /// ``StateDefinition/navigation`` when set.
    public var navigation: NavigationDeclaration?

    /// Creates a transition from its parts.
    public init(
        events: [String] = [],
        targets: [String] = [],
        kind: Kind = .external,
        condition: GuardDefinition? = nil,
        actions: [ActionDefinition] = [],
        navigation: NavigationDeclaration? = nil
    ) {
        self.events = events
        self.targets = targets
        self.kind = kind
        self.condition = condition
        self.actions = actions
        self.navigation = navigation
    }
}

/// A guard, as data. Guards that need code are named and bound when the machine is compiled.
public indirect enum GuardDefinition: Hashable, Sendable {
    /// A guard registered under this name with the machine's builder (a Sendable predicate on the
    /// event payload and the machine's context).
    case named(String)
    /// SCXML's `In(stateID)`: true while the state is active.
    case inState(String)
    /// True when the wrapped guard is false.
    case not(GuardDefinition)
    /// True when every wrapped guard is true.
    case all([GuardDefinition])
    /// True when any wrapped guard is true.
    case any([GuardDefinition])
}

/// Executable content, as data (SCXML's `<raise>`, `<send>`, `<cancel>`, `<log>`, `<if>`, plus
/// named custom actions).
public indirect enum ActionDefinition: Hashable, Sendable {
    // `indirect` because `conditional` nests actions; see `CompiledChart.Action` for why it stays.

    /// Raises an internal event, processed before the next external event (SCXML `<raise>`).
    case raise(event: String)
    /// Sends an event to the machine's external queue, after `delay` measured by the
    /// interpreter's clock (SCXML `<send event delay>` without a data model). `id` names a send
    /// that can be cancelled. Delays count in whole milliseconds, the unit of SCXML and of the
    /// JSON document: a finer part is dropped; a negative delay is none.
    case send(event: String, delay: Duration = .zero, id: String? = nil)
    /// Cancels a delayed send by its id (SCXML `<cancel sendid>`).
    case cancel(sendID: String)
    /// Writes a log line (SCXML `<log label expr>`, the expression kept as literal text).
    case log(label: String?, message: String?)
    /// A custom action registered under this name with the machine's builder. It may change the
    /// machine's context and raise events; it must be deterministic (it is re-run on replay).
    case custom(String)
    /// SCXML's `<if>` / `<elseif>` / `<else>`: runs the actions of the first branch whose condition
    /// holds (a branch without a condition, `<else>`, always holds), in document order, against
    /// the configuration at the moment it runs. No branch holding runs nothing.
    case conditional([ConditionalBranch])
    /// A `<send>` the machine cannot deliver: to a `target` it cannot reach or of an event I/O
    /// processor `type` it does not support. Running it sends nothing and places an error event on
    /// the internal queue instead, as the W3C algorithm does (SCXML §6.2.4): `error.execution`
    /// for an unsupported `type` or a target that is not an SCXML session address,
    /// `error.communication` for an SCXML session address (`#_parent`, `#_scxml_…`, `#_…`) that
    /// no session answers to. ``Machine/warnings`` names every such send. The other fields are
    /// kept so the `<send>` exports as it was written.
    case undeliverableSend(event: String, target: String?, type: String?, delay: Duration = .zero, id: String? = nil)
}

extension ActionDefinition {
    /// A ``send(event:delay:id:)`` after `delayMilliseconds`.
    @available(*, deprecated, renamed: "send(event:delay:id:)", message: "pass a Duration: delay: .milliseconds(n)")
    public static func send(event: String, delayMilliseconds: Int, id: String? = nil) -> ActionDefinition {
        .send(event: event, delay: .milliseconds(delayMilliseconds), id: id)
    }

    /// An ``undeliverableSend(event:target:type:delay:id:)`` after `delayMilliseconds`.
    @available(
        *, deprecated, renamed: "undeliverableSend(event:target:type:delay:id:)",
        message: "pass a Duration: delay: .milliseconds(n)"
    )
    public static func undeliverableSend(
        event: String, target: String?, type: String?, delayMilliseconds: Int, id: String? = nil
    ) -> ActionDefinition {
        .undeliverableSend(event: event, target: target, type: type, delay: .milliseconds(delayMilliseconds), id: id)
    }
}

extension ActionDefinition {
    /// The error event an ``undeliverableSend(event:target:type:delay:id:)`` with
    /// this `target` and `type` raises: `error.execution` for an unsupported type or a target
    /// that is not an SCXML session address, `error.communication` otherwise.
    public static func undeliverableSendError(target: String?, type: String?) -> String {
        if let type, !isSCXMLEventProcessor(type) { return "error.execution" }
        if let target, target.hasPrefix("#_") { return "error.communication" }
        return "error.execution"
    }

    /// Whether `type` names the SCXML event I/O processor (its URI or the short name `scxml`).
    static func isSCXMLEventProcessor(_ type: String) -> Bool {
        type == "http://www.w3.org/TR/scxml/#SCXMLEventProcessor" || type == "scxml"
    }
}

/// One branch of a ``ActionDefinition/conditional(_:)`` action: SCXML's `<if cond>`,
/// `<elseif cond>` or `<else>` and the executable content up to the next branch.
public struct ConditionalBranch: Hashable, Sendable {
    /// The branch's condition; `nil` for `<else>` (always holds).
    public var condition: GuardDefinition?
    /// The actions run when this branch is the first whose condition holds.
    public var actions: [ActionDefinition]

    /// Creates a branch.
    public init(condition: GuardDefinition?, actions: [ActionDefinition]) {
        self.condition = condition
        self.actions = actions
    }
}

/// What entering a state (or taking a transition) does to the navigation stack of the session.
///
/// The screen pushed, replaced or set as root is the entered state's id unless `screen` names
/// another. The interpreter reports the resulting ``NavigationOperation`` for every transition, so
/// the log alone can rebuild the stack a user saw.
public enum NavigationDeclaration: Hashable, Sendable {
    /// Pushes the screen on the stack.
    case push(screen: String? = nil)
    /// Replaces the top of the stack with the screen.
    case replace(screen: String? = nil)
    /// Makes the screen the only one on the stack.
    case setRoot(screen: String? = nil)
    /// Pops one screen.
    case pop
    /// Pops back to the root screen.
    case popToRoot
    /// Pops back to the named screen (the topmost occurrence on the stack).
    case popTo(screen: String)
}

extension MachineDefinition {
    /// The ids of `configuration` that name no state of this definition, in their order: what a
    /// record of a session that ran under it can never hold (a damaged or forged record).
    ///
    /// It gathers the definition's state ids on every call: to check many configurations, gather
    /// them once with ``DefinedStates``.
    public func unknownStates(in configuration: [String]) -> [String] {
        DefinedStates(self).unknownStates(in: configuration)
    }
}

/// The state ids of one ``MachineDefinition``, gathered once, to check many configurations
/// against it (an archive's records, a store's log) at a set lookup per state.
public struct DefinedStates: Sendable {
    /// Every state id of the definition.
    public let ids: Set<String>

    /// The state ids of `definition`.
    public init(_ definition: MachineDefinition) {
        ids = Set(definition.stateIDs)
    }

    /// The ids of `configuration` that name no state of the definition, in their order: what a
    /// record of a session that ran under it can never hold (a damaged or forged record).
    public func unknownStates(in configuration: [String]) -> [String] {
        configuration.filter { !ids.contains($0) }
    }
}
