/// The outcome of playing a ``RecordedSession`` on a machine (``RecordedSession/play(on:)``):
/// how far the machine reproduced the recording, and the first version it did not.
public struct SessionPlayback: Sendable, Hashable, CustomStringConvertible {
    /// The session played.
    public var session: String
    /// The versions the machine reproduced (configuration, state data and navigation stack), in order.
    public var reproducedVersions: [UInt64]
    /// Redacted versions the machine did not reproduce from the redacted values: "redacted:
    /// cannot be re-checked", not a failure. Playback went on from the state the session recorded
    /// after such a version, or stopped there when it recorded none.
    public var uncheckedRedactedVersions: [UInt64]
    /// Whether playback stopped at the last of ``uncheckedRedactedVersions`` (no recorded state to
    /// go on from), leaving the versions after it unchecked.
    public var stoppedAtRedaction: Bool
    /// The first version the machine did not reproduce, or `nil`.
    public var mismatch: PlaybackMismatch?

    /// Creates an outcome from its parts.
    public init(
        session: String, reproducedVersions: [UInt64], uncheckedRedactedVersions: [UInt64] = [],
        stoppedAtRedaction: Bool = false, mismatch: PlaybackMismatch?
    ) {
        self.session = session
        self.reproducedVersions = reproducedVersions
        self.uncheckedRedactedVersions = uncheckedRedactedVersions
        self.stoppedAtRedaction = stoppedAtRedaction
        self.mismatch = mismatch
    }

    /// A one-line summary: the mismatch, or what was reproduced (and what could not be re-checked).
    public var description: String {
        if let mismatch { return mismatch.description }
        var text =
            "session '\(DisplayText.excerpt(session))': \(reproducedVersions.count) "
            + "version\(reproducedVersions.count == 1 ? "" : "s") reproduced"
        if !uncheckedRedactedVersions.isEmpty {
            let versions = uncheckedRedactedVersions.map(String.init).joined(separator: ", ")
            text +=
                "; version\(uncheckedRedactedVersions.count == 1 ? "" : "s") \(versions): redacted: cannot be re-checked"
            if stoppedAtRedaction { text += " (no recorded state follows, so the later versions were not played)" }
        }
        return text
    }
}

/// Where a machine departs from a ``RecordedSession``: the session, the version, the event and
/// each difference at that version.
public struct PlaybackMismatch: Sendable, Hashable, CustomStringConvertible {
    /// One thing the machine did differently at the version.
    public enum Difference: Sendable, Hashable, CustomStringConvertible {
        /// The machine rejected the event (its error, as text).
        case rejected(String)
        /// Another active configuration after the step.
        case configuration(recorded: [String], computed: [String])
        /// Other data entered into states (JSON objects by state id, canonical text).
        case stateData(recorded: String, computed: String)
        /// Another navigation stack after the step (JSON arrays of entries, canonical text).
        case navigation(recorded: String, computed: String)

        /// E.g. `configuration: recorded [detail] but the machine reached [all]`.
        public var description: String {
            switch self {
            case .rejected(let error): "the machine rejects the event: \(error)"
            case .configuration(let recorded, let computed):
                "configuration: recorded \(recorded) but the machine reached \(computed)"
            case .stateData(let recorded, let computed):
                "state data: recorded \(recorded) but the machine entered \(computed)"
            case .navigation(let recorded, let computed):
                "navigation stack: recorded \(recorded) but the machine has \(computed)"
            }
        }
    }

    /// The session's id.
    public var session: String
    /// The version not reproduced.
    public var version: UInt64
    /// Its event.
    public var event: String
    /// What the machine did differently (at least one).
    public var differences: [Difference]

    /// Creates a mismatch.
    public init(session: String, version: UInt64, event: String, differences: [Difference]) {
        self.session = session
        self.version = version
        self.event = event
        self.differences = differences
    }

    /// `session 'user-42' version 3 (event 'select'): configuration: recorded [detail] but …`.
    public var description: String {
        "session '\(DisplayText.excerpt(session))' version \(version) (event '\(DisplayText.excerpt(event))'): "
            + differences.map(\.description).joined(separator: "; ")
    }
}
