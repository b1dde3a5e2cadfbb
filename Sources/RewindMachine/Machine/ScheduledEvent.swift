/// An event waiting in the external queue until its due time (SCXML `<send>`).
public struct ScheduledEvent: Hashable, Sendable, Codable {
    /// The event to deliver.
    public var event: Event
    /// When it becomes due, in milliseconds of the interpreter's ``MachineClock``.
    public var dueMilliseconds: Int64
    /// The send id, for `<cancel>`; `nil` when the send was anonymous.
    public var sendID: String?

    /// Creates a scheduled event.
    public init(event: Event, dueMilliseconds: Int64, sendID: String? = nil) {
        self.event = event
        self.dueMilliseconds = dueMilliseconds
        self.sendID = sendID
    }
}
