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
    // `redacted` is declared before `origin` so that the synthesized memberwise initializer
    // (`…, stateData:redacted:origin:`) differs from the public one and both exist (see the
    // extension below).
    /// Whether the engine's redaction policy changed what the session held before this record was
    /// written: values of its payload or state data were dropped, marked or hashed, or the state
    /// before or after it held values its snapshot would not (see `RedactionPolicy`). A replay of it
    /// may not see what the live session saw; the record's flags byte says so (bit 1).
    public var redacted: Bool
    /// Where the record came from when its session is a fork.
    public var origin: RecordOrigin?

    private enum CodingKeys: String, CodingKey {
        case timestamp, machine, definition, event, source, target, navigation, payload, stateData, origin, redacted
    }

    /// Encodes a draft; `redacted` only when set, so unredacted drafts encode as before.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(machine, forKey: .machine)
        try container.encode(definition, forKey: .definition)
        try container.encode(event, forKey: .event)
        try container.encode(source, forKey: .source)
        try container.encode(target, forKey: .target)
        try container.encode(navigation, forKey: .navigation)
        try container.encode(payload, forKey: .payload)
        try container.encode(stateData, forKey: .stateData)
        try container.encodeIfPresent(origin, forKey: .origin)
        if redacted { try container.encode(true, forKey: .redacted) }
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

extension TransitionDraft {
    /// Creates a transition.
    ///
    /// It hands its parts to the synthesized memberwise initializer instead of assigning them one
    /// by one: a draft built with the assignments was copied whole once more (each of its strings
    /// and arrays retained, then released: about 480 instructions a record) wherever a function
    /// returned it, and the memberwise initializer builds it in place (callgrind,
    /// Benchmarks/HISTORY.md, 2026-11-29).
    public init(
        timestamp: Timestamp = .now(), machine: String, definition: String, event: String,
        source: [String], target: [String], navigation: [NavigationOperation] = [],
        payload: [UInt8] = [], stateData: [UInt8] = [], origin: RecordOrigin? = nil, redacted: Bool = false
    ) {
        self.init(
            timestamp: timestamp, machine: machine, definition: definition, event: event, source: source,
            target: target, navigation: navigation, payload: payload, stateData: stateData, redacted: redacted,
            origin: origin)
    }

    /// Decodes a draft; `redacted` is `false` when absent (as in every form written before it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = try container.decode(Timestamp.self, forKey: .timestamp)
        machine = try container.decode(String.self, forKey: .machine)
        definition = try container.decode(String.self, forKey: .definition)
        event = try container.decode(String.self, forKey: .event)
        source = try container.decode([String].self, forKey: .source)
        target = try container.decode([String].self, forKey: .target)
        navigation = try container.decode([NavigationOperation].self, forKey: .navigation)
        payload = try container.decode([UInt8].self, forKey: .payload)
        stateData = try container.decode([UInt8].self, forKey: .stateData)
        origin = try container.decodeIfPresent(RecordOrigin.self, forKey: .origin)
        redacted = try container.decodeIfPresent(Bool.self, forKey: .redacted) ?? false
    }
}
