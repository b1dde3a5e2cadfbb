import Dispatch
import Foundation
import RewindTestSupport
import Testing

@testable import Rewind

/// What a projection's states are.
enum ProjectionKind: Sendable {
    case screenFlow, navigation
}

/// The projections' states (by the state key's bytes) as one read saw them.
struct ProjectionObservation: Sendable {
    var name: String
    var kind: ProjectionKind
    var checkpoint: UInt64
    var head: UInt64
    var failed: Bool
    var states: [[UInt8]: [UInt8]]
    /// `true`: read with the checkpoint in one transaction, so the states are exactly the
    /// checkpoint's; `false`: through the public ``ProjectionReader``, some prefix of the log.
    var exact: Bool
    var context: String
}

/// One session of the model: what its live snapshots said after each of its versions.
final class ModelSession {
    struct Entry {
        var configuration: [String]?
        var event: String?
        var navigation: ScreenStack?
        var timestamp: Timestamp?
    }

    let id: SessionID
    let machine: String
    /// Appended by another writer, with no machine the engine knows.
    let external: Bool
    var history: [Entry] = []
    var live: Session?

    init(id: SessionID, machine: String, history: [Entry] = [], external: Bool = false) {
        self.id = id
        self.machine = machine
        self.history = history
        self.external = external
    }

    var key: [UInt8] { Array(id.rawValue.utf8) }
}

/// A machine the fuzz runs sessions of.
struct FuzzMachine: Sendable {
    var name: String
    var machine: Machine
    var opening: StepRecording.Request
    var events: [String]
    var enterStates: [String]
}

/// A projection slot: one name, one way of arriving at it.
final class ProjectionSlot {
    let name: String
    let kind: ProjectionKind
    let fault: FaultSwitch?
    /// Listed in the configuration (inline) when the engine opens.
    let fromStart: Bool
    /// Uses the general fold (a wrapper) rather than the built-in projection.
    let general: Bool
    var version: UInt32 = 1
    var registered = false
    var mode: ProjectionMode = .inline
    /// The step at which it is first registered (late slots).
    var registerAt: Int

    init(name: String, kind: ProjectionKind, fault: FaultSwitch?, fromStart: Bool, general: Bool, registerAt: Int) {
        self.name = name
        self.kind = kind
        self.fault = fault
        self.fromStart = fromStart
        self.general = general
        self.registerAt = registerAt
    }

    var projection: any Projection {
        switch (kind, general, fault) {
        case (.screenFlow, false, _): ScreenFlowProjection(name: name)
        case (.screenFlow, true, let fault):
            GeneralScreenFlow(name: name, version: version, fault: fault ?? FaultSwitch())
        case (.navigation, false, _): NavigationProjection(name: name)
        case (.navigation, true, let fault): FaultyNavigation(name: name, fault: fault ?? FaultSwitch())
        }
    }
}
