/// One transition a ``StatechartDiagram`` draws: a transition of the definition, a history
/// state's default transition, or a GKStateMachine-style direct move (a valid next state).
public struct DiagramTransition: Sendable, Hashable {
    /// What the drawn transition stands for.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A transition taken on an event (its ``DiagramTransition/events`` are not empty).
        case event
        /// An eventless transition, taken as soon as its guard holds.
        case eventless
        /// A direct move allowed by the source's `validNextStates` (recorded as the `enter` event).
        case directMove
        /// A history pseudo-state's default transition, taken when it has no memory.
        case historyDefault
    }

    /// Its position in ``StatechartDiagram/transitions`` and its `data-transition` value in the SVG.
    public var index: Int
    /// The id of the state the transition leaves.
    public var source: String
    /// The event names it is taken on, joined by spaces (its `data-event` value); `nil` for an
    /// eventless transition or a history default.
    public var event: String?
    /// The event descriptors it matches, in the definition's order (`"*"` and token prefixes as in
    /// event matching); `["enter"]` for a direct move.
    public var events: [String]
    /// The ids of the states it targets; empty for a targetless transition (drawn as a loop).
    public var targets: [String]
    /// The text drawn beside its arrow: events, guard and `(internal)` as in the DOT and Mermaid
    /// exports; `enter` for a direct move.
    public var label: String
    /// What it stands for.
    public var kind: Kind

    /// Creates a drawn transition from its parts.
    public init(
        index: Int, source: String, event: String?, events: [String], targets: [String], label: String, kind: Kind
    ) {
        self.index = index
        self.source = source
        self.event = event
        self.events = events
        self.targets = targets
        self.label = label
        self.kind = kind
    }

    /// Whether `name` is matched by one of ``events`` (`"*"`, the name itself, or a token prefix:
    /// `"a.b"` matches `"a.b"` and `"a.b.c"`; a trailing `".*"` is the same prefix).
    public func matches(event name: String) -> Bool {
        events.contains { descriptor in
            var descriptor = Substring(descriptor)
            if descriptor == "*" { return true }
            if descriptor.hasSuffix(".*") { descriptor = descriptor.dropLast(2) }
            if descriptor.hasSuffix(".") { descriptor = descriptor.dropLast() }
            return name == descriptor || name.hasPrefix(descriptor + ".")
        }
    }
}
