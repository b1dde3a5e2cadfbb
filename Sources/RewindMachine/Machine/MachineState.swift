import Foundation

/// The whole state of a running machine, as a value: what a restored machine needs to behave
/// exactly like the original for every later event.
///
/// It holds the active configuration, the history memory, the context, the data carried by active
/// states, the internal queue and the pending (possibly delayed) sends. It is `Codable` with a
/// stable encoding (encode with `JSONEncoder.OutputFormatting.sortedKeys`, as ``encoded()`` does)
/// and round-trips exactly. States are named by id, so the encoding is readable and survives
/// recompiling the same definition.
public struct MachineState: Hashable, Sendable, Codable {
    /// Every active state (compound, parallel and atomic), in document order. Empty before start.
    public var configuration: [String]

    /// History memory: for each history pseudo-state that has recorded something, the states it
    /// restores (active children for shallow history, active atomic descendants for deep history),
    /// in document order.
    public var history: [String: [String]] {
        _read { yield extras.history }
        set { uniqueExtras().history = newValue }
        _modify { yield &uniqueExtras().history }
    }

    /// The machine's context, changed only by custom actions.
    public var context: JSONValue {
        _read { yield extras.context }
        set { uniqueExtras().context = newValue }
        _modify { yield &uniqueExtras().context }
    }

    /// The data carried by active states (`.detail(kanji)`), by state id.
    public var data: [String: JSONValue] {
        _read { yield extras.data }
        set { uniqueExtras().data = newValue }
        _modify { yield &uniqueExtras().data }
    }

    /// Internal events raised but not yet processed. Empty between macrosteps; kept so that a state
    /// captured at any point restores exactly.
    public var internalQueue: [Event] {
        _read { yield extras.internalQueue }
        set { uniqueExtras().internalQueue = newValue }
        _modify { yield &uniqueExtras().internalQueue }
    }

    /// Events sent with `<send>` to the external queue, waiting for their due time, in the order
    /// they become due.
    public var pendingSends: [ScheduledEvent] {
        _read { yield extras.pendingSends }
        set { uniqueExtras().pendingSends = newValue }
        _modify { yield &uniqueExtras().pendingSends }
    }

    /// Whether the machine reached a top-level final state.
    public var isFinished: Bool

    /// Where ``configuration`` sits in a machine's table of prepared configurations, so that a
    /// send with a ``PreparedEvent`` finds it without hashing state ids. Only a hint: it is
    /// checked against ``configuration`` before use, and it takes no part in equality, hashing or
    /// coding (see ``ConfigurationHint``).
    var configurationHint = ConfigurationHint()

    /// Everything but the configuration, the finished flag and the hint, behind one reference
    /// (copied on write): most steps change only the configuration, so a copy of a state — a
    /// `Step` holds one, `send` returns one — retains two references instead of six.
    private var extras: Extras

    /// The stored members that are encoded: every public member (the hint is not).
    private enum CodingKeys: String, CodingKey {
        case configuration, history, context, data, internalQueue, pendingSends, isFinished
    }

    /// Creates a state from its parts (usually a machine makes it: see ``Machine/start(context:now:)``).
    public init(
        configuration: [String] = [],
        history: [String: [String]] = [:],
        context: JSONValue = .null,
        data: [String: JSONValue] = [:],
        internalQueue: [Event] = [],
        pendingSends: [ScheduledEvent] = [],
        isFinished: Bool = false
    ) {
        self.configuration = configuration
        self.isFinished = isFinished
        if history.isEmpty, context.isNull, data.isEmpty, internalQueue.isEmpty, pendingSends.isEmpty {
            extras = Extras.none
        } else {
            extras = Extras(
                history: history, context: context, data: data, internalQueue: internalQueue,
                pendingSends: pendingSends)
        }
    }

    /// Decodes a state encoded by ``encode(to:)``: every member is required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            configuration: try container.decode([String].self, forKey: .configuration),
            history: try container.decode([String: [String]].self, forKey: .history),
            context: try container.decode(JSONValue.self, forKey: .context),
            data: try container.decode([String: JSONValue].self, forKey: .data),
            internalQueue: try container.decode([Event].self, forKey: .internalQueue),
            pendingSends: try container.decode([ScheduledEvent].self, forKey: .pendingSends),
            isFinished: try container.decode(Bool.self, forKey: .isFinished))
    }

    /// Encodes every public member under its name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(configuration, forKey: .configuration)
        try container.encode(history, forKey: .history)
        try container.encode(context, forKey: .context)
        try container.encode(data, forKey: .data)
        try container.encode(internalQueue, forKey: .internalQueue)
        try container.encode(pendingSends, forKey: .pendingSends)
        try container.encode(isFinished, forKey: .isFinished)
    }

    /// Whether two states are equal in every public member.
    public static func == (lhs: MachineState, rhs: MachineState) -> Bool {
        lhs.configuration == rhs.configuration && lhs.isFinished == rhs.isFinished
            && (lhs.extras === rhs.extras || lhs.extras == rhs.extras)
    }

    /// Hashes every public member.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(configuration)
        hasher.combine(isFinished)
        hasher.combine(extras)
    }

    /// The extras, copied first when another state shares them.
    private mutating func uniqueExtras() -> Extras {
        if !isKnownUniquelyReferenced(&extras) { extras = extras.copy() }
        return extras
    }

    /// Whether the machine has been started.
    public var isStarted: Bool { !configuration.isEmpty }

    /// Whether the state `id` is active.
    public func isActive(_ id: String) -> Bool {
        configuration.contains(id)
    }

    /// Whether the state named by a typed identifier is active.
    public func isActive<ID: RawRepresentable<String>>(_ id: ID) -> Bool {
        isActive(id.rawValue)
    }

    /// The data carried by the active state `id`, decoded as `type`; `nil` when it carries none.
    ///
    /// - Throws: `DecodingError` when the data does not have the shape of `type`.
    public func data<T: Decodable>(of id: String, as type: T.Type = T.self) throws -> T? {
        guard let value = data[id], !value.isNull else { return nil }
        return try value.decode(type)
    }

    /// The state's JSON bytes with sorted keys: equal states give equal bytes.
    public func encoded() throws -> Data {
        // The same bytes as `JSONEncoder` with sorted keys, without its cost.
        Data(try jsonValue.jsonBytes())
    }
}

extension MachineState {
    /// A state's members other than its configuration, shared by copies of the state until one
    /// of them changes a member (``MachineState/uniqueExtras()`` copies it first).
    ///
    /// `@unchecked Sendable`: an instance is written only through a state that holds the one
    /// reference to it (copy on write, as `Array`'s storage), so no two threads ever see it change.
    private final class Extras: Hashable, @unchecked Sendable {
        /// The extras of a state with none (the most common case): shared, never written.
        static let none = Extras(history: [:], context: .null, data: [:], internalQueue: [], pendingSends: [])

        // Unchecked: the state writes a member only through its one reference (copy on write), so
        // a dynamic exclusivity check per access (the default for a class's members, a third of a
        // prepared send's instructions) has nothing to find.
        @exclusivity(unchecked) var history: [String: [String]]
        @exclusivity(unchecked) var context: JSONValue
        @exclusivity(unchecked) var data: [String: JSONValue]
        @exclusivity(unchecked) var internalQueue: [Event]
        @exclusivity(unchecked) var pendingSends: [ScheduledEvent]

        init(
            history: [String: [String]], context: JSONValue, data: [String: JSONValue], internalQueue: [Event],
            pendingSends: [ScheduledEvent]
        ) {
            self.history = history
            self.context = context
            self.data = data
            self.internalQueue = internalQueue
            self.pendingSends = pendingSends
        }

        func copy() -> Extras {
            Extras(
                history: history, context: context, data: data, internalQueue: internalQueue,
                pendingSends: pendingSends)
        }

        static func == (lhs: Extras, rhs: Extras) -> Bool {
            lhs.history == rhs.history && lhs.context == rhs.context && lhs.data == rhs.data
                && lhs.internalQueue == rhs.internalQueue && lhs.pendingSends == rhs.pendingSends
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(history)
            hasher.combine(context)
            hasher.combine(data)
            hasher.combine(internalQueue)
            hasher.combine(pendingSends)
        }
    }
}
