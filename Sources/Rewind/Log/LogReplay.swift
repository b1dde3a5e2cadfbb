import Foundation
import RewindMachine
import RewindStore

/// Replay over any transition log: a session's history, its state at a version, the differences
/// between two versions, verification against a machine and its archive, read only through
/// ``TransitionLog`` and ``TransitionLogReader``. The one implementation behind the engine's
/// ``Engine/history(of:filter:limit:)``, ``Engine/replayCursor(for:bindings:)``,
/// ``Engine/diff(_:from:to:bindings:)``, ``Engine/verify(_:against:)`` and
/// ``Engine/exportSession(_:)``, and what a fleet server runs over the records devices upload,
/// without an ``Engine`` or an LMDB store:
///
/// ```swift
/// let replay = LogReplay(log: serverLog, registered: [checkout], bindings: appBindings)
/// let point = try replay.point(of: "user-42", at: 120)
/// print(point.activeStates, point.navigation.screens)
/// let report = try replay.verify("user-42", against: nextCheckout)
/// ```
///
/// Each record is re-run with the machine of `registered` whose definition's content version it
/// names, else with the definition stored beside the log under that content version
/// (``TransitionLogReader/storedDefinition(name:version:)``), compiled with `bindings` (the named
/// guards and actions it uses, which only the app's code has). Each re-run record is checked to
/// reach its recorded target.
public struct LogReplay: Sendable {
    /// The log read.
    public let log: any TransitionLog
    /// The bindings stored definitions are compiled with.
    public let bindings: Bindings
    /// The coder of the records' payloads and state data.
    public let coder: any PayloadCoder
    /// The registered machines by the content version of their definition.
    let registered: [String: Machine]

    /// A replay of `log`. `registered` re-run the records written under their definitions (in
    /// place of the stored definitions); `coder` decodes payloads and state data as the log's
    /// writer encoded them.
    public init(
        log: any TransitionLog, registered: [Machine] = [], bindings: Bindings = Bindings(),
        coder: any PayloadCoder = JSONPayloadCoder()
    ) {
        self.init(
            log: log,
            registeredByVersion: Dictionary(
                registered.map { ($0.definition.contentVersion, $0) }, uniquingKeysWith: { first, _ in first }),
            bindings: bindings, coder: coder)
    }

    /// A replay of `log` with machines already keyed by content version (the engine's registry,
    /// which computed them at registration).
    init(
        log: any TransitionLog, registeredByVersion registered: [String: Machine], bindings: Bindings,
        coder: any PayloadCoder
    ) {
        self.log = log
        self.registered = registered
        self.bindings = bindings
        self.coder = coder
    }

    /// The machines that re-run the records of a session of machine `machineName`.
    func machines(for machineName: String) -> ReplayMachines {
        ReplayMachines(log: log, registered: registered, machineName: machineName, bindings: bindings, coder: coder)
    }

    /// A cursor over the recorded session `session`, standing at version 0, or at its base
    /// version when its history was trimmed (``SessionInfo/baseVersion``).
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, the log's errors.
    public func cursor(for session: SessionID) throws -> ReplayCursor {
        let info = try log.readLog { try $0.requireSessionInfo(for: session) }
        var cursor = ReplayCursor(log: log, session: session, machines: machines(for: info.machine))
        if let base = info.baseVersion { try cursor.seek(to: base) }
        return cursor
    }

    /// The session `session` at version `version` (0: before its first record): its state, the
    /// record of that version and its navigation stack.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``,
    ///   ``ReplayError/versionOutOfRange(session:requested:head:)`` past the head, the replay
    ///   errors of ``ReplayError`` and ``EngineError`` when the records cannot be re-run.
    public func point(of session: SessionID, at version: UInt64) throws -> ReplayPoint {
        var cursor = try cursor(for: session)
        return try cursor.seek(to: version)
    }

    /// The whole state of session `session` at version `version` — configuration, context,
    /// state data, queues and navigation stack — rebuilt as resume rebuilds it (from the latest
    /// snapshot the log keeps at or before `version`, then the records after it). What a trim
    /// keeps as the session's base, on a device (``Engine/trimHistory(of:before:)``) and on a
    /// fleet server.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``,
    ///   ``ReplayError/versionOutOfRange(session:requested:head:)`` past the head, the replay
    ///   errors of ``ReplayError`` and ``EngineError`` when the records cannot be re-run.
    public func snapshot(of session: SessionID, at version: UInt64) throws -> SessionSnapshot {
        try log.readLog { try snapshot(of: session, at: version, in: $0) }
    }

    /// ``snapshot(of:at:)`` read through `reader` (a write transaction's, for a trim).
    func snapshot(of session: SessionID, at version: UInt64, in reader: any TransitionLogReader) throws
        -> SessionSnapshot
    {
        let info = try reader.requireSessionInfo(for: session)
        guard version <= info.headVersion else {
            throw ReplayError.versionOutOfRange(session: session, requested: version, head: info.headVersion)
        }
        var machines = machines(for: info.machine)
        return try machines.rebuild(session, at: version, in: reader).0
    }
}

extension LogReplay {
    /// The registered machine whose definition's content version is `version`, if any.
    public func registeredMachine(version: String) -> Machine? {
        registered[version]
    }
}

extension Engine {
    /// The engine's replay (``LogReplay``) of its store with the machines registered now,
    /// compiling stored definitions with `bindings`: what ``history(of:filter:limit:)``,
    /// ``replayCursor(for:bindings:)``, ``diff(_:from:to:bindings:)``, ``verify(_:against:)`` and
    /// ``exportSession(_:)`` call.
    public func replay(bindings: Bindings = Bindings()) -> LogReplay {
        LogReplay(
            log: store, registeredByVersion: registeredMachinesByVersion(), bindings: bindings, coder: store.coder)
    }

    /// ``replay(bindings:)``.
    func logReplay(bindings: Bindings = Bindings()) -> LogReplay {
        replay(bindings: bindings)
    }
}
