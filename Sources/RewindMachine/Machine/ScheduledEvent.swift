/// An event waiting in the external queue until its due time (SCXML `<send>`).
///
/// Its `Codable` form (and ``jsonValue``) keeps the due time as whole milliseconds under
/// `dueMilliseconds`, as snapshots and session archives have always stored it.
public struct ScheduledEvent: Hashable, Sendable, Codable {
    /// The event to deliver.
    public var event: Event
    /// When it becomes due, on the interpreter's ``MachineClock`` (time since the clock's epoch).
    public var due: Duration
    /// The send id, for `<cancel>`; `nil` when the send was anonymous.
    public var sendID: String?

    /// Creates a scheduled event.
    public init(event: Event, due: Duration, sendID: String? = nil) {
        self.event = event
        self.due = due
        self.sendID = sendID
    }

    /// Creates a scheduled event due at `dueMilliseconds`.
    @available(*, deprecated, renamed: "init(event:due:sendID:)", message: "pass a Duration: due: .milliseconds(n)")
    public init(event: Event, dueMilliseconds: Int64, sendID: String? = nil) {
        self.init(event: event, due: .milliseconds(dueMilliseconds), sendID: sendID)
    }

    /// When it becomes due, in whole milliseconds of the interpreter's clock.
    @available(*, deprecated, renamed: "due", message: "the clock's unit is Duration: use due")
    public var dueMilliseconds: Int64 { due.wholeMilliseconds }

    private enum CodingKeys: String, CodingKey {
        case event, dueMilliseconds, sendID
    }

    /// Decodes `{"event": …, "dueMilliseconds": …, "sendID": …}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        event = try container.decode(Event.self, forKey: .event)
        due = .milliseconds(try container.decode(Int64.self, forKey: .dueMilliseconds))
        sendID = try container.decodeIfPresent(String.self, forKey: .sendID)
    }

    /// Encodes `{"event": …, "dueMilliseconds": …, "sendID": …}` (`sendID` left out when `nil`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(event, forKey: .event)
        try container.encode(due.wholeMilliseconds, forKey: .dueMilliseconds)
        try container.encodeIfPresent(sendID, forKey: .sendID)
    }
}
