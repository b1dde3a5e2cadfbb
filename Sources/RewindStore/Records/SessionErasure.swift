/// Why a session was erased.
public enum ErasureReason: UInt8, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The app (or `rewind erase`) asked for it: an account deletion, say.
    case requested = 1
    /// The store's retention policy removed it.
    case retention = 2

    /// `requested` or `retention`.
    public var description: String {
        switch self {
        case .requested: "requested"
        case .retention: "retention"
        }
    }
}

/// What a store remembers of an erased session: that it was erased, when and why.
///
/// The session's id is not kept: the store keeps the HMAC-SHA-256 of the id under its own secret
/// (its *tombstone*), enough to recognise the id when someone asks for it again and to refuse it,
/// not enough to recover or guess it (see `docs/architecture/storage.md`, "Erasure").
public struct SessionErasure: Sendable, Hashable, Codable {
    /// When the session was erased.
    public var erasedAt: Timestamp
    /// Why.
    public var reason: ErasureReason

    /// Creates an erasure.
    public init(erasedAt: Timestamp, reason: ErasureReason) {
        self.erasedAt = erasedAt
        self.reason = reason
    }
}

/// One erasure, as the fleet server must hear of it: which global sequences of this store were
/// removed, and whether they were whole sessions. Holds no session id, payload or state: only
/// sequence numbers. Kept in the store until the uploader has delivered it.
public struct ErasureNotice: Sendable, Hashable {
    /// What the removed sequences were.
    public enum Kind: UInt8, Sendable, Hashable {
        /// Every record of one or more sessions: the server erases those sessions everywhere.
        case sessions = 1
        /// Records removed from sessions that remain (history trimmed before a base version).
        case records = 2
        /// Whole sessions the store's retention policy dropped to save the device's storage: the
        /// fleet's copy is not the device's storage, so the server keeps what it holds of them
        /// and only learns that the sequences it has not received will never come.
        case retention = 3
    }

    /// The notice's number in this store: 1, 2, … in the order of the erasures.
    public var number: UInt64
    /// What was removed.
    public var kind: Kind
    /// When.
    public var erasedAt: Timestamp
    /// The removed global sequences, ascending, as maximal ranges.
    public var ranges: [ClosedRange<UInt64>]

    /// Creates a notice.
    public init(number: UInt64, kind: Kind, erasedAt: Timestamp, ranges: [ClosedRange<UInt64>]) {
        self.number = number
        self.kind = kind
        self.erasedAt = erasedAt
        self.ranges = ranges
    }

    /// The number of sequences the notice names.
    public var sequenceCount: UInt64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound + 1) } }
}

extension Array where Element == UInt64 {
    /// These sequences (ascending, distinct) as maximal ranges of consecutive numbers.
    package var consecutiveRanges: [ClosedRange<UInt64>] {
        var ranges: [ClosedRange<UInt64>] = []
        for sequence in self {
            if let last = ranges.last, last.upperBound &+ 1 == sequence {
                ranges[ranges.count - 1] = last.lowerBound...sequence
            } else {
                ranges.append(sequence...sequence)
            }
        }
        return ranges
    }
}
