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
    public var history: [String: [String]]

    /// The machine's context, changed only by custom actions.
    public var context: JSONValue

    /// The data carried by active states (`.detail(kanji)`), by state id.
    public var data: [String: JSONValue]

    /// Internal events raised but not yet processed. Empty between macrosteps; kept so that a state
    /// captured at any point restores exactly.
    public var internalQueue: [Event]

    /// Events sent with `<send>` to the external queue, waiting for their due time, in the order
    /// they become due.
    public var pendingSends: [ScheduledEvent]

    /// Whether the machine reached a top-level final state.
    public var isFinished: Bool

    /// Where ``configuration`` sits in a machine's table of prepared configurations, so that a
    /// send with a ``PreparedEvent`` finds it without hashing state ids. Only a hint: it is
    /// checked against ``configuration`` before use, and it takes no part in equality, hashing or
    /// coding (see ``ConfigurationHint``).
    var configurationHint = ConfigurationHint()

    /// The stored members that are encoded: every public member (the hint is not).
    private enum CodingKeys: String, CodingKey {
        case configuration, history, context, data, internalQueue, pendingSends, isFinished
    }

    /// Whether the machine has been started.
    public var isStarted: Bool { !configuration.isEmpty }

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
        self.history = history
        self.context = context
        self.data = data
        self.internalQueue = internalQueue
        self.pendingSends = pendingSends
        self.isFinished = isFinished
    }

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
