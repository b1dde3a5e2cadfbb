import Rewind
import RewindMachine
import RewindStore

/// A session at one version as `rewind state --json` (and each step of `rewind replay --json`)
/// prints it and the fleet server's `…/state` answers it: one shape for the JSON of a
/// ``ReplayPoint`` wherever it is shown.
public struct ReplayPointReport: Codable, Sendable, Hashable {
    /// The session.
    public var session: String
    /// The version shown (0: before the first record).
    public var version: UInt64
    /// When the version's record was written (ISO 8601), absent at version 0.
    public var time: String?
    /// The event of the version's record, absent at version 0.
    public var event: String?
    /// The event's payload.
    public var payload: JSONValue
    /// The configuration before the step.
    public var source: [String]
    /// The configuration after the step (the leaf states).
    public var configuration: [String]
    /// Every active state, ancestors included.
    public var activeStates: [String]
    /// The states' data by state id.
    public var data: [String: JSONValue]
    /// The machine's context.
    public var context: JSONValue
    /// What the step did to the navigation stack, as text (`push(detail)`).
    public var navigation: [String]
    /// The stack after the step, root first: `{"screen": …, "data": …}` per entry.
    public var navigationStack: [NavigationEntry]
    /// The session's machine (`state`; absent in `replay`'s steps).
    public var machine: String?
    /// How many versions the session has (`state`; absent in `replay`'s steps).
    public var versions: UInt64?

    /// The report of `point`, with the session's machine and version count when given.
    public init(_ point: ReplayPoint, machine: String? = nil, versions: UInt64? = nil) {
        self.machine = machine
        self.versions = versions
        session = point.session.rawValue
        version = point.version
        time = point.timestamp?.description
        event = point.event
        payload = point.payload
        source = point.source
        configuration = point.configuration
        activeStates = point.activeStates
        data = point.stateData
        context = point.context
        navigation = point.navigationOperations.map(\.description)
        navigationStack = point.navigation.entries
    }
}
