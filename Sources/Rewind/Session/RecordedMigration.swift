import RewindMachine
import RewindStore

/// What a `rewind.migrate` record (``StepRecording/migrateEvent``) says: a session moved from one
/// definition of its machine to another, and the state it continued from.
///
/// The record names the new definition (its `definition`); its source is the configuration
/// before the move, its target the one after, its navigation operations turn the stack before
/// into the stack after (when they differ), and its payload is
/// `{"from": …, "to": …, "renamed": {old: new}, "migrations": [names], "replayed": bool,
/// "state": MachineState, "navigation": ScreenStack}`. Replay takes the state after the record
/// from the payload, so it needs neither the app's migrations nor a re-run of earlier records.
public struct RecordedMigration: Sendable, Hashable {
    /// The content version of the definition the session was recorded under before.
    public var from: String
    /// The content version of the definition it continues under (the record's definition).
    public var to: String
    /// Old state id → new state id, as the declared migrations renamed them (empty when none).
    public var renamed: [String: String]
    /// The names of the declared migrations (``DefinitionMigration``) applied, in order.
    public var migrations: [String]
    /// Whether the state was computed by re-running every earlier record through the new
    /// definition (``ResumePolicy/replayWithRegistered``) rather than carried over from the latest
    /// state (``ResumePolicy/upgradeWhenCompatible``).
    public var replayed: Bool
    /// The machine state after the move.
    public var state: MachineState
    /// The navigation stack after the move.
    public var navigation: ScreenStack

    /// Creates the description of a move.
    public init(
        from: String, to: String, renamed: [String: String] = [:], migrations: [String] = [], replayed: Bool = false,
        state: MachineState, navigation: ScreenStack
    ) {
        self.from = from
        self.to = to
        self.renamed = renamed
        self.migrations = migrations
        self.replayed = replayed
        self.state = state
        self.navigation = navigation
    }

    /// The record's payload; its `state` is the state's JSON value (``MachineState/jsonValue``).
    public var payload: JSONValue {
        [
            "from": .string(from), "to": .string(to),
            "renamed": .object(renamed.mapValues { .string($0) }),
            "migrations": .array(migrations.map { .string($0) }),
            "replayed": .bool(replayed),
            "state": state.jsonValue,
            "navigation": navigation.jsonValue,
        ]
    }

    /// The migration a record's payload describes.
    ///
    /// - Throws: `JSONShapeError` naming the member at fault.
    public init(payload: JSONValue) throws(JSONShapeError) {
        let members = try JSONShape.object(payload, at: [])
        func string(_ key: String) throws(JSONShapeError) -> String {
            try JSONShape.string(try JSONShape.member(key, of: members, at: []), at: [key])
        }
        from = try string("from")
        to = try string("to")
        var renamed: [String: String] = [:]
        if let value = members["renamed"] {
            for (old, new) in try JSONShape.object(value, at: ["renamed"]) {
                renamed[old] = try JSONShape.string(new, at: ["renamed", old])
            }
        }
        self.renamed = renamed
        var migrations: [String] = []
        if let value = members["migrations"] { migrations = try JSONShape.strings(value, at: ["migrations"]) }
        self.migrations = migrations
        var replayed = false
        if let value = members["replayed"] { replayed = try JSONShape.bool(value, at: ["replayed"]) }
        self.replayed = replayed
        do {
            state = try MachineState(jsonValue: try JSONShape.member("state", of: members, at: []))
        } catch {
            throw JSONShapeError(path: ["state"] + error.path, expected: error.expected)
        }
        do {
            navigation = try ScreenStack(jsonValue: try JSONShape.member("navigation", of: members, at: []))
        } catch {
            throw JSONShapeError(path: ["navigation"] + error.path, expected: error.expected)
        }
    }

    /// Navigation operations that turn `before` into `after`: none when they are equal, else
    /// `setRoot` of the new root and a `push` of each screen above it (a log reader that folds
    /// operations, like the navigation projection, then sees the stack the session continued
    /// with). An empty `after` cannot be reached by operations and gives none.
    static func operations(from before: ScreenStack, to after: ScreenStack) -> [NavigationOperation] {
        guard before != after, let root = after.screens.first else { return [] }
        return [.setRoot(root)] + after.screens.dropFirst().map { .push($0) }
    }
}
