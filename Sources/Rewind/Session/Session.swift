import Foundation
import RewindMachine
import RewindStore
import Synchronization

/// One running, persisted session of a machine: a stream of records in the store.
///
/// Every request (`send(_:payload:)`, `enter(_:data:)`) goes through the same four stages:
/// the machine evaluates the step purely; the step's record is appended (with the session's
/// expected version, in the engine's next group commit); only once the commit has returned does
/// the session adopt the new state; then the hooks run. An invalid event throws and writes
/// nothing; a failed append (version conflict, full disk, …) throws, changes nothing and runs no
/// hook. A session's requests run one at a time in the order they were made; requests made from
/// inside hooks (`setNeedsTransition(_:payload:)`) are queued and run after the current step.
///
/// Register hooks before sending (for the first entry's hooks, in the `configure` closure of
/// `startSession(id:machine:context:isolation:configure:)`). Hooks run on the task that made the
/// request.
public final class Session: Sendable {
    // Concurrency: `guarded` holds everything that changes (the state, the queue, the hooks),
    // `gate` orders the requests and the hooks' runs; the rest is immutable.

    /// The session's id.
    public let id: SessionID
    /// The name the machine is registered under.
    public let machineName: String
    /// The running machine.
    public var machine: Machine { recording.machine }

    let recording: StepRecording
    /// Strong: the engine holds no session, and a session outliving the caller's last reference
    /// to its engine must keep using it.
    let engine: Engine
    let gate = AsyncGate()

    /// What changes, behind the one lock (never held across an `await` or while hooks run).
    struct Guarded {
        var current: SessionSnapshot
        /// The `rewind.migrate` record to append before the session's next record, when it resumed
        /// under another definition than its records name (its timestamp is set when appended).
        var migration: TransitionDraft?
        var queued: [StepRecording.Request] = []
        var deferred: [any Error] = []
        /// How many `deliverDueSends()` loops run now (the automatic delivery after a step waits
        /// for none, so delivering never recurses).
        var deliveries = 0
        /// The registered hooks; a step runs a copy taken here, holding `gate`.
        var hooks = StepHooks()
        /// Whether a `@MainActor` hook is registered: the hooks then run on the main actor.
        var hooksOnMainActor = false

        /// Whether a step's hooks run on the main actor; `nil` when no hook is registered (none
        /// runs, so none can register another: the usual case).
        var hooksRunOnMainActor: Bool? { hooks.isEmpty ? nil : hooksOnMainActor }

        /// Keeps `error` in ``deferredErrors`` (dropping the oldest beyond the bound).
        mutating func recordDeferred(_ error: any Error) {
            deferred.append(error)
            if deferred.count > Session.maximumDeferredErrors {
                deferred.removeFirst(deferred.count - Session.maximumDeferredErrors)
            }
        }
    }

    let guarded: Mutex<Guarded>

    /// How ``reload()`` treats records written under another definition: as the session was
    /// resumed (a session moved to the registered definition reloads the same way until its first
    /// record under it).
    let resumePolicy: ResumePolicy

    init(
        id: SessionID, machineName: String, recording: StepRecording, engine: Engine, snapshot: SessionSnapshot,
        resumePolicy: ResumePolicy = .upgradeWhenCompatible
    ) {
        self.id = id
        self.resumePolicy = resumePolicy
        self.machineName = machineName
        self.recording = recording
        self.engine = engine
        self.guarded = Mutex(Guarded(current: snapshot))
    }

    /// A session resumed at `resumed` (with the migration record it still has to append, if any).
    convenience init(
        id: SessionID, machineName: String, recording: StepRecording, engine: Engine, resumed: ResumedState,
        resumePolicy: ResumePolicy
    ) {
        self.init(
            id: id, machineName: machineName, recording: recording, engine: engine, snapshot: resumed.snapshot,
            resumePolicy: resumePolicy)
        guarded.withLock { $0.migration = resumed.migration }
    }

    // MARK: State

    /// The session at its latest committed version.
    public var snapshot: SessionSnapshot { guarded.withLock { $0.current } }
    /// The interpreter's state at the latest committed version.
    public var state: MachineState { snapshot.state }
    /// The latest committed version (0 before the first record).
    public var version: UInt64 { snapshot.version }
    /// The active configuration, in document order.
    public var configuration: [String] { snapshot.state.configuration }
    /// The active atomic states.
    public var activeStates: [String] { machine.atomicStates(of: configuration) }
    /// The navigation stack the user sees: one entry per screen with the data it was entered
    /// with (see ``ScreenStack`` and ``navigationPath(as:)``).
    public var navigationStack: ScreenStack { snapshot.navigation }
    /// Errors thrown by requests queued from hooks (they cannot reach the hook's caller), oldest
    /// first: the latest ``maximumDeferredErrors`` of them, until ``takeDeferredErrors()`` takes them.
    public var deferredErrors: [any Error] { guarded.withLock { $0.deferred } }

    /// The most errors ``deferredErrors`` keeps; older ones are dropped first.
    public static let maximumDeferredErrors = 100

    /// Returns the errors of queued requests collected so far (see ``deferredErrors``) and
    /// forgets them, as `Interpreter.takeDeferredErrors()` does.
    public func takeDeferredErrors() -> [any Error] {
        guarded.withLock { guarded in
            defer { guarded.deferred.removeAll() }
            return guarded.deferred
        }
    }

    /// Whether `enter(id)` would be accepted now (GKStateMachine's `canEnterState`).
    public func canEnter(_ id: String) -> Bool {
        machine.canEnter(id, in: state)
    }

    // MARK: Requests

    /// Sends `event`; returns the committed step.
    ///
    /// - Throws: `MachineError.invalidTransition` (nothing written), `StoreError.versionConflict`
    ///   when another writer changed the session (``reload()`` and retry), the store's errors.
    ///   Every error a request can throw, with what was written: <doc:WhatASendThrows>.
    @discardableResult
    public func send(_ event: Event) async throws -> Step {
        try await perform(.send(event))
    }

    /// Sends the event named `name` with `payload`.
    @discardableResult
    public func send(_ name: String, payload: JSONValue = .null) async throws -> Step {
        try await perform(.send(Event(name, payload: payload)))
    }

    /// Sends a typed event (`send(Action.next)`), with an `Encodable` payload if given.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be encoded.
    @discardableResult
    public func send<Name: RawRepresentable<String>>(
        _ name: Name, payload: some Encodable = JSONValue.null
    ) async throws -> Step {
        let value = try Self.jsonValue(of: payload, event: name.rawValue)
        return try await perform(.send(Event(name.rawValue, payload: value)))
    }

    /// Sends `events` one after the other and appends all their records in **one** commit (bulk
    /// import); returns their steps, in order.
    ///
    /// Each event is evaluated against the state the previous one reached, exactly as consecutive
    /// `send(_:)` calls would (sends due after an event, SCXML `<send>` without a delay, are
    /// delivered before the next event and recorded between them), and the records (and every
    /// snapshot due among their
    /// versions) are appended together with the session's expected version. All or nothing: when an
    /// event is refused (`MachineError.invalidTransition`, a reserved name) or the append fails,
    /// nothing is written, the session stays where it was and no hook runs. After the commit the
    /// session adopts the last state and runs each step's hooks in order. Explicitly ignored events
    /// record nothing, as with `send`.
    ///
    /// Meant for importing or replaying many events at once (with ``Durability/noSync``, say): one
    /// commit, one wake-up and one append instead of one per event.
    /// - Throws: the first refused event's error, `StoreError.versionConflict`, the store's errors.
    @inlinable @discardableResult
    public func send(contentsOf events: some Sequence<Event>) async throws -> [Step] {
        // Inlinable: the events become an array where their sequence's type is known (free for
        // an array). Walked unspecialized here, every event went through the standard library's
        // generic witnesses: ~700 instructions an event of a bulk send (callgrind,
        // Benchmarks/HISTORY.md 2026-11-30).
        try await send(contentsOfArray: Array(events))
    }

    /// ``send(contentsOf:)`` of an array.
    @usableFromInline
    func send(contentsOfArray events: [Event]) async throws -> [Step] {
        if events.isEmpty { return [] }
        return try await withGateThenQueued { try await runSteps(sending: events) }
    }

    /// Moves directly to the state `id` carrying `data` (GKStateMachine's `enter(_:)`), recorded
    /// with the event name `enter`.
    ///
    /// - Throws: `MachineError.cannotEnter` when `id` is not a valid next state (nothing written).
    @discardableResult
    public func enter(_ id: String, data: JSONValue = .null) async throws -> Step {
        try await perform(.enter(state: id, data: data))
    }

    /// Moves directly to a typed state (`enter(Screen.detail)`), carrying `Encodable` data if given.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the data cannot be encoded,
    ///   `MachineError.cannotEnter` when `id` is not a valid next state (nothing written).
    @discardableResult
    public func enter<ID: RawRepresentable<String>>(
        _ id: ID, data: some Encodable = JSONValue.null
    ) async throws -> Step {
        let value = try Self.jsonValue(of: data, event: StepRecording.enterEvent)
        return try await perform(.enter(state: id.rawValue, data: value))
    }

    /// The app's `Encodable` value as a `JSONValue`, or ``EngineError/payloadEncoding(event:cause:)``.
    static func jsonValue(of value: some Encodable, event: String) throws -> JSONValue {
        if let value = value as? JSONValue { return value }  // the typed overloads' default
        do {
            return try JSONValue(encoding: value)
        } catch {
            throw EngineError.payloadEncoding(event: event, cause: ErrorCause(error))
        }
    }

    /// Reloads the session from the store (after a version conflict: another engine or process
    /// changed it), keeping the hooks. It resumes as `session(_:policy:)` did with the policy this
    /// session was resumed with: a session moved to the registered definition moves again while
    /// its last record still names the old one.
    ///
    /// - Throws: ``EngineError/definitionMismatch(session:machine:recorded:registered:)`` when
    ///   another writer appended under another definition (and this session was resumed with
    ///   ``ResumePolicy/strict``), the errors of the other policies, replay and store errors; the
    ///   session is then unchanged.
    public func reload() async throws {
        try await withGateThenQueued {
            let resumed = try engine.loadSnapshot(of: id, recording: recording, policy: resumePolicy)
            guarded.withLock { guarded in
                guarded.current = resumed.snapshot
                guarded.migration = resumed.migration
            }
        }
    }
}
