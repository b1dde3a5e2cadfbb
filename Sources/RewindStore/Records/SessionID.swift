import Foundation
import RewindValues

/// The id of a session: a non-empty UTF-8 string of at most ``maximumByteCount`` bytes without
/// NUL characters (a NUL separates the id from the version in the session index's keys).
///
/// A new session's id (``init(new:)``; the store checks it again when it creates the session)
/// also has no control characters (C0, DEL, C1): `sessions` and `history` print ids on a
/// terminal, where an ESC would act and a newline break the table. Ids with control characters
/// written before that rule are still read; text output shows them escaped.
///
/// Ids are compared, hashed and ordered by their UTF-8 bytes, as the store keys sessions: two
/// texts Swift's `String` calls equal because they are canonically equivalent ("é" as one scalar,
/// or "e" and a combining accent) are two sessions.
public struct SessionID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The most UTF-8 bytes an id may have (LMDB keys are at most 511 bytes).
    public static let maximumByteCount = 400

    /// The id's text.
    public let rawValue: String

    /// Validates `rawValue`.
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)`` when it is empty, too long or has a NUL.
    public init(_ rawValue: String) throws {
        if let reason = Self.problem(with: rawValue) {
            throw StoreError.invalidSessionID(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    /// Validates `rawValue` as the id of a new session: the rules of every id, and no control
    /// character (C0, DEL, C1).
    /// - Throws: ``StoreError/invalidSessionID(_:reason:)`` naming the first control character and
    ///   its position, or as ``init(_:)``.
    public init(new rawValue: String) throws {
        if let reason = Self.problem(with: rawValue) ?? Self.problemForNewSession(with: rawValue) {
            throw StoreError.invalidSessionID(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    /// An id whose text the caller already checked against the rules (a record's bytes, checked
    /// by ``RecordView``).
    init(checked rawValue: String) {
        self.rawValue = rawValue
    }

    /// Why `rawValue` is not a valid id, or `nil` when it is.
    static func problem(with rawValue: String) -> String? {
        let utf8 = rawValue.utf8
        if utf8.isEmpty { return "it is empty" }
        if utf8.count > maximumByteCount {
            return "it has \(utf8.count) UTF-8 bytes, more than \(maximumByteCount)"
        }
        if utf8.contains(0) { return "it contains a NUL character" }
        return nil
    }

    /// Why `rawValue` cannot name a new session beyond ``problem(with:)``: its first control
    /// character and where it is; `nil` when it has none.
    static func problemForNewSession(with rawValue: String) -> String? {
        guard let (scalar, position) = DisplayText.firstControl(in: rawValue) else { return nil }
        return "it contains the control character \(DisplayText.name(of: scalar)) at position \(position); "
            + "a new session's id may not hold control characters"
    }

    /// The id for a message: control characters escaped, a long id shortened
    /// (``DisplayText/excerpt(_:)``).
    package var excerpt: String { DisplayText.excerpt(rawValue) }

    /// The id's text.
    public var description: String { rawValue }

    /// Whether the two ids have the same UTF-8 bytes (not `String`'s canonical equivalence).
    public static func == (lhs: SessionID, rhs: SessionID) -> Bool {
        UTF8Identity.equal(lhs.rawValue, rhs.rawValue)
    }

    /// Hashes the id's UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        UTF8Identity.hash(rawValue, into: &hasher)
    }

    /// Orders ids by their UTF-8 bytes, as the session index does.
    public static func < (lhs: SessionID, rhs: SessionID) -> Bool {
        UTF8Identity.precedes(lhs.rawValue, rhs.rawValue)
    }

    /// Decodes and validates an id from a single string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        if let reason = Self.problem(with: text) {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "invalid session id '\(DisplayText.excerpt(text))': \(reason)")
        }
        rawValue = text
    }

    /// Encodes the id as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
