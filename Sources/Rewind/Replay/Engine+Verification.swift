import RewindMachine
import RewindStore

/// Where a recorded session stops being reproduced by a machine.
public struct Divergence: Sendable, Hashable, CustomStringConvertible {
    /// How the machine departs from the recording.
    public enum Kind: Sendable, Hashable {
        /// The machine reaches another configuration than the recorded one.
        case targetMismatch(recorded: [String], computed: [String])
        /// The machine reaches the recorded configuration but does other things to the
        /// navigation stack.
        case navigationMismatch(recorded: [NavigationOperation], computed: [NavigationOperation])
        /// The machine rejects the recorded event (`error` is the machine's error, e.g.
        /// `MachineError.invalidTransition` for an event it no longer handles).
        case rejected(MachineError)
        /// The state a `rewind.migrate` record moved the session to is not a state of the machine
        /// (see ``ResumePolicy/upgradeWhenCompatible``): what it names that the machine lacks.
        case incompatible([DefinitionIncompatibility])
        /// "redacted: cannot be re-checked": the record's values were redacted before it was
        /// written (``TransitionRecord/redacted``), the machine does not reproduce it from them,
        /// and no snapshot of the recorded state was written with it to go on from. Not corruption.
        case redacted(recorded: [String])
    }

    /// The version of the first record not reproduced.
    public var version: UInt64
    /// Its event.
    public var event: String
    /// Its active configuration before the step (as recorded).
    public var source: [String]
    /// How the machine departs.
    public var kind: Kind

    /// Creates a divergence.
    public init(version: UInt64, event: String, source: [String], kind: Kind) {
        self.version = version
        self.event = event
        self.source = source
        self.kind = kind
    }

    /// E.g. `version 7 (event 'start'): recorded target [login] but the machine computes [greeting]`.
    public var description: String {
        let prefix = "version \(version) (event '\(event)')"
        switch kind {
        case .targetMismatch(let recorded, let computed):
            return "\(prefix): recorded target \(recorded) but the machine computes \(computed)"
        case .navigationMismatch(let recorded, let computed):
            return "\(prefix): recorded navigation \(recorded) but the machine computes \(computed)"
        case .rejected(let error):
            return "\(prefix): the machine rejects the event: \(error)"
        case .incompatible(let problems):
            return "\(prefix): the migrated state does not fit the machine: "
                + problems.map(\.description).joined(separator: "; ")
        case .redacted(let recorded):
            return "\(prefix): redacted: cannot be re-checked (its values were redacted before it was written, "
                + "the machine does not reach the recorded \(recorded) from them, and no recorded state follows it)"
        }
    }
}

/// The outcome of running a recorded session's events through a machine (Temporal's replay
/// determinism check).
public struct VerificationReport: Sendable, Hashable, CustomStringConvertible {
    /// The session verified.
    public var session: SessionID
    /// The content version of the machine definition verified against.
    public var definition: String
    /// The version verification started at: 1, or the session's last `rewind.migrate` record
    /// (the records before it were written under earlier definitions, which the migration left),
    /// or the version after a trimmed session's base (its records from there were re-run from the
    /// base snapshot).
    public var firstVersion: UInt64
    /// The trimmed session's base version (``SessionInfo/baseVersion``), where its history
    /// begins; `nil` when it keeps its whole history.
    public var baseVersion: UInt64?
    /// How many records were reproduced before the divergence (all of them from ``firstVersion``
    /// when clean).
    public var verifiedRecords: UInt64
    /// The first record not reproduced, or `nil` when the machine reproduces the whole session.
    public var divergence: Divergence?
    /// The versions of records whose values were redacted before they were written
    /// (``TransitionRecord/redacted``) and that the machine does not reproduce from them:
    /// "redacted: cannot be re-checked", not a divergence. Verification went on from the state
    /// each recorded (the snapshot written with it); they are not counted in ``verifiedRecords``.
    public var unverifiableRedactedVersions: [UInt64]

    /// Creates a report.
    public init(
        session: SessionID, definition: String, firstVersion: UInt64 = 1, verifiedRecords: UInt64,
        divergence: Divergence?, unverifiableRedactedVersions: [UInt64] = [], baseVersion: UInt64? = nil
    ) {
        self.unverifiableRedactedVersions = unverifiableRedactedVersions
        self.baseVersion = baseVersion
        self.session = session
        self.definition = definition
        self.firstVersion = firstVersion
        self.verifiedRecords = verifiedRecords
        self.divergence = divergence
    }

    /// Whether the machine reproduces every record.
    public var isClean: Bool { divergence == nil }

    /// A one-line summary.
    public var description: String {
        if let divergence {
            return "session '\(session.excerpt)' diverges from definition \(definition.prefix(12)) at \(divergence)"
        }
        let from =
            baseVersion.map { $0 + 1 == firstVersion } == true
            ? " from its base at version \(firstVersion - 1) (history begins there: older history was trimmed)"
            : firstVersion > 1 ? " from its migration at version \(firstVersion)" : ""
        guard unverifiableRedactedVersions.isEmpty else {
            let versions = unverifiableRedactedVersions.map(String.init).joined(separator: ", ")
            return "session '\(session.excerpt)': \(verifiedRecords) records\(from) reproduced by definition "
                + "\(definition.prefix(12)); version\(unverifiableRedactedVersions.count == 1 ? "" : "s") \(versions): "
                + "redacted: cannot be re-checked"
        }
        return
            "session '\(session.excerpt)': all \(verifiedRecords) records\(from) reproduced by definition \(definition.prefix(12))"
    }
}

extension LogReplay {
    /// Runs every recorded event of `session` through `machine` (from version 1, ignoring
    /// snapshots and the definitions the records name) and reports the first record it does not
    /// reproduce: another target configuration, other navigation operations, or a rejection.
    /// Typically `machine` is a newer definition about to be shipped.
    ///
    /// A session that moved to another definition (a `rewind.migrate` record, see
    /// ``ResumePolicy``) is verified from its last such record: the state it recorded must be a
    /// state of `machine` (else the divergence is ``Divergence/Kind/incompatible(_:)``), and the
    /// records after it are re-run from that state. The records before it were written under
    /// earlier definitions and are not re-run (``VerificationReport/firstVersion`` says where
    /// verification started). A trimmed session is verified from its base snapshot (the records
    /// after its base re-run; ``VerificationReport/baseVersion`` says so).
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/corruptedEntry(what:reason:cause:)``
    ///   for an undecodable payload, the log's errors. A divergence is a result, not an error.
    public func verify(_ session: SessionID, against machine: Machine) throws -> VerificationReport {
        try log.readLog { reader in
            let info = try reader.requireSessionInfo(for: session)
            let recording = StepRecording(
                machine: machine, machineName: info.machine, definition: machine.definition.contentVersion,
                coder: coder)
            var verified: UInt64 = 0
            var divergence: Divergence?
            var unverifiable: [UInt64] = []
            var first: UInt64 = 1
            var start = SessionSnapshot.empty(definition: recording.definition)
            var migrated = false
            try SessionSnapshot.records(of: session, through: info.headVersion, in: reader)(info.firstVersion) {
                record in
                if record.event == StepRecording.migrateEvent {
                    first = record.version
                    migrated = true
                }
                return true
            }
            // A trimmed session without a later move is re-run from its base snapshot.
            if let base = info.baseVersion, !migrated {
                start = try SessionSnapshot.base(of: session, at: base, in: reader)
                start.definition = recording.definition
                first = base + 1
            }
            /// Ends the re-run at the first record the machine does not reproduce.
            struct Diverged: Error {
                var divergence: Divergence
            }
            do {
                _ = try SessionSnapshot.rebuilt(
                    session, at: info.headVersion, from: start, firstVersion: first,
                    records: SessionSnapshot.records(of: session, through: info.headVersion, in: reader)
                ) { record, snapshot in
                    /// The state after `record`, from `before`, the state at the version before it.
                    func after(_ before: SessionSnapshot) throws -> SessionSnapshot {
                        func diverged(_ kind: Divergence.Kind) -> Diverged {
                            Diverged(
                                divergence: Divergence(
                                    version: record.version, event: record.event, source: record.source, kind: kind))
                        }
                        /// For a redacted record the machine does not reproduce: the state it recorded, to
                        /// go on from ("redacted: cannot be re-checked"), or a `.redacted` divergence.
                        func recordedAfterRedaction() throws -> SessionSnapshot? {
                            guard record.redacted else { return nil }
                            guard let recorded = try StepRecording.snapshot(writtenWith: record, in: reader) else {
                                throw diverged(.redacted(recorded: record.target))
                            }
                            unverifiable.append(record.version)
                            return recorded
                        }
                        var after = before
                        after.version = record.version
                        let request = try recording.request(of: record)
                        if case .migrate(let migration) = request {
                            let problems = try incompatibilities(
                                of: migration, recordedUnder: record.definition, machine: info.machine, with: machine,
                                in: reader)
                            if !problems.isEmpty { throw diverged(.incompatible(problems)) }
                            after.state = migration.state
                            verified += 1
                            return after
                        }
                        let step: Step
                        do {
                            step = try recording.evaluate(request, in: before.state, at: record.timestamp)
                        } catch {
                            if let recorded = try recordedAfterRedaction() { return recorded }
                            throw diverged(
                                .rejected(
                                    error as? MachineError
                                        ?? .actionFailed(action: "(replay)", state: nil, cause: ErrorCause(error))))
                        }
                        if step.target != record.target {
                            if let recorded = try recordedAfterRedaction() { return recorded }
                            throw diverged(.targetMismatch(recorded: record.target, computed: step.target))
                        }
                        if step.navigation != record.navigation {
                            if let recorded = try recordedAfterRedaction() { return recorded }
                            throw diverged(.navigationMismatch(recorded: record.navigation, computed: step.navigation))
                        }
                        after.state = step.state
                        verified += 1
                        // A redacted record reproduced: the session goes on from the state it recorded.
                        return try StepRecording.snapshot(writtenWith: record, in: reader) ?? after
                    }
                    snapshot = try after(snapshot)
                }
            } catch let stop as Diverged {
                divergence = stop.divergence
            }
            return VerificationReport(
                session: session, definition: recording.definition, firstVersion: first, verifiedRecords: verified,
                divergence: divergence, unverifiableRedactedVersions: unverifiable, baseVersion: info.baseVersion)
        }
    }

    /// What the state `migration` moved a session to (under the definition `definition` of
    /// `machineName`) names that `machine` does not have in the same place; nothing when
    /// `machine` is that definition.
    private func incompatibilities(
        of migration: RecordedMigration, recordedUnder definition: String, machine machineName: String,
        with machine: Machine, in reader: any TransitionLogReader
    ) throws -> [DefinitionIncompatibility] {
        guard machine.definition.contentVersion != definition else { return [] }
        // A stored definition that cannot be read leaves only the check that each state exists.
        let former = (try? reader.storedDefinition(name: machineName, version: definition)) ?? nil
        let snapshot = SessionSnapshot(
            version: 0, definition: definition, state: migration.state, navigation: migration.navigation,
            timestamp: nil)
        return DefinitionOutline(machine.definition).incompatibilities(
            of: snapshot, former: former.map(DefinitionOutline.init), formerID: { $0 }, renamed: { $0 })
    }
}

extension Engine {
    /// Runs every recorded event of `session` through `machine` and reports the first record it
    /// does not reproduce (see ``LogReplay/verify(_:against:)``).
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/corruptedEntry(what:reason:cause:)``
    ///   for an undecodable payload, the store's errors. A divergence is a result, not an error.
    public func verify(_ session: SessionID, against machine: Machine) throws -> VerificationReport {
        try logReplay().verify(session, against: machine)
    }

    /// Verifies every session of the machine registered (or recorded) as `machineName` against
    /// `machine` (see ``verify(_:against:)``), ordered by session id: the check to run before
    /// shipping a new definition.
    public func verifySessions(of machineName: String, against machine: Machine) throws -> [VerificationReport] {
        let replay = logReplay()
        return try sessions().filter { $0.machine == machineName }.map {
            try replay.verify($0.session, against: machine)
        }
    }
}
