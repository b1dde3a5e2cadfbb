import RewindMachine
import RewindStore

/// How the navigation stack differs between two points: the longest common root part is kept,
/// the rest of the older stack was popped and the rest of the newer one pushed. Entries are
/// compared with their data: Detail(日) and Detail(本) are different entries.
public struct NavigationChange: Sendable, Hashable {
    /// The entries before, root first.
    public var before: [NavigationEntry]
    /// The entries after, root first.
    public var after: [NavigationEntry]
    /// The entries of `before` above the common part, top first (the order they leave in).
    public var popped: [NavigationEntry]
    /// The entries of `after` above the common part, bottom first (the order they arrive in).
    public var pushed: [NavigationEntry]

    /// The change from `before` to `after`.
    public init(before: ScreenStack, after: ScreenStack) {
        self.before = before.entries
        self.after = after.entries
        var common = 0
        while common < before.entries.count, common < after.entries.count,
            before.entries[common] == after.entries[common]
        {
            common += 1
        }
        popped = Array(before.entries[common...].reversed())
        pushed = Array(after.entries[common...])
    }

    /// Whether the stacks are equal.
    public var isEmpty: Bool { popped.isEmpty && pushed.isEmpty }
}

/// What changed between two points of a session (or of two sessions): the states left and
/// entered, structural JSON differences of state data, context and event payload, and the
/// navigation stack.
public struct ReplayDiff: Sendable, Hashable {
    /// The older point's version.
    public var fromVersion: UInt64
    /// The newer point's version.
    public var toVersion: UInt64
    /// States active at the first point and not at the second, in document order.
    public var exited: [String]
    /// States active at the second point and not at the first, in document order.
    public var entered: [String]
    /// Changes of the state data (paths start with the state id: `ready.title`).
    public var stateData: [JSONChange]
    /// Changes of the machine's context.
    public var context: [JSONChange]
    /// Changes between the two points' event payloads.
    public var payload: [JSONChange]
    /// The navigation stack's change.
    public var navigation: NavigationChange

    /// The differences from `old` to `new`. Configurations are compared as sets: a state left
    /// and re-entered between the two points is in neither list.
    public init(from old: ReplayPoint, to new: ReplayPoint) {
        fromVersion = old.version
        toVersion = new.version
        let before = Set(old.configuration)
        let after = Set(new.configuration)
        exited = old.configuration.filter { !after.contains($0) }
        entered = new.configuration.filter { !before.contains($0) }
        stateData = JSONValue.object(old.stateData).differences(to: .object(new.stateData))
        context = old.context.differences(to: new.context)
        payload = old.payload.differences(to: new.payload)
        navigation = NavigationChange(before: old.navigation, after: new.navigation)
    }

    /// Whether the two points show the same thing (payloads aside).
    public var isEmpty: Bool {
        exited.isEmpty && entered.isEmpty && stateData.isEmpty && context.isEmpty && navigation.isEmpty
    }
}

extension ReplayPoint {
    /// The differences from this point to `other`.
    public func diff(to other: ReplayPoint) -> ReplayDiff {
        ReplayDiff(from: self, to: other)
    }
}

extension LogReplay {
    /// The differences between versions `from` and `to` of `session` (see ``ReplayDiff``).
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, the errors of seeking a ``ReplayCursor``.
    public func diff(_ session: SessionID, from: UInt64, to: UInt64) throws -> ReplayDiff {
        var cursor = try cursor(for: session)
        let old = try cursor.seek(to: from)
        let new = try cursor.seek(to: to)
        return ReplayDiff(from: old, to: new)
    }
}

extension Engine {
    /// The differences between versions `from` and `to` of `session` (see ``ReplayDiff`` and
    /// ``LogReplay/diff(_:from:to:)``).
    ///
    /// - Throws: the errors of seeking a ``ReplayCursor``.
    public func diff(
        _ session: SessionID, from: UInt64, to: UInt64, bindings: Bindings = Bindings()
    ) throws -> ReplayDiff {
        try logReplay(bindings: bindings).diff(session, from: from, to: to)
    }
}
