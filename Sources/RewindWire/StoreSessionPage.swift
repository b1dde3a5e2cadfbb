/// A page of the fleet server's `GET /v1/stores/{store}/sessions`: sessions of one device store by
/// id, as `rewind sessions --json` lists them.
public struct StoreSessionPage: Codable, Sendable, Hashable {
    /// The page's sessions, by id.
    public var sessions: [SessionListing]
    /// How many sessions the store has.
    public var total: Int64
    /// The `after` of the next page, or `nil` on the last.
    public var next: String?

    /// A page from its parts.
    public init(sessions: [SessionListing], total: Int64, next: String?) {
        self.sessions = sessions
        self.total = total
        self.next = next
    }
}
