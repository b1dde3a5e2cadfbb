import RewindMachine
import RewindStore

extension Engine {
    /// Opens the session `id` of the machine registered as `machine`: resumes it when the store
    /// holds it (as `session(_:policy:)` does), else starts it (as
    /// `startSession(id:machine:context:isolation:configure:)` does, entering the initial configuration with
    /// `context`). The call an app makes at every launch: the first launch starts the session, the
    /// next ones resume it where the user left off.
    ///
    /// `configure` runs exactly once, on the session returned, before it is started or returned:
    /// register hooks there so they are installed both ways. A started session's first entry runs
    /// them (`didEnter` with no previous state); a resumed session enters nothing, so read where it
    /// is from ``Session/activeStates``, ``Session/navigationStack`` and ``Session/state`` (or a
    /// ``SessionModel``) to show it.
    ///
    /// Safe under races: when two tasks (or engines, or processes) open the same new session at
    /// once, one start is committed and the other caller resumes the session that start wrote (its
    /// own start wrote nothing), so both get the same state and neither gets
    /// ``EngineError/sessionExists(_:)``.
    ///
    /// ```swift
    /// let session = try await engine.openSession(id: "user-42", machine: "kanji") { session in
    ///     session.onDidEnter("detail") { change in print("show", change.data) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - id: The session's id.
    ///   - machine: The name the session's machine is registered under.
    ///   - context: The context a new session starts with (the payload of its `rewind.start`
    ///     record); ignored when the session exists.
    ///   - policy: How a resumed session's records written under another definition of its machine
    ///     are treated (see ``ResumePolicy``); by default ``ResumePolicy/upgradeWhenCompatible``,
    ///     as `session(_:policy:)`, so the same launch call resumes the session after the app's
    ///     next version changed the machine compatibly (added a screen).
    ///   - isolation: The caller's actor, which the call runs on (so a `configure` closure made on
    ///     the main actor stays there).
    ///   - configure: Installs hooks on the session before it starts or is returned.
    /// - Throws: ``EngineError/sessionOfAnotherMachine(session:machine:requested:)`` when the
    ///   session exists but runs another machine, ``EngineError/unknownMachine(_:)``, the errors of
    ///   resuming (`session(_:policy:)`) and starting (nothing written), the store's errors.
    public func openSession(
        id: SessionID, machine: String, context: JSONValue = .null, policy: ResumePolicy = .upgradeWhenCompatible,
        isolation: isolated (any Actor)? = #isolation, configure: (Session) -> Void = { _ in }
    ) async throws -> Session {
        try ensureOpen()
        guard registeredRecording(named: machine) != nil else { throw EngineError.unknownMachine(machine) }
        func resume(_ info: SessionInfo) throws -> Session {
            try Self.check(info, of: id, runs: machine)
            let session = try self.session(id, policy: policy)
            configure(session)
            return session
        }
        if let info = try store.sessionInfo(for: id) { return try resume(info) }
        let session: Session
        do {
            session = try makeSession(id: id, machine: machine, resumePolicy: policy)
        } catch EngineError.sessionExists {
            // Started by another caller between the lookup and here.
            guard let info = try store.sessionInfo(for: id) else { throw EngineError.sessionExists(id) }
            return try resume(info)
        }
        configure(session)
        do {
            _ = try await session.perform(.start(context: context))
        } catch let error as StoreError {
            // Another caller's start was committed first; this one wrote nothing. Take up the
            // session it wrote (under `policy`), keeping the hooks `configure` installed.
            guard case .versionConflict = error, let info = try store.sessionInfo(for: id) else { throw error }
            try Self.check(info, of: id, runs: machine)
            try await session.reload()
        }
        return session
    }

    /// Opens a session by its plain string id (see
    /// `openSession(id:machine:context:policy:isolation:configure:)`).
    public func openSession(
        id: String, machine: String, context: JSONValue = .null, policy: ResumePolicy = .upgradeWhenCompatible,
        isolation: isolated (any Actor)? = #isolation, configure: (Session) -> Void = { _ in }
    ) async throws -> Session {
        try await openSession(
            id: try SessionID(id), machine: machine, context: context, policy: policy, isolation: isolation,
            configure: configure)
    }

    /// Throws ``EngineError/sessionOfAnotherMachine(session:machine:requested:)`` unless the
    /// stored session `info` runs the machine registered as `machine`.
    private static func check(_ info: SessionInfo, of id: SessionID, runs machine: String) throws {
        if info.machine != machine {
            throw EngineError.sessionOfAnotherMachine(session: id, machine: info.machine, requested: machine)
        }
    }
}
