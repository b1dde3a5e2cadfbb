/// A transition to append, not yet a record: everything a ``TransitionRecord`` holds except what
/// the store assigns (the global sequence, the session and the session version). A record holds
/// its draft as ``TransitionRecord/transition``: the fields are declared here once.
///
/// It was named `Transition` before; the name left room for SwiftUI's `Transition` in app code
/// that imports both.
public struct TransitionDraft: Sendable, Hashable, Codable {
    /// The wall-clock time of the transition.
    public var timestamp: Timestamp
    /// The machine's name.
    public var machine: String
    /// The machine definition's content version (opaque to the store, e.g. a hex hash).
    public var definition: String
    /// The event that caused the transition.
    public var event: String
    /// The state configuration before (state paths; empty for a session's first entry).
    public var source: [String]
    /// The state configuration after (state paths; several for parallel states).
    public var target: [String]
    /// What the transition does to the navigation stack, in order (a macrostep may do several things).
    public var navigation: [NavigationOperation]
    /// The event's payload, already encoded (see ``PayloadCoder``).
    public var payload: [UInt8]
    /// The target state's data, already encoded (see ``PayloadCoder``).
    public var stateData: [UInt8]
    /// Where the record came from when its session is a fork.
    public var origin: RecordOrigin?

    /// Creates a transition.
    public init(
        timestamp: Timestamp = .now(), machine: String, definition: String, event: String,
        source: [String], target: [String], navigation: [NavigationOperation] = [],
        payload: [UInt8] = [], stateData: [UInt8] = [], origin: RecordOrigin? = nil
    ) {
        self.timestamp = timestamp
        self.machine = machine
        self.definition = definition
        self.event = event
        self.source = source
        self.target = target
        self.navigation = navigation
        self.payload = payload
        self.stateData = stateData
        self.origin = origin
    }

    /// Why the transition cannot be stored, or `nil` when it can.
    var problem: String? {
        if machine.utf8.isEmpty { return "the machine name is empty" }
        if event.utf8.isEmpty { return "the event name is empty" }
        if target.isEmpty { return "the target state configuration is empty" }
        if let origin, origin.version == 0 { return "the origin's version is 0 (versions start at 1)" }
        return nil
    }
}
