import Foundation
import RewindMachine
import RewindStore

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
public final class Session: @unchecked Sendable {
    /// The session's id.
    public let id: SessionID
    /// The name the machine is registered under.
    public let machineName: String
    /// The running machine.
    public var machine: Machine { recording.machine }

    let recording: StepRecording
    /// Strong: the engine holds no session, and a session outliving the caller's last reference
    /// to its engine must keep using it.
    private let engine: Engine
    private let gate = AsyncGate()
    /// Guards `current`, `migration`, `queued`, `deferred`, `deliveries` and `hooks`' registration.
    private let lock = NSLock()
    private var current: SessionSnapshot
    /// The `rewind.migrate` record to append before the session's next record, when it resumed
    /// under another definition than its records name (its timestamp is set when appended).
    private var migration: TransitionDraft?
    private var queued: [StepRecording.Request] = []
    private var deferred: [any Error] = []
    /// How many `deliverDueSends()` loops run now (the automatic delivery after a step waits
    /// for none, so delivering never recurses).
    private var deliveries = 0
    /// Registered under `lock`; run only while holding `gate`.
    private let hooks = StepHooks()
    /// Whether a `@MainActor` hook is registered (under `lock`): the hooks then run on the main actor.
    private var hooksOnMainActor = false

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
        self.current = snapshot
    }

    /// A session resumed at `resumed` (with the migration record it still has to append, if any).
    convenience init(
        id: SessionID, machineName: String, recording: StepRecording, engine: Engine, resumed: ResumedState,
        resumePolicy: ResumePolicy
    ) {
        self.init(
            id: id, machineName: machineName, recording: recording, engine: engine, snapshot: resumed.snapshot,
            resumePolicy: resumePolicy)
        migration = resumed.migration
    }

    // MARK: State

    /// The session at its latest committed version.
    public var snapshot: SessionSnapshot { lock.withLock { current } }
    /// The interpreter's state at the latest committed version.
    public var state: MachineState { snapshot.state }
    /// The latest committed version (0 before the first record).
    public var version: UInt64 { snapshot.version }
    /// The active configuration, in document order.
    public var configuration: [String] { snapshot.state.configuration }
    /// The active atomic states.
    public var activeStates: [String] { machine.atomicStates(of: configuration) }
    /// The navigation stack the user sees: one entry per screen with the data it was entered
    /// with (see ``NavigationStack`` and ``navigationPath(as:)``).
    public var navigationStack: NavigationStack { snapshot.navigation }
    /// Errors thrown by requests queued from hooks (they cannot reach the hook's caller).
    public var deferredErrors: [any Error] { lock.withLock { deferred } }

    /// Whether `enter(id)` would be accepted now (GKStateMachine's `canEnterState`).
    public func canEnter(_ id: String) -> Bool {
        machine.canEnter(id, in: state)
    }

    // MARK: Requests

    /// Sends `event`; returns the committed step.
    ///
    /// - Throws: `MachineError.invalidTransition` (nothing written), `StoreError.versionConflict`
    ///   when another writer changed the session (``reload()`` and retry), the store's errors.
    @discardableResult
    public func send(_ event: Event) async throws -> Step {
        try await perform(.send(event))
    }

    /// Sends the event named `name` with `payload`.
    @discardableResult
    public func send(_ name: String, payload: JSONValue = .null) async throws -> Step {
        try await perform(.send(Event(name, payload: payload)))
    }

    /// Sends a typed event with no payload.
    @discardableResult
    public func send<Name: RawRepresentable<String>>(_ name: Name) async throws -> Step {
        try await perform(.send(Event(name.rawValue)))
    }

    /// Sends a typed event with a `Codable` payload.
    ///
    /// - Throws: ``EngineError/payloadEncoding(event:cause:)`` when the payload cannot be encoded.
    @discardableResult
    public func send<Name: RawRepresentable<String>>(_ name: Name, payload: some Encodable) async throws -> Step {
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
    @discardableResult
    public func send(contentsOf events: some Sequence<Event>) async throws -> [Step] {
        let requests = events.map { StepRecording.Request.send($0) }
        if requests.isEmpty { return [] }
        return try await withGateThenQueued { try await runSteps(requests) }
    }

    /// Moves directly to the state `id` carrying `data` (GKStateMachine's `enter(_:)`), recorded
    /// with the event name `enter`.
    ///
    /// - Throws: `MachineError.cannotEnter` when `id` is not a valid next state (nothing written).
    @discardableResult
    public func enter(_ id: String, data: JSONValue = .null) async throws -> Step {
        try await perform(.enter(state: id, data: data))
    }

    /// Moves directly to a typed state carrying `Codable` data.
    @discardableResult
    public func enter<ID: RawRepresentable<String>>(_ id: ID, data: some Encodable) async throws -> Step {
        let value = try Self.jsonValue(of: data, event: StepRecording.enterEvent)
        return try await perform(.enter(state: id.rawValue, data: value))
    }

    /// The app's `Encodable` value as a `JSONValue`, or ``EngineError/payloadEncoding(event:cause:)``.
    static func jsonValue(of value: some Encodable, event: String) throws -> JSONValue {
        do {
            return try JSONValue(encoding: value)
        } catch {
            throw EngineError.payloadEncoding(event: event, cause: ErrorCause(error))
        }
    }

    /// Moves directly to a typed state.
    @discardableResult
    public func enter<ID: RawRepresentable<String>>(_ id: ID) async throws -> Step {
        try await perform(.enter(state: id.rawValue, data: .null))
    }

    /// Queues an event to be sent after the current step (StateViewController's
    /// `setNeedsTransition`). Called from a hook, it runs once the hooks of the current step are
    /// done, before the request that ran them returns; called outside any step, it runs on a new
    /// task (while another task's request holds the session: after that request, succeeded or
    /// failed, on its task). Errors go to ``deferredErrors``.
    public func setNeedsTransition(_ event: String, payload: JSONValue = .null) {
        enqueue(.send(Event(event, payload: payload)))
    }

    /// Queues a direct move to run after the current step (see `setNeedsTransition(_:payload:)`).
    public func setNeedsTransition(to state: String, data: JSONValue = .null) {
        enqueue(.enter(state: state, data: data))
    }

    /// When the session's next delayed send (SCXML `<send delay>`) is due, or `nil` when none is
    /// pending: schedule a timer for it and call ``deliverDueSends()``. A send due past the last
    /// representable timestamp (a delay of thousands of centuries) reports that timestamp.
    public var nextDueSend: Timestamp? {
        lock.withLock {
            current.state.pendingSends.first.map { Timestamp(millisecondsSince1970: $0.dueMilliseconds) }
        }
    }

    /// Delivers every pending send (SCXML `<send>`) that is due now, in due order, each as its own
    /// step recorded under ``StepRecording/dueEvent`` (the machine processes the send's event),
    /// durably, with its hooks; returns the steps.
    ///
    /// Sends without a delay need no call: they are delivered with the step that made them, in
    /// its append (its caller gets its own step). Call this when a delayed one comes due (see
    /// ``nextDueSend``), or after resuming a session whose sends came due while it was closed;
    /// the session's next request also delivers what has come due, after its own step (errors
    /// then go to ``deferredErrors``), as the in-memory `Interpreter` does.
    ///
    /// - Throws: `MachineError.eventLoopLimitExceeded` when deliveries keep making sends due for
    ///   more steps than the machine's microstep limit (those before stay committed), and what a
    ///   step's append throws (that delivery is not written; the send stays pending).
    @discardableResult
    public func deliverDueSends() async throws -> [Step] {
        lock.withLock { deliveries += 1 }
        defer { lock.withLock { deliveries -= 1 } }
        var delivered: [Step] = []
        // Each round delivers what is due in one append; hooks may queue requests that make more due.
        while let steps = try await withGateThenQueued({ try await runDueStep() }) {
            delivered += steps
            if delivered.count >= machine.options.microstepLimit, hasDueSend {
                throw MachineError.eventLoopLimitExceeded(
                    limit: machine.options.microstepLimit, event: steps.last?.event?.name,
                    configuration: configuration)
            }
        }
        return delivered
    }

    /// Whether a pending send is due now.
    private var hasDueSend: Bool {
        lock.withLock { dueSend(in: current.state) != nil }
    }

    /// The pending send of `state` that is due by the engine's clock (the first: they are kept in
    /// due order), if any.
    private func dueSend(in state: MachineState) -> ScheduledEvent? {
        guard let first = state.pendingSends.first,
              first.dueMilliseconds <= engine.configuration.clock().millisecondsSince1970
        else { return nil }
        return first
    }

    /// Delivers the pending sends that are due, holding the gate; `nil` when none is.
    private func runDueStep() async throws -> [Step]? {
        guard let due = lock.withLock({ dueSend(in: current.state) }) else { return nil }
        return try await runStep(.deliverDue(due.event))
    }

    /// Forwards `update(deltaTime:)` to the hooks of the active states (GKState's `update`).
    public func update(deltaTime: Double) async {
        await gate.withGate {
            let state = self.state
            if lock.withLock({ hooksOnMainActor }) {
                await MainActor.run { hooks.update(deltaTime: deltaTime, in: state) }
            } else {
                hooks.update(deltaTime: deltaTime, in: state)
            }
        }
        await drainQueued()
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
            lock.withLock {
                current = resumed.snapshot
                migration = resumed.migration
            }
        }
    }

    // MARK: Hooks

    /// Runs `hook` each time `state` is entered (GKState's `didEnter(from:)`).
    public func onDidEnter(_ state: String, _ hook: @escaping @Sendable (StateChange) -> Void) {
        lock.withLock { hooks.onDidEnter(state, hook) }
    }

    /// Runs `hook` each time `state` is exited (GKState's `willExit(to:)`).
    public func onWillExit(_ state: String, _ hook: @escaping @Sendable (StateChange) -> Void) {
        lock.withLock { hooks.onWillExit(state, hook) }
    }

    /// Runs `hook` on ``update(deltaTime:)`` while `state` is active.
    public func onUpdate(_ state: String, _ hook: @escaping @Sendable (_ deltaTime: Double) -> Void) {
        lock.withLock { hooks.onUpdate(state, hook) }
    }

    /// Runs `hook` before each step's exits (StateViewController's `willTransition(to:)`); the
    /// change's `data` is the next state's data (see `StateChange.data`).
    public func onWillTransition(_ hook: @escaping @Sendable (StateChange) -> Void) {
        lock.withLock { hooks.onWillTransition(hook) }
    }

    /// Runs `hook` after each step's entries (StateViewController's `didTransition(from:)`); the
    /// change's `data` is the next state's data (see `StateChange.data`).
    public func onDidTransition(_ hook: @escaping @Sendable (StateChange) -> Void) {
        lock.withLock { hooks.onDidTransition(hook) }
    }

    /// Runs `hook` for each microstep between its exits and its entries (transition actions).
    public func onTransition(_ hook: @escaping @Sendable (Microstep) -> Void) {
        lock.withLock { hooks.onTransition(hook) }
    }

    /// Registers a hook that must run on the main actor (Session+MainActorHooks.swift): from now
    /// on the session runs its hooks there.
    func registerMainActorHook(_ register: (StepHooks) -> Void) {
        lock.withLock {
            hooksOnMainActor = true
            register(hooks)
        }
    }

    // MARK: Steps

    /// Runs `request` and then whatever its hooks queued.
    func perform(_ request: StepRecording.Request) async throws -> Step {
        try await withGateThenQueued { try await runStep(request) }[0]
    }

    /// Runs `body` holding the gate, then the requests queued meanwhile, also when `body` throws:
    /// a request queued from outside any step while the gate was held is left to the holder (see
    /// `enqueue`), and would otherwise wait for the session's next request. A failed `body` with
    /// nothing queued is followed by nothing (no due send is delivered).
    private func withGateThenQueued<R>(_ body: () async throws -> R) async throws -> R {
        do {
            let result = try await gate.withGate(body)
            await drainQueued()
            return result
        } catch {
            if lock.withLock({ !queued.isEmpty }) { await drainQueued() }
            throw error
        }
    }

    /// Evaluate → append → adopt → hooks, holding the gate: `request`, then the sends due after
    /// it (SCXML `<send>` without a delay) in the same append. Returns the steps, the request's
    /// first.
    private func runStep(_ request: StepRecording.Request) async throws -> [Step] {
        try engine.ensureOpen()
        let (before, migration) = lock.withLock { (current, self.migration) }
        var latest = before
        var steps: [Step] = []
        steps.reserveCapacity(1)
        var transitions: [TransitionDraft] = []
        transitions.reserveCapacity(1)
        var writes: [AppendRequest.AuxiliaryWrite] = []
        if let migration { try prepend(migration, advancing: &latest, transitions: &transitions, snapshots: &writes) }
        try evaluate(request, advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
        try evaluateDueSends(advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
        // No transition: an explicitly ignored event; nothing happened, nothing is recorded (not
        // even a pending migration: it goes with the first record under the new definition).
        if transitions.count == (migration == nil ? 0 : 1) { return steps }
        try await append(transitions, after: before, writes: writes)
        lock.withLock {
            current = latest
            self.migration = nil
        }
        await runHooks(of: steps, from: before.state)
        return steps
    }

    /// Evaluate every request → one append → adopt → every step's hooks, holding the gate (see
    /// `send(contentsOf:)`; `runStep` is the one-request case).
    private func runSteps(_ requests: [StepRecording.Request]) async throws -> [Step] {
        try engine.ensureOpen()
        let (before, migration) = lock.withLock { (current, self.migration) }
        var latest = before
        var steps: [Step] = []
        steps.reserveCapacity(requests.count)
        var transitions: [TransitionDraft] = []
        transitions.reserveCapacity(requests.count)
        var writes: [AppendRequest.AuxiliaryWrite] = []
        if let migration { try prepend(migration, advancing: &latest, transitions: &transitions, snapshots: &writes) }
        // Where each request's own step is among `steps` (the deliveries of due sends go between).
        var requested: [Int] = []
        requested.reserveCapacity(requests.count)
        for request in requests {
            try evaluate(request, advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
            requested.append(steps.count - 1)
            try evaluateDueSends(advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &writes)
        }
        let requestSteps = requested.count == steps.count ? steps : requested.map { steps[$0] }
        if transitions.count == (migration == nil ? 0 : 1) { return requestSteps }
        try await append(transitions, after: before, writes: writes)
        lock.withLock {
            current = latest
            self.migration = nil
        }
        await runHooks(of: steps, from: before.state)
        return requestSteps
    }

    /// Runs the hooks of `steps` in order, each step's previous state the one the step before it
    /// reached (the first's `previous`); steps that moved nothing run none.
    /// With a `@MainActor` hook registered, all of them run on the main actor.
    private func runHooks(of steps: [Step], from previous: MachineState) async {
        // No hook registered: none runs, so none can register another (the usual case).
        if hooks.isEmpty { return }
        if lock.withLock({ hooksOnMainActor }) {
            await MainActor.run { runHooksHere(of: steps, from: previous) }
        } else {
            runHooksHere(of: steps, from: previous)
        }
    }

    /// `runHooks(of:from:)` on the current thread.
    private func runHooksHere(of steps: [Step], from previous: MachineState) {
        var previous = previous
        for step in steps {
            if !step.microsteps.isEmpty { hooks.run(step, of: machine, previous: previous) }
            previous = step.state
        }
    }

    /// Evaluates on `latest` the pending sends that are due now, each as its own step and record
    /// (see ``deliverDueSends()``), after the step that made them: in a bulk send, between the
    /// events, as consecutive `send` calls would.
    private func evaluateDueSends(
        advancing latest: inout SessionSnapshot, steps: inout [Step],
        transitions: inout [TransitionDraft], snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws {
        var delivered = 0
        while let due = dueSend(in: latest.state) {
            if delivered == machine.options.microstepLimit {
                throw MachineError.eventLoopLimitExceeded(
                    limit: machine.options.microstepLimit, event: due.event.name,
                    configuration: latest.state.configuration)
            }
            try evaluate(.deliverDue(due.event), advancing: &latest, steps: &steps, transitions: &transitions, snapshots: &snapshots)
            delivered += 1
        }
    }

    /// Whether steps of payload-free events are read from the machine's table of precomputed
    /// outcomes (``Machine/sendFromTable(_:in:)``) rather than returned by the general `send`:
    /// the same steps, records, snapshots and errors (tests turn it off to compare both paths).
    var stepsFromTable = true

    /// Evaluates `request` on `latest` (purely: nothing is written) and appends its step to
    /// `steps`; when the step changed something (not an explicitly ignored event), also appends
    /// its transition to `transitions`, moves `latest` one version on (the step's state, its
    /// navigation applied) and adds the write of a snapshot due at that version to `snapshots`.
    /// On error `latest` may be half-changed: the caller drops it.
    private func evaluate(
        _ request: StepRecording.Request, advancing latest: inout SessionSnapshot, steps: inout [Step],
        transitions: inout [TransitionDraft], snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws {
        let time = engine.configuration.clock()
        // The table's outcome, when it holds one: the state changed in place, the step's arrays
        // shared with the table, no `Step` built by the machine and taken apart again.
        if stepsFromTable, case .send(let event) = request, !StepRecording.isReserved(event.name),
           let taken = try machine.sendFromTable(event, in: &latest.state)
        {
            if taken.microsteps.isEmpty {
                steps.append(taken.step(of: event, reaching: latest.state))
                return
            }
            transitions.append(try recording.transition(
                request: request, source: taken.source, target: latest.state.configuration,
                microsteps: taken.microsteps, navigation: taken.navigation, at: time))
            try advance(
                &latest, navigation: taken.navigation, microsteps: taken.microsteps, at: time, snapshots: &snapshots)
            // After `advance`: the step shows the state data an uncovered entry restored.
            steps.append(taken.step(of: event, reaching: latest.state))
            return
        }
        var step = try recording.evaluate(request, in: latest.state, at: time)
        if step.microsteps.isEmpty && !request.isAlwaysRecorded {
            steps.append(step)
            return
        }
        let transition = try recording.transition(for: step, request: request, at: time)
        latest.state = step.state
        if try advance(
            &latest, navigation: transition.navigation, microsteps: step.microsteps, at: time, snapshots: &snapshots)
        {
            step.state = latest.state
        }
        steps.append(step)
        transitions.append(transition)
    }

    /// Puts the pending `rewind.migrate` record first among `transitions`, stamped now, and moves
    /// `latest` (already the migrated state) one version on, to its version.
    private func prepend(
        _ migration: TransitionDraft, advancing latest: inout SessionSnapshot, transitions: inout [TransitionDraft],
        snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws {
        var migration = migration
        migration.timestamp = engine.configuration.clock()
        transitions.append(migration)
        // The snapshot's stack is the migrated one already: the record's operations only tell log readers.
        try advance(&latest, navigation: [], microsteps: [], at: migration.timestamp, snapshots: &snapshots)
    }

    /// Moves `snapshot`, whose state is already the step's, one version on: `navigation` applied
    /// (entries with the data `microsteps` entered; an uncovered entry's data restored into the
    /// state: ``NavigationStack/apply(_:of:to:)``), stamped `time`; when a snapshot is due at that
    /// version, its write is added to `snapshots`.
    ///
    /// - Returns: Whether the state's data changed (an uncovered entry's data restored).
    @discardableResult
    private func advance(
        _ snapshot: inout SessionSnapshot, navigation: [NavigationOperation], microsteps: [Microstep],
        at time: Timestamp, snapshots: inout [AppendRequest.AuxiliaryWrite]
    ) throws -> Bool {
        snapshot.version += 1
        if snapshot.definition != recording.definition { snapshot.definition = recording.definition }
        let restored = snapshot.navigation.apply(navigation, of: microsteps, to: &snapshot.state)
        snapshot.timestamp = time
        let interval = engine.configuration.snapshotInterval
        if interval > 0, snapshot.version % interval == 0 {
            snapshots.append(AppendRequest.AuxiliaryWrite(
                database: .snapshots, key: SessionSnapshot.key(session: id, version: snapshot.version),
                value: try snapshot.encoded()))
        }
        return restored
    }

    /// Appends `transitions` (and `writes`) after the session's version in `before`, through the
    /// engine's group commit; returns once they are committed.
    private func append(
        _ transitions: [TransitionDraft], after before: SessionSnapshot, writes: [AppendRequest.AuxiliaryWrite]
    ) async throws {
        let expected: ExpectedVersion = before.version == 0 ? .noStream : .exact(before.version)
        do {
            _ = try await engine.commits.submit(AppendRequest(
                session: id, expectedVersion: expected, transitions: transitions, auxiliaryWrites: writes))
        } catch where engine.isClosed {
            // The engine closed while the append waited: it failed on the closed store.
            throw EngineError.closed
        }
    }

    private func enqueue(_ request: StepRecording.Request) {
        lock.withLock { queued.append(request) }
        if !gate.isHeld {
            Task { await self.drainQueued() }
        }
    }

    /// Runs the queued requests, one step each, recording their errors; then delivers the
    /// pending sends that have come due since (unless a delivery loop runs already), recording its
    /// error.
    ///
    /// Each request is taken from the queue holding the gate: several tasks may drain at once
    /// (each request queued outside any step starts one), and one that took a request before
    /// waiting for the gate could be overtaken by another with a later one.
    private func drainQueued() async {
        while lock.withLock({ !queued.isEmpty }) {
            do {
                _ = try await gate.withGate { () -> [Step] in
                    guard let request = lock.withLock({ queued.isEmpty ? nil : queued.removeFirst() }) else { return [] }
                    return try await runStep(request)
                }
            } catch {
                lock.withLock { deferred.append(error) }
            }
        }
        guard lock.withLock({ deliveries == 0 && dueSend(in: current.state) != nil }) else { return }
        do {
            try await deliverDueSends()
        } catch {
            lock.withLock { deferred.append(error) }
        }
    }
}
