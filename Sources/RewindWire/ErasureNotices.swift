import Foundation

/// The body of the fleet server's `POST /v1/stores/{store}/erasures`: the erasure notices a
/// device sends, `{"notices": [{"number", "kind", "erasedAt", "ranges": [[first, last], …]}]}`.
public struct ErasureNoticesBody: Codable, Sendable, Hashable {
    /// What the device erased.
    public enum Kind: String, Codable, Sendable {
        /// Whole sessions: the server erases every session it holds records of at these sequences
        /// from every store of the app, and tombstones it.
        case session
        /// Records of sessions that are kept (history trimmed before a base version): the server
        /// removes the records only.
        case records
        /// Sessions the device's retention policy dropped for its own storage: the server keeps
        /// every record it holds of them (the fleet's data has the app's retention, not the
        /// phone's) and adds only the sequences it has not received to the store's erased
        /// ranges, so the upload resumes past them.
        case retention
    }

    /// One notice as sent.
    public struct Notice: Codable, Sendable, Hashable {
        /// The notice's number: 1, 2, … per store.
        public var number: Int64
        /// What was erased.
        public var kind: Kind
        /// When the device erased it (ISO 8601).
        public var erasedAt: String
        /// The sequences erased, as `[first, last]` pairs.
        public var ranges: [[Int64]]

        /// A notice from its parts.
        public init(number: Int64, kind: Kind, erasedAt: String, ranges: [[Int64]]) {
            self.number = number
            self.kind = kind
            self.erasedAt = erasedAt
            self.ranges = ranges
        }
    }

    /// The notices, in number order.
    public var notices: [Notice]

    /// A body of `notices`.
    public init(notices: [Notice]) { self.notices = notices }
}

/// The fleet server's answer to `POST /v1/stores/{store}/erasures`.
public struct ErasureNoticesAnswer: Codable, Sendable, Hashable {
    /// What the server did with one notice.
    public struct Outcome: Codable, Sendable, Hashable {
        /// The notice's number.
        public var number: Int64
        /// Its kind.
        public var kind: ErasureNoticesBody.Kind
        /// The sessions erased (`session`), or that lost records (`records`), with their stores.
        public var sessions: [ErasedSession]
        /// How many records were removed in all.
        public var records: Int64

        /// An outcome from its parts.
        public init(number: Int64, kind: ErasureNoticesBody.Kind, sessions: [ErasedSession], records: Int64) {
            self.number = number
            self.kind = kind
            self.sessions = sessions
            self.records = records
        }
    }

    /// The highest notice number the server has applied for the store.
    public var through: Int64
    /// What the notices applied now removed (none for notices applied before).
    public var erased: [Outcome]

    /// An answer from its parts.
    public init(through: Int64, erased: [Outcome]) {
        self.through = through
        self.erased = erased
    }
}

/// What an erasure removed of one session: each store it was in, with the records it lost there.
public struct ErasedSession: Sendable, Codable, Hashable {
    /// The session's records in one device store.
    public struct StoreRecords: Sendable, Codable, Hashable {
        /// The device store.
        public var storeID: UUID
        /// How many of the session's records were removed from it.
        public var records: Int64

        /// A store's part from its parts.
        public init(storeID: UUID, records: Int64) {
            self.storeID = storeID
            self.records = records
        }
    }

    /// The session's id.
    public var session: String
    /// The stores it was removed from, by store id (empty: the server held none of it).
    public var stores: [StoreRecords]

    /// An erased session from its parts.
    public init(session: String, stores: [StoreRecords]) {
        self.session = session
        self.stores = stores
    }
}
