import Rewind
import RewindMachine
import RewindValues

/// What changed between two versions of a session, as `rewind diff --json` prints it and the
/// fleet server's `…/diff` answers it: one shape for the JSON of a ``ReplayDiff``.
public struct ReplayDiffReport: Codable, Sendable, Hashable {
    /// The first version.
    public var from: UInt64
    /// The second version.
    public var to: UInt64
    /// States active at `from` and not at `to`.
    public var exited: [String]
    /// States active at `to` and not at `from`.
    public var entered: [String]
    /// Changes of the states' data.
    public var stateData: [Change]
    /// Changes of the context.
    public var context: [Change]
    /// Changes of the payload.
    public var payload: [Change]
    /// Entries popped off the navigation stack.
    public var popped: [NavigationEntry]
    /// Entries pushed onto it.
    public var pushed: [NavigationEntry]
    /// The stack at `from`, root first.
    public var navigationBefore: [NavigationEntry]
    /// The stack at `to`, root first.
    public var navigationAfter: [NavigationEntry]

    /// One change of a JSON value between the two versions: its path, and the value before and
    /// after (`before` absent when it was added, `after` when it was removed).
    public struct Change: Codable, Sendable, Hashable {
        /// `added`, `removed` or `changed`.
        public var change: String
        /// Where, as text shows it (`ready.title`, `items[2]`).
        public var path: String
        /// The value before.
        public var before: JSONValue?
        /// The value after.
        public var after: JSONValue?

        /// The report of `change`.
        public init(_ change: JSONChange) {
            path = change.path.description
            switch change.kind {
            case .added(let value):
                self.change = "added"
                after = value
            case .removed(let value):
                self.change = "removed"
                before = value
            case .changed(let from, let to):
                self.change = "changed"
                before = from
                after = to
            }
        }

        private enum CodingKeys: String, CodingKey {
            case change, path, before, after
        }

        /// Decodes a change; a `before` or `after` that is JSON `null` is the value `.null`, an
        /// absent one `nil` (``JSONValue``'s rule: the synthesized decoding would read `null` as
        /// `nil`, so a diff from or to `null` would not read back as it was written).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            change = try container.decode(String.self, forKey: .change)
            path = try container.decode(String.self, forKey: .path)
            before = try container.decodeJSONValueIfPresent(forKey: .before)
            after = try container.decodeJSONValueIfPresent(forKey: .after)
        }
    }

    /// The report of `diff`.
    public init(_ diff: ReplayDiff) {
        from = diff.fromVersion
        to = diff.toVersion
        exited = diff.exited
        entered = diff.entered
        stateData = diff.stateData.map(Change.init)
        context = diff.context.map(Change.init)
        payload = diff.payload.map(Change.init)
        popped = diff.navigation.popped
        pushed = diff.navigation.pushed
        navigationBefore = diff.navigation.before
        navigationAfter = diff.navigation.after
    }
}
