import RewindMachine
import RewindStore

/// Drives a machine through a recorded session, firing its hooks in the recorded order, so an
/// app can re-show the screens of a bug report. Playing writes nothing.
///
/// ```swift
/// let player = try engine.player(for: "bug-1234")
/// player.onDidEnter("checkout") { change in showCheckout(change.data) }
/// try player.play(through: 41)                                        // the screens up to the bug
/// let live = try await player.handOver(as: "bug-1234-debug")          // continue live, as a fork
/// try await live.send("pay")
/// ```
///
/// Each record is re-run with the registered machine when it was written under its definition
/// (else with the stored definition and the given bindings) and checked to reach its recorded
/// target; the hooks see exactly the `Step` a live session would have seen. Hooks are
/// registered like a ``Session``'s and move to the live session on ``handOver(as:policy:)``.
///
/// A player is confined to the task that uses it (not `Sendable`).
public final class ReplayPlayer {
    /// The recorded session played.
    public let session: SessionID
    /// The name of the session's machine.
    public let machineName: String
    /// The session's state after the last record played (version 0 before any).
    public private(set) var snapshot: SessionSnapshot

    /// The version of the last record played (0 before any).
    public var version: UInt64 { snapshot.version }

    /// The engine a hand-over forks into.
    private let engine: Engine
    /// The log played (the engine's store).
    private let log: any TransitionLog
    private var machines: ReplayMachines
    private let hooks = StepHooks()
    /// The hooks again, to register them on the live session at hand-over.
    private var registrations: [(Session) -> Void] = []

    init(engine: Engine, session: SessionID, bindings: Bindings) throws {
        let replay = engine.logReplay(bindings: bindings)
        let info = try replay.log.readLog { try $0.requireSessionInfo(for: session) }
        self.engine = engine
        self.log = replay.log
        self.session = session
        self.machineName = info.machine
        self.machines = replay.machines(for: info.machine)
        self.snapshot = .empty(definition: "")
    }

    // MARK: Hooks

    /// Runs `hook` each time `state` is entered.
    public func onDidEnter(_ state: String, _ hook: @escaping @Sendable (StateChange) -> Void) {
        hooks.onDidEnter(state, hook)
        registrations.append { $0.onDidEnter(state, hook) }
    }

    /// Runs `hook` each time `state` is exited.
    public func onWillExit(_ state: String, _ hook: @escaping @Sendable (StateChange) -> Void) {
        hooks.onWillExit(state, hook)
        registrations.append { $0.onWillExit(state, hook) }
    }

    /// Runs `hook` before each step's exits.
    public func onWillTransition(_ hook: @escaping @Sendable (StateChange) -> Void) {
        hooks.onWillTransition(hook)
        registrations.append { $0.onWillTransition(hook) }
    }

    /// Runs `hook` after each step's entries.
    public func onDidTransition(_ hook: @escaping @Sendable (StateChange) -> Void) {
        hooks.onDidTransition(hook)
        registrations.append { $0.onDidTransition(hook) }
    }

    /// Runs `hook` for each microstep between its exits and its entries.
    public func onTransition(_ hook: @escaping @Sendable (Microstep) -> Void) {
        hooks.onTransition(hook)
        registrations.append { $0.onTransition(hook) }
    }

    // MARK: Playing

    /// Plays the next record, firing its hooks; returns its step, or `nil` at the session's head.
    ///
    /// - Throws: the replay errors of ``ReplayError`` and ``EngineError`` (nothing is fired for a
    ///   record that cannot be re-run).
    @discardableResult
    public func playNext() throws -> Step? {
        let next = version + 1
        guard let record = try log.readLog({ try $0.records(of: session, fromVersion: next, limit: 1).first }),
            record.version == next
        else { return nil }
        return try play(record)
    }

    /// Plays every record up to `version` (the head when `nil`), firing their hooks in order;
    /// returns how many records were played.
    ///
    /// - Throws: ``ReplayError/versionOutOfRange(session:requested:head:)`` past the head, the
    ///   replay errors; the records before a failing one stay played.
    @discardableResult
    public func play(through version: UInt64? = nil) throws -> Int {
        let head = try log.readLog { try $0.sessionInfo(for: session)?.headVersion } ?? 0
        let last = version ?? head
        guard last <= head else {
            throw ReplayError.versionOutOfRange(session: session, requested: last, head: head)
        }
        var played = 0
        while self.version < last {
            // Read a batch, then run the hooks outside the read transaction.
            let from = self.version + 1
            let upper = min(last, from + 255)
            let records = try log.readLog {
                try $0.records(of: session, fromVersion: from, limit: Int(upper - from + 1))
            }
            for record in records {
                _ = try play(record)
                played += 1
            }
            guard self.version == upper else {
                throw EngineError.corruptedEntry(
                    what: "the session index of '\(session.excerpt)'", reason: "version \(self.version + 1) is missing")
            }
        }
        return played
    }

    /// Moves to `version` silently (from the nearest snapshot, no hook fired), to start playing
    /// from there.
    ///
    /// - Throws: ``ReplayError/versionOutOfRange(session:requested:head:)``, the replay errors.
    public func skip(to version: UInt64) throws {
        let session = self.session
        snapshot = try log.readLog { reader in
            let head = try reader.sessionInfo(for: session)?.headVersion ?? 0
            guard version <= head else {
                throw ReplayError.versionOutOfRange(session: session, requested: version, head: head)
            }
            return try machines.rebuild(session, at: version, in: reader).0
        }
    }

    /// Stops playing and continues live: forks the recorded session at the version played into
    /// `newSession` (see `fork(_:at:as:)`), opens it, and moves the player's hooks to
    /// it. Sending to the returned session appends to the fork; the recording is untouched.
    /// Before any record was played there is nothing to fork: `newSession` is then a new, empty
    /// session of the same machine (``Engine/makeSession(id:machine:)``).
    ///
    /// - Throws: the errors of `fork(_:at:as:)` and of `session(_:policy:)` (when the records
    ///   played were written under another definition than the registered one, what `policy`
    ///   throws then: ``EngineError/definitionMismatch(session:machine:recorded:registered:)``
    ///   under ``ResumePolicy/strict``, say).
    public func handOver(as newSession: SessionID, policy: ResumePolicy = .upgradeWhenCompatible) async throws
        -> Session
    {
        let live: Session
        if version == 0 {
            live = try engine.makeSession(id: newSession, machine: machineName)
        } else {
            try await engine.fork(session, at: version, as: newSession)
            live = try engine.session(newSession, policy: policy)
        }
        for register in registrations { register(live) }
        return live
    }

    private func play(_ record: TransitionRecord) throws -> Step {
        guard record.version == version + 1 else {
            throw EngineError.corruptedEntry(
                what: "the session index of '\(session.excerpt)'", reason: "version \(version + 1) is missing")
        }
        let recording = try machines.recording(for: record.definition)
        var previous = snapshot
        if StepRecording.isFirstAfterMigration(record, on: previous) {
            // The hooks see the step from the state the migration left, as the live session's did.
            previous = try log.readLog { try machines.state(before: record, from: previous, in: $0) }
        }
        let (step, after) =
            record.redacted
            ? try log.readLog {
                try recording.replay(record, request: try recording.request(of: record), on: previous, in: $0)
            }
            : try recording.replay(record, on: previous)
        snapshot = after
        // A step that moved nothing (a migration record, a delivered send that changed nothing)
        // runs no hook, as in the live session.
        if !step.microsteps.isEmpty { hooks.run(step, of: recording.machine, previous: previous.state) }
        return step
    }
}

extension Engine {
    /// A player of the recorded session `session`, before its first record (see
    /// ``ReplayPlayer``); `bindings` compile stored definitions that are not registered.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``.
    public func player(for session: SessionID, bindings: Bindings = Bindings()) throws -> ReplayPlayer {
        try ReplayPlayer(engine: self, session: session, bindings: bindings)
    }

    /// A player of the recorded session with the plain string id `session`.
    public func player(for session: String, bindings: Bindings = Bindings()) throws -> ReplayPlayer {
        try player(for: try SessionID(session), bindings: bindings)
    }
}
