import RewindMachine
import RewindStore

extension Engine {
    /// Walks the whole store in one read transaction and reports the first inconsistency with
    /// its location (`rewind check`): everything ``TransitionStore/check(progress:)`` checks
    /// (every record decodes and its checksum matches, the sequence is gap-free, the session
    /// entries and the index agree with the log), that every record's target states are states of
    /// the definition it names (stored or registered; a record whose definition is neither is not
    /// checked against one), then every snapshot decodes, names the version
    /// of its key and equals a replay of its session's records up to that version, and every
    /// projection checkpoint decodes and is at or before the log's head.
    ///
    /// Sessions whose stored definitions need bindings the engine does not have (guards or
    /// actions of app code, with the machine not registered) cannot be replayed: their snapshots
    /// are checked as decoded only. Reads only: works on an engine opened read-only.
    ///
    /// - Throws: LMDB's errors; inconsistencies are the report's ``StoreCheckReport/problem``.
    public func checkStore(progress: (StoreCheckProgress) -> Void = { _ in }) throws -> StoreCheckReport {
        try ensureOpen()
        return try store.read { transaction in
            var definitions = DefinitionStates(registered: registeredMachinesByVersion())
            var report = try transaction.checkLogAndSessions(progress: progress) { record in
                try definitions.problem(with: record, in: transaction)
            }
            if report.problem != nil { return report }
            let head = report.records + report.erased  // the log accounts for every sequence through it
            if let problem = try checkSnapshots(in: transaction, report: &report, progress: progress) {
                report.problem = problem
                return report
            }
            var problem: StoreProblem?
            try transaction.forEach(in: .checkpoints) { key, value in
                let name = String(decoding: key, as: UTF8.self)
                let location = "checkpoint of projection '\(name)'"
                do {
                    let status = try CheckpointCodec.decode(value, name: name)
                    guard status.checkpoint <= head else {
                        problem = StoreProblem(
                            location: location,
                            reason: "it is at sequence \(status.checkpoint), beyond the log's head at sequence \(head)")
                        return .stop
                    }
                } catch {
                    problem = StoreProblem(location: location, reason: "it does not decode: \(error)")
                    return .stop
                }
                report.checkpoints += 1
                return .next
            }
            report.problem = problem
            return report
        }
    }

    /// Decodes every snapshot and compares it with a replay of its session; returns the first
    /// problem.
    private func checkSnapshots(
        in transaction: StoreReadTransaction, report: inout StoreCheckReport,
        progress: (StoreCheckProgress) -> Void
    ) throws -> StoreProblem? {
        // The snapshots, by session: decoded, and naming the version of their key.
        var snapshots: [SessionID: [SessionSnapshot]] = [:]
        // Versions of snapshots of the first format, whose entries below the top have no data.
        var withoutEntryData: [SessionID: Set<UInt64>] = [:]
        var problem: StoreProblem?
        try transaction.forEach(in: .snapshots) { key, value in
            guard let (name, version) = StoreKey.splitCompound(key), let session = try? SessionID(name) else {
                problem = StoreProblem(
                    location: "database '\(AuxiliaryDatabase.snapshots.name)' key of \(key.count) bytes",
                    reason: "it is not a session id, a NUL and an 8-byte version")
                return .stop
            }
            let location = "snapshot of '\(session.excerpt)' at version \(version)"
            let snapshot: SessionSnapshot
            do {
                let stored = try SessionSnapshot.decodeStored(value, session: session)
                snapshot = stored.snapshot
                if !stored.hasEntryData { withoutEntryData[session, default: []].insert(version) }
            } catch {
                problem = StoreProblem(location: location, reason: "it does not decode: \(error)")
                return .stop
            }
            guard snapshot.version == version else {
                problem = StoreProblem(location: location, reason: "it holds version \(snapshot.version)")
                return .stop
            }
            snapshots[session, default: []].append(snapshot)
            report.snapshots += 1
            return .next
        }
        if let problem { return problem }

        // Each session with snapshots replayed from version 1 through its last snapshot.
        var heads: [SessionID: SessionInfo] = [:]
        for session in snapshots.keys {
            guard let info = try transaction.sessionInfo(for: session) else {
                return StoreProblem(
                    location: "snapshot of '\(session.excerpt)' at version \(snapshots[session]?.first?.version ?? 0)",
                    reason: "the session has no records in the log")
            }
            heads[session] = info
        }
        let total = snapshots.values.reduce(UInt64(0)) { $0 + ($1.last?.version ?? 0) }
        var done: UInt64 = 0
        for session in snapshots.keys.sorted() {
            guard let stored = snapshots[session], let info = heads[session], let last = stored.last else { continue }
            guard last.version <= info.headVersion else {
                return StoreProblem(
                    location: "snapshot of '\(session.excerpt)' at version \(last.version)",
                    reason: "it is beyond the session's head version \(info.headVersion)")
            }
            var machines = logReplay().machines(for: info.machine)
            var replayed: UInt64 = 0
            var pending = stored[...]
            // A trimmed session is replayed from its base snapshot (the check's starting point, as
            // the empty state is an untrimmed session's), which must be there.
            var start = SessionSnapshot.empty(definition: "")
            if let base = info.baseVersion {
                guard let first = pending.first, first.version == base else {
                    return StoreProblem(
                        location: "snapshot of '\(session.excerpt)' at version \(base)",
                        reason: "it is missing, but the session's history begins there (it was trimmed)")
                }
                start = first
                pending.removeFirst()
                replayed = base
            }
            var failure: StoreProblem?
            /// Ends the replay at the first snapshot that differs from it.
            struct Mismatch: Error {}
            do {
                // The session from version 1 (not from a snapshot: they are what is checked), or
                // from its base when its history was trimmed.
                _ = try SessionSnapshot.rebuilt(
                    session, at: last.version, from: start,
                    records: SessionSnapshot.records(of: session, through: last.version, in: transaction)
                ) { record, state in
                    try machines.advance(&state, by: record, in: transaction)
                    replayed = record.version
                    done += 1
                    if done % 4096 == 0 { progress(StoreCheckProgress(stage: .snapshots, done: done, total: total)) }
                    while let next = pending.first, next.version <= record.version {
                        pending.removeFirst()
                        let entryData = !(withoutEntryData[session]?.contains(next.version) ?? false)
                        if next.version == record.version,
                            let difference = Self.difference(next, state, entriesHaveData: entryData)
                        {
                            failure = StoreProblem(
                                location: "snapshot of '\(session.excerpt)' at version \(next.version)",
                                reason: "it does not match a replay of the log at that version (\(difference))")
                            throw Mismatch()
                        }
                    }
                }
            } catch is Mismatch {
                // `failure` says where.
            } catch ReplayError.definitionNeedsBindings {
                continue  // app code needed to replay it: its snapshots are checked as decoded only
            } catch let error as StoreError {
                return StoreProblem(error, context: "session '\(session.excerpt)'")
            } catch {
                return StoreProblem(
                    location: "session '\(session.excerpt)' version \(replayed + 1)",
                    reason: "its records cannot be replayed: \(error)")
            }
            if let failure { return failure }
        }
        progress(StoreCheckProgress(stage: .snapshots, done: total, total: total))
        return nil
    }

    /// What differs between a stored snapshot and the replayed state, or `nil`. A snapshot of the
    /// first format (`entriesHaveData` false) is compared on its screens and its top entry.
    private static func difference(
        _ stored: SessionSnapshot, _ replayed: SessionSnapshot, entriesHaveData: Bool
    ) -> String? {
        if stored.state.configuration != replayed.state.configuration {
            return
                "its configuration \(stored.state.configuration.sorted()) is \(replayed.state.configuration.sorted()) in the replay"
        }
        if stored.state != replayed.state { return "its data or history differ from the replay's" }
        if entriesHaveData
            ? stored.navigation != replayed.navigation
            : stored.navigation.screens != replayed.navigation.screens
                || stored.navigation.top != replayed.navigation.top
        {
            return "its navigation stack differs from the replay's"
        }
        if stored.definition != replayed.definition {
            return "it names definition \(stored.definition.prefix(12)), the replay \(replayed.definition.prefix(12))"
        }
        return nil
    }
}

/// The definitions records name, looked up once each, for ``Engine/checkStore(progress:)``'s
/// check of every record's target states.
private struct DefinitionStates {
    let registered: [String: Machine]
    /// By machine name and content version; `nil` when neither stored nor registered.
    var definitions: [String: [String: DefinedStates?]] = [:]

    init(registered: [String: Machine]) {
        self.registered = registered
    }

    /// The problem with `record`: a target state its definition does not have.
    mutating func problem(with record: TransitionRecord, in transaction: StoreReadTransaction) throws -> StoreProblem? {
        let name = record.machine
        let version = record.definition
        let states: DefinedStates?
        if let known = definitions[name]?[version] {
            states = known
        } else {
            // A stored definition that does not decode is reported by the replay of the snapshots.
            let definition =
                (try? transaction.storedDefinition(name: name, version: version)) ?? nil
                ?? registered[version].flatMap { $0.definition.name == name ? $0.definition : nil }
            states = definition.map(DefinedStates.init)
            definitions[name, default: [:]][version] = .some(states)
        }
        guard let states, let unknown = states.unknownStates(in: record.target).first else { return nil }
        return StoreProblem(
            location: "log sequence \(record.sequence)",
            reason:
                "session '\(record.session)' version \(record.version) enters state '\(unknown)', which is no state of "
                + "machine '\(name)' definition \(version.prefix(12))")
    }
}
