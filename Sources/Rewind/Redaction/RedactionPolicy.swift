/// What becomes of a redacted value in what is written (the log, snapshots and everything made
/// from them: uploads, archives, exports, pages).
public enum RedactionAction: String, Sendable, Hashable, CaseIterable {
    /// The value is removed: its key from its object (an element from its array).
    case dropped
    /// The value is replaced by the marker `"‹redacted›"` (``RedactionRule/placeholder``).
    case marker
    /// The value is replaced by a keyed hash of it, `"‹hash:` + 32 lowercase hex digits + `›"`:
    /// the first 16 bytes of the HMAC-SHA-256, under the store's secret, of the value's canonical
    /// JSON (sorted keys, no spaces). Equal values give equal hashes within a store (funnels and
    /// diffs still group them); the secret never leaves the store, so a hash cannot be checked
    /// against guesses elsewhere.
    case keyedHash
}

/// One path whose values are never written, and what is written instead.
public struct RedactedField: Sendable, Hashable {
    /// The path, in the language of ``RedactionRule`` (`payload.email`, `data.*.email`,
    /// `context.user.id`, `payload.items.*.price`).
    public var path: String
    /// What is written instead.
    public var action: RedactionAction

    /// A field at `path` redacted by `action`.
    public init(_ path: String, _ action: RedactionAction) {
        self.path = path
        self.action = action
    }

    /// The values at `path` are removed.
    public static func dropped(_ path: String) -> RedactedField { RedactedField(path, .dropped) }
    /// The values at `path` are replaced by the marker `"‹redacted›"`.
    public static func marker(_ path: String) -> RedactedField { RedactedField(path, .marker) }
    /// The values at `path` are replaced by their keyed hash (``RedactionAction/keyedHash``).
    public static func keyedHash(_ path: String) -> RedactedField { RedactedField(path, .keyedHash) }
}

/// Values an engine never writes, per machine: the paths of event payloads, state data and
/// context whose values are dropped, replaced by a marker or by a keyed hash before the append.
///
/// ```swift
/// var configuration = EngineConfiguration()
/// configuration.redaction = [
///     "signup": [.dropped("payload.email"), .dropped("data.*.email"), .keyedHash("context.userID")],
/// ]
/// ```
///
/// The live ``Session`` keeps the real values (its hooks, ``Session/state``); its records and
/// snapshots hold the redacted ones, and so does everything made from them. Paths are parsed
/// when the engine opens: one that does not parse is a ``RedactionPolicyError`` naming the
/// machine and the path. See the "Using Rewind in an app" article for what resume, replay and
/// verification do with redacted records.
public struct RedactionPolicy: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The redacted fields, by the name a machine is registered under.
    public var machines: [String: [RedactedField]]

    /// A policy redacting `machines`' fields.
    public init(_ machines: [String: [RedactedField]] = [:]) {
        self.machines = machines
    }

    /// A policy from a dictionary literal of machine names and their fields.
    public init(dictionaryLiteral elements: (String, [RedactedField])...) {
        self.init(Dictionary(elements, uniquingKeysWith: +))
    }

    /// Whether nothing is redacted.
    public var isEmpty: Bool { machines.values.allSatisfy(\.isEmpty) }

    /// Whether a field of any machine is replaced by a keyed hash (the store's secret is needed).
    var usesKeyedHashes: Bool { machines.values.contains { $0.contains { $0.action == .keyedHash } } }
}

/// A redaction policy path that cannot be used: which machine, which path, and why.
public struct RedactionPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine whose fields name the path.
    public var machine: String
    /// The path as given.
    public var path: String
    /// What is wrong with it.
    public var reason: String

    /// Creates the error.
    public init(machine: String, path: String, reason: String) {
        self.machine = machine
        self.path = path
        self.reason = reason
    }

    /// `redaction policy of machine 'signup': path 'paylod.email': it must start with payload, data or context`.
    public var description: String { "redaction policy of machine '\(machine)': path '\(path)': \(reason)" }
}
