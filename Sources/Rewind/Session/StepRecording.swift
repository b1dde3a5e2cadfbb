import RewindMachine
import RewindStore

/// How steps become records and records become steps again: the one place that knows the
/// mapping, used when appending, resuming and replaying.
///
/// One record is written per macrostep (one `send`, `enter` or start): its `source` and `target`
/// are the full active configurations before and after, `navigation` the macrostep's navigation
/// operations in order, `payload` the event's payload and `stateData` the data carried by the
/// states the step entered (a JSON object by state id), both through the store's coder. Four event
/// names are reserved: ``startEvent`` (the first entry; its payload is the initial context),
/// ``enterEvent`` (a direct move; its payload is `{"state": id, "data": data}`), ``dueEvent``
/// (the delivery of a delayed send, SCXML `<send>`; its payload is
/// `{"event": name, "payload": payload}`) and ``migrateEvent`` (the session's move to another
/// definition of its machine; its payload is a ``RecordedMigration``).
package struct StepRecording: Sendable {
    // The reserved names are computed literals, not stored `let`s: a stored static is a lazily
    // initialized global, read through `swift_once` on every `isReserved` check of every sent
    // event (callgrind, Benchmarks/HISTORY.md 2026-12-01); a literal's length is a constant.

    /// The event name of the first record of a session started normally.
    public static var startEvent: String { "rewind.start" }
    /// The event name of a direct move (GKStateMachine's `enter(_:)`).
    public static var enterEvent: String { Machine.enterEventName }
    /// The event name of the delivery of a delayed send (SCXML `<send>`, with or without a delay):
    /// the machine takes the next pending send from its state and processes its event.
    public static var dueEvent: String { "rewind.due" }
    /// The event name of a session's move to another definition of its machine (an upgrade or a
    /// migration when it resumed, see ``ResumePolicy``): the record names the new definition and
    /// its payload is a ``RecordedMigration``, the state the session continued from.
    public static var migrateEvent: String { "rewind.migrate" }

    /// The machine the steps belong to.
    public let machine: Machine
    /// The machine's registered name.
    public let machineName: String
    /// The content version of the machine's definition.
    public let definition: String
    /// The coder of payloads and state data.
    public let coder: any PayloadCoder
    /// The machine's redaction (``EngineConfiguration/redaction``), applied to every record and
    /// snapshot made here; `nil` (no work) when the policy names no field of the machine.
    package var redactor: Redactor?

    /// Creates the mapping for `machine`.
    public init(machine: Machine, machineName: String, definition: String, coder: any PayloadCoder) {
        self.machine = machine
        self.machineName = machineName
        self.definition = definition
        self.coder = coder
    }

    /// What was asked of the machine.
    public enum Request: Sendable, Hashable {
        /// Start in the initial configuration with this context.
        case start(context: JSONValue)
        /// Send an event.
        case send(Event)
        /// Move directly to a state with this data.
        case enter(state: String, data: JSONValue)
        /// Deliver the session's next pending send, whose event is this one, now due.
        case deliverDue(Event)
        /// Continue under another definition from the state the migration describes.
        case migrate(RecordedMigration)

        /// The event name recorded for the request.
        public var eventName: String {
            switch self {
            case .start: return StepRecording.startEvent
            case .send(let event): return event.name
            case .enter: return StepRecording.enterEvent
            case .deliverDue: return StepRecording.dueEvent
            case .migrate: return StepRecording.migrateEvent
            }
        }

        /// The payload recorded for the request.
        public var payload: JSONValue {
            switch self {
            case .start(let context): return context
            case .send(let event): return event.payload
            case .enter(let state, let data): return ["state": .string(state), "data": data]
            case .deliverDue(let event): return ["event": .string(event.name), "payload": event.payload]
            // A state that has no exact JSON value was refused when its record was written.
            case .migrate(let migration): return migration.payload
            }
        }

        /// Whether the request is recorded even when its step changes no configuration: a
        /// delivered send always leaves the pending sends changed, a migration the definition.
        var isAlwaysRecorded: Bool {
            switch self {
            case .deliverDue, .migrate: return true
            case .start, .send, .enter: return false
            }
        }
    }

    /// Whether `name` is one of the event names the engine records itself (``startEvent``,
    /// ``enterEvent``, ``dueEvent``, ``migrateEvent``), which apps may not send.
    static func isReserved(_ name: String) -> Bool {
        // Lengths first: each `==` is a call into the runtime, even for short names (four of them
        // were 88 instructions of every bulk record; callgrind, Benchmarks/HISTORY.md 2026-11-30).
        let count = name.utf8.count
        return (count == enterEvent.utf8.count && name == enterEvent)
            || (count == startEvent.utf8.count && name == startEvent)
            || (count == dueEvent.utf8.count && name == dueEvent)
            || (count == migrateEvent.utf8.count && name == migrateEvent)
    }

    /// Evaluates `request` against `state` purely.
    ///
    /// - Throws: ``EngineError/reservedEventName(_:)`` for an event sent under a reserved name,
    ///   the machine's errors.
    public func evaluate(_ request: Request, in state: MachineState, at time: Timestamp) throws -> Step {
        var state = state
        return try evaluate(request, in: &state, at: time)
    }

    /// Evaluates `request` against `state` in place: `state` becomes the step's state (unchanged
    /// when the call throws). The session's one evaluation entry point: an event goes to the
    /// machine's in-place `send`, which reads the step from its table of precomputed outcomes
    /// when it holds one (no copy of the state, the step's arrays shared with the table).
    ///
    /// - Throws: ``EngineError/reservedEventName(_:)`` for an event sent under a reserved name,
    ///   the machine's errors.
    func evaluate(_ request: Request, in state: inout MachineState, at time: Timestamp) throws -> Step {
        let now = time.machineTime
        let step: Step
        switch request {
        case .send(let event):
            if Self.isReserved(event.name) { throw EngineError.reservedEventName(event.name) }
            return try machine.send(event, in: &state, now: now)
        case .start(let context):
            step = try machine.start(context: context, now: now)
        case .enter(let id, let data):
            step = try machine.enter(id, data: data, in: state, now: now)
        case .deliverDue(let event):
            guard state.pendingSends.first?.event.name == event.name,
                let due = try machine.sendNextDue(in: state, now: now)
            else { throw EngineError.delayedSendNotDue(event: event.name, atMilliseconds: time.millisecondsSince1970) }
            step = due
        case .migrate(let migration):
            // No machine step: the session continues from the migration's state.
            step = Step(
                event: nil, source: state.configuration, target: migration.state.configuration, microsteps: [],
                state: migration.state)
        }
        state = step.state
        return step
    }

    /// The transition to append for `step`, made by `request` at `time`; flagged
    /// ``TransitionDraft/redacted`` when `markingRedacted` (the state before or after it differs
    /// from what is recorded) or when the redaction policy changed its own values.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the coder fails.
    public func transition(
        for step: Step, request: Request, at time: Timestamp, markingRedacted: Bool = false
    ) throws -> TransitionDraft {
        try transition(
            request: request, source: step.source, target: step.target, microsteps: step.microsteps,
            navigation: Self.navigation(of: step), at: time, markingRedacted: markingRedacted)
    }

    /// The transition to append for a step of `request` at `time` given by its parts (see
    /// ``transition(for:request:at:markingRedacted:)``; `navigation` is the step's ``Step/navigation``).
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the coder fails.
    func transition(
        request: Request, source: [String], target: [String], microsteps: [Microstep],
        navigation: [NavigationOperation], at time: Timestamp, markingRedacted: Bool = false
    ) throws -> TransitionDraft {
        var entered = Self.enteredData(of: microsteps)
        var redacted = markingRedacted
        let payloadBytes: [UInt8]
        let dataBytes: [UInt8]
        do {
            if let redactor {
                payloadBytes = try encodedPayload(of: redactor.redact(request, changed: &redacted))
                entered = redactor.redact(data: entered, changed: &redacted)
            } else {
                // Without a redaction policy the request is read where it is: no copy of it per
                // record (callgrind: a copy and its release were about 250 instructions of each
                // bulk record).
                payloadBytes = try encodedPayload(of: request)
            }
            dataBytes = entered.isEmpty ? [] : try coder.encode(entered)
        } catch {
            throw EngineError.payloadEncoding(event: request.eventName, cause: ErrorCause(error))
        }
        return TransitionDraft(
            timestamp: time, machine: machineName, definition: definition, event: request.eventName,
            source: source, target: target, navigation: navigation, payload: payloadBytes, stateData: dataBytes,
            redacted: redacted)
    }

    /// The bytes of `request`'s recorded payload (``Request/payload``) through the coder; none for
    /// `null`. A sent event's payload is encoded where the event holds it: taken out through
    /// ``Request/payload`` first, it was copied, and the copy destroyed, on every record (four
    /// calls, ~125 instructions a bulk record; callgrind, Benchmarks/HISTORY.md 2026-12-02).
    private func encodedPayload(of request: Request) throws -> [UInt8] {
        if case .send(let event) = request {
            return event.payload.isNull ? [] : try coder.encode(event.payload)
        }
        let payload = request.payload
        return payload.isNull ? [] : try coder.encode(payload)
    }

    /// The data the states `microsteps` entered carry, by state id (the record's state data).
    static func enteredData(of microsteps: [Microstep]) -> [String: JSONValue] {
        // `init()`, not the literal `[:]`: the literal goes through `init(dictionaryLiteral:)`,
        // ~22 instructions of every record even when nothing was entered with data.
        var entered = [String: JSONValue]()
        for microstep in microsteps where !microstep.data.isEmpty {
            for (id, value) in microstep.data { entered[id] = value }
        }
        return entered
    }

    /// `step.navigation`, without building an array when one microstep holds it all (the usual
    /// case: its array is shared, not copied).
    private static func navigation(of step: Step) -> [NavigationOperation] {
        step.microsteps.count == 1 ? step.microsteps[0].navigation : step.navigation
    }

    /// The request that produced `record`.
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:cause:)`` when its payload cannot be decoded.
    public func request(of record: TransitionRecord) throws -> Request {
        try Self.request(of: record, coder: coder)
    }

    /// The request that produced `record`, its payload decoded by `coder` (no machine needed:
    /// readers of a log that only show or rewrite its requests).
    ///
    /// - Throws: ``EngineError/corruptedEntry(what:reason:cause:)`` when its payload cannot be decoded.
    static func request(of record: TransitionRecord, coder: any PayloadCoder) throws -> Request {
        let payload: JSONValue
        do {
            payload = record.payload.isEmpty ? .null : try coder.decode(JSONValue.self, from: record.payload)
        } catch {
            throw EngineError.corruptedEntry(
                what: "the payload of '\(record.session)' version \(record.version)", reason: String(describing: error),
                cause: ErrorCause(error))
        }
        switch record.event {
        case Self.startEvent where record.version == 1:
            return .start(context: payload)
        case Self.enterEvent:
            guard let state = payload["state"]?.stringValue else {
                throw EngineError.corruptedEntry(
                    what: "the enter record of '\(record.session)' version \(record.version)",
                    reason: "its payload names no state")
            }
            return .enter(state: state, data: payload["data"] ?? .null)
        case Self.dueEvent:
            guard let name = payload["event"]?.stringValue else {
                throw EngineError.corruptedEntry(
                    what: "the delayed-send record of '\(record.session)' version \(record.version)",
                    reason: "its payload names no event")
            }
            return .deliverDue(Event(name, payload: payload["payload"] ?? .null))
        case Self.migrateEvent:
            do {
                return .migrate(try RecordedMigration(payload: payload))
            } catch {
                throw EngineError.corruptedEntry(
                    what: "the migration record of '\(record.session)' version \(record.version)",
                    reason: String(describing: error), cause: ErrorCause(error))
            }
        default:
            return .send(Event(record.event, payload: payload))
        }
    }

    /// Re-runs `record` on `snapshot` and returns the snapshot after it, checking that the machine
    /// reaches the recorded target.
    ///
    /// - Throws: ``EngineError/replayFailed(session:version:event:cause:)`` when the machine
    ///   rejects the event, ``EngineError/replayDivergence(session:version:event:recorded:computed:)``
    ///   when it reaches another configuration.
    public func replay(_ record: TransitionRecord, on snapshot: SessionSnapshot) throws -> (Step, SessionSnapshot) {
        try replay(record, request: try request(of: record), on: snapshot)
    }

    /// Re-runs `record`, whose request `request` was already decoded with ``request(of:)``, on
    /// `snapshot` (see ``replay(_:on:)``): for callers that also need the request's payload.
    public func replay(
        _ record: TransitionRecord, request: Request, on snapshot: SessionSnapshot
    ) throws -> (Step, SessionSnapshot) {
        var next = snapshot
        let step = try replay(record, request: request, advancing: &next)
        return (step, next)
    }

    /// Re-runs `record` (its request `request`) on `snapshot`, the session's state at the version
    /// before it, and moves `snapshot` to the state after it, in place: the machine runs on the
    /// snapshot's state and its stack takes the record's navigation where they are, neither
    /// copied (a rebuild of many records re-ran each on a copy of the state, the stack copied on
    /// its first change; callgrind, Benchmarks/HISTORY.md 2026-12-02). Returns the step; checked
    /// as ``replay(_:on:)`` is. On error `snapshot` may be half-changed: the caller drops it.
    func replay(_ record: TransitionRecord, request: Request, advancing snapshot: inout SessionSnapshot) throws -> Step
    {
        if case .migrate(let migration) = request {
            let (step, next) = try replay(record, migration: migration)
            snapshot = next
            return step
        }
        let step = try evaluate(request, in: &snapshot.state, replaying: record)
        guard step.target == record.target else {
            if record.redacted {
                throw EngineError.redactedRecordNotReproduced(
                    session: record.session, version: record.version, event: record.event, recorded: record.target,
                    computed: step.target)
            }
            throw EngineError.replayDivergence(
                session: record.session, version: record.version, event: record.event,
                recorded: record.target, computed: step.target)
        }
        // As the live session did (`Session.advance`): entries with the data the step entered,
        // an uncovered entry's data restored into the state, which the step then shows.
        let restored = snapshot.navigation.apply(record.navigation, of: step.microsteps, to: &snapshot.state)
        snapshot.version = record.version
        if snapshot.definition != record.definition { snapshot.definition = record.definition }
        snapshot.timestamp = record.timestamp
        // The step is changed in a copy, only when it shows restored data: a `var` step, changed
        // on this rare path, was copied whole on its way out and destroyed on every record (~425
        // instructions a record of a rebuild; callgrind, Benchmarks/HISTORY.md 2026-12-02).
        guard restored else { return step }
        var shown = step
        shown.state = snapshot.state
        return shown
    }

    /// ``evaluate(_:in:at:)`` of `record`'s request, its error that of a replay of `record`.
    private func evaluate(
        _ request: Request, in state: inout MachineState, replaying record: TransitionRecord
    ) throws -> Step {
        do {
            return try evaluate(request, in: &state, at: record.timestamp)
        } catch {
            if record.redacted {
                throw EngineError.redactedRecordNotReproduced(
                    session: record.session, version: record.version, event: record.event, recorded: record.target,
                    computed: nil)
            }
            throw EngineError.replayFailed(
                session: record.session, version: record.version, event: record.event,
                cause: ErrorCause(error))
        }
    }

    /// The step and state of the migration record `record`, whose payload is `migration`: the
    /// state it recorded, checked against the record's target and definition.
    private func replay(_ record: TransitionRecord, migration: RecordedMigration) throws -> (Step, SessionSnapshot) {
        guard migration.to == record.definition else {
            throw EngineError.corruptedEntry(
                what: "the migration record of '\(record.session)' version \(record.version)",
                reason: "it names definition \(record.definition.prefix(12)) but migrates to \(migration.to.prefix(12))"
            )
        }
        guard migration.state.configuration == record.target else {
            throw EngineError.replayDivergence(
                session: record.session, version: record.version, event: record.event,
                recorded: record.target, computed: migration.state.configuration)
        }
        let step = Step(
            event: nil, source: record.source, target: record.target, microsteps: [], state: migration.state)
        let next = SessionSnapshot(
            version: record.version, definition: record.definition, state: migration.state,
            navigation: migration.navigation, timestamp: record.timestamp)
        return (step, next)
    }
}
