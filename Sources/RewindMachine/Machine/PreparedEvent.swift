/// An event resolved once against a machine's table of precomputed outcomes, like a prepared
/// statement: ``Machine/send(_:in:now:)-(PreparedEvent,_,_)`` then evaluates it by looking the
/// active configuration up instead of running the SCXML algorithm.
///
/// Make one with ``Machine/prepare(_:)`` (or ``Machine/prepare(_:payload:)``) and reuse it for
/// every send of that event. A prepared event works with the machine that prepared it and its
/// copies; given to another machine, it is sent through the general algorithm.
public struct PreparedEvent: Hashable, Sendable {
    /// The event.
    public let event: Event
    let table: PreparedTable
    /// The event's column in ``table``; `-1` when the general algorithm always runs for it (the
    /// event has a payload, or a name that only some descriptors match by prefix).
    let column: Int32

    /// Whether sends of this event may use the precomputed table: `false` when the event carries
    /// a payload (it becomes the entered states' data and guards may read it) or when its name
    /// has no column of its own (for example `"a.b"` when transitions name `"a"`); such an event
    /// always takes the general algorithm.
    public var isPrecomputed: Bool { column >= 0 }

    init(event: Event, table: PreparedTable, column: Int32) {
        self.event = event
        self.table = table
        self.column = column
    }

    /// Prepared events are equal when they name the same event for the same machine.
    public static func == (lhs: PreparedEvent, rhs: PreparedEvent) -> Bool {
        lhs.event == rhs.event && lhs.table === rhs.table
    }

    /// Hashes the event and the machine's table.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(event)
        hasher.combine(ObjectIdentifier(table))
    }
}
