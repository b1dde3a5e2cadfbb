import RewindMachine
import RewindStore

/// What a recorded session does when it resumes under a new definition of its machine, as
/// ``ResumePolicy/upgradeWhenCompatible`` (the default) resumes it: the first half of the upgrade
/// check (``SessionUpgradeCheck``).
public enum ResumeOutcome: Sendable, Hashable {
    /// It resumes as it stands: its head already names the new definition, or its state means the
    /// same there and no migration changes it.
    case unchanged
    /// It resumes after the ``DefinitionMigration``s named in `migrations` (in order) changed its
    /// state; `renamed` is the composite rename map (old id → new id) they applied.
    case migrated(migrations: [String], renamed: [String: String])
    /// It cannot resume: each state its recorded state (after the migrations that apply) names
    /// that the new definition does not have in the same place, as
    /// ``EngineError/incompatibleDefinition(session:machine:recorded:registered:problems:)`` names them.
    case incompatible([DefinitionIncompatibility])
    /// It cannot resume: the transform of the migration named `migration` threw `reason`
    /// (``EngineError/migrationFailed(session:migration:cause:)``).
    case migrationFailed(migration: String, reason: String)

    /// Whether the session resumes (``unchanged`` or ``migrated(migrations:renamed:)``).
    public var resumes: Bool {
        switch self {
        case .unchanged, .migrated: true
        case .incompatible, .migrationFailed: false
        }
    }
}

/// One recorded session checked against a new definition of its machine before it ships: what
/// resuming under it does (``resume``) and whether re-running its recorded events through it
/// reproduces every recorded version (``verification``). See
/// ``Engine/upgradeCheck(of:against:migrations:label:progress:)`` for the whole store and
/// ``LogReplay/upgradeCheck(_:against:migrations:)`` for one session of any log.
public struct SessionUpgradeCheck: Sendable, Hashable {
    /// The session.
    public var session: SessionID
    /// Its machine's name.
    public var machine: String
    /// The content version of the definition its head record names.
    public var recordedDefinition: String
    /// What resuming it under the new definition does.
    public var resume: ResumeOutcome
    /// Its recorded events re-run through the new definition (``LogReplay/verify(_:against:)``).
    public var verification: VerificationReport

    /// Creates a session's check.
    public init(
        session: SessionID, machine: String, recordedDefinition: String, resume: ResumeOutcome,
        verification: VerificationReport
    ) {
        self.session = session
        self.machine = machine
        self.recordedDefinition = recordedDefinition
        self.resume = resume
        self.verification = verification
    }
}

extension LogReplay {
    /// Checks the recorded session `session` against `machine`, a new definition of its machine:
    /// what resuming it under `machine` does — exactly what ``Engine/session(_:policy:)`` with
    /// ``ResumePolicy/upgradeWhenCompatible`` would do with `migrations` registered, without
    /// writing anything — and where re-running its events through `machine` first departs from
    /// the recording (``verify(_:against:)``).
    ///
    /// Stored definitions the session's records name are compiled with `machine`'s bindings.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/sessionErased(_:_:)``, the
    ///   replay errors of a session whose recorded state cannot be rebuilt (``ReplayError``,
    ///   ``EngineError/replayFailed(session:version:event:cause:)``,
    ///   ``EngineError/corruptedEntry(what:reason:cause:)``), the log's errors. An incompatible
    ///   or diverging session is a result, not an error.
    public func upgradeCheck(
        _ session: SessionID, against machine: Machine, migrations: [DefinitionMigration] = []
    ) throws -> SessionUpgradeCheck {
        let (info, recordedDefinition, resume) = try log.readLog { reader in
            let info = try reader.requireSessionInfo(for: session)
            guard let head = try reader.records(of: session, fromVersion: info.headVersion, limit: 1).first else {
                throw EngineError.corruptedEntry(
                    what: "the session index of '\(session.excerpt)'", reason: "version \(info.headVersion) is missing")
            }
            let recording = StepRecording(
                machine: machine, machineName: info.machine, definition: machine.definition.contentVersion, coder: coder
            )
            guard head.definition != recording.definition else {
                return (info, head.definition, ResumeOutcome.unchanged)
            }
            let compiling = LogReplay(
                log: log, registeredByVersion: registered, bindings: machine.bindings, coder: coder)
            let recorded = try compiling.recordedState(
                of: session, at: info.headVersion, registered: recording, in: reader)
            do {
                let upgrade = try recording.upgrade(recorded, of: session, migrations: migrations) {
                    (try? reader.storedDefinition(name: info.machine, version: head.definition)) ?? nil
                }
                let resume: ResumeOutcome =
                    upgrade.changedBy.isEmpty
                    ? .unchanged : .migrated(migrations: upgrade.changedBy, renamed: upgrade.migration.renamed)
                return (info, head.definition, resume)
            } catch EngineError.incompatibleDefinition(_, _, _, _, let problems) {
                return (info, head.definition, .incompatible(problems))
            } catch EngineError.migrationFailed(_, let migration, let cause) {
                return (info, head.definition, .migrationFailed(migration: migration, reason: cause.description))
            }
        }
        return SessionUpgradeCheck(
            session: session, machine: info.machine, recordedDefinition: recordedDefinition, resume: resume,
            verification: try verify(session, against: machine))
    }
}

extension Engine {
    /// Checks every stored session of the machine recorded as `machineName` against `machine`, a
    /// new definition of it, before it ships: for each, whether it resumes unchanged, after a
    /// migration (which), or not at all (each missing or moved state named), and whether its
    /// recorded events re-run through `machine` reproduce every recorded version (or the first
    /// divergence). Sessions are checked in the order of their ids; one whose records cannot be
    /// re-run at all is reported unreadable (with why) and the check goes on. Nothing is written.
    ///
    /// ```swift
    /// let report = try engine.upgradeCheck(of: "checkout", against: checkoutV2, migrations: v2Migrations)
    /// print(report)            // v2: 1,241 sessions — 1,190 unchanged, 40 migrated, 11 incompatible; …
    /// if !report.passes { … }  // what a release gate checks
    /// ```
    ///
    /// - Parameters:
    ///   - migrations: the migrations the new version will register with `machine`
    ///     (``register(_:as:migrations:)``).
    ///   - label: what the report calls the new definition (default: its name).
    ///   - progress: called after each session with how many were checked and how many there are.
    /// - Throws: ``EngineError/closed``, the store's errors.
    public func upgradeCheck(
        of machineName: String, against machine: Machine, migrations: [DefinitionMigration] = [],
        label: String? = nil, progress: ((_ checked: Int, _ total: Int) -> Void)? = nil
    ) throws -> UpgradeCheckReport {
        try ensureOpen()
        let replay = logReplay(bindings: machine.bindings)
        var report = UpgradeCheckReport(
            label: label ?? machine.definition.name, machine: machineName, definition: machine.definition.contentVersion
        )
        let ids = try sessions().filter { $0.machine == machineName }.map(\.session).sorted {
            $0.rawValue < $1.rawValue
        }
        for (index, id) in ids.enumerated() {
            do {
                report.add(try replay.upgradeCheck(id, against: machine, migrations: migrations))
            } catch let error where UpgradeCheckReport.isUnreadableSession(error) {
                report.addUnreadable(session: id.rawValue, machine: machineName, reason: String(describing: error))
            }
            progress?(index + 1, ids.count)
        }
        return report
    }

    /// Checks every stored session of the machine registered as `machineName` against the
    /// registered machine and its registered migrations (see
    /// ``upgradeCheck(of:against:migrations:label:progress:)``): what resuming them in this build will do.
    ///
    /// - Throws: ``EngineError/unknownMachine(_:)`` when no machine is registered under that
    ///   name; as ``upgradeCheck(of:against:migrations:label:progress:)``.
    public func upgradeCheck(of machineName: String) throws -> UpgradeCheckReport {
        guard let machine = machine(named: machineName) else { throw EngineError.unknownMachine(machineName) }
        return try upgradeCheck(of: machineName, against: machine, migrations: registeredMigrations(named: machineName))
    }

    /// Checks the stored session `session` against `machine`, a new definition of its machine
    /// (see ``LogReplay/upgradeCheck(_:against:migrations:)``).
    ///
    /// - Throws: as ``LogReplay/upgradeCheck(_:against:migrations:)``.
    public func upgradeCheck(
        _ session: SessionID, against machine: Machine, migrations: [DefinitionMigration] = []
    ) throws -> SessionUpgradeCheck {
        try ensureOpen()
        return try logReplay(bindings: machine.bindings).upgradeCheck(session, against: machine, migrations: migrations)
    }
}
