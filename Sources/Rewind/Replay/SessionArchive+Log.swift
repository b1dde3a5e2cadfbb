import RewindMachine
import RewindStore

extension SessionArchive {
    /// A checked archive's session as a log of its own (sequence numbers 0: it has no place in a
    /// log yet), with the archive's definitions stored beside it: what an import replays to write
    /// its snapshots (`SessionSnapshot.rebuilt`, as every replay does).
    struct ContentsLog: TransitionLog, TransitionLogReader {
        /// The session the records are read as.
        let session: SessionID
        let contents: Contents

        func readLog<R>(_ body: (any TransitionLogReader) throws -> R) throws -> R {
            try body(self)
        }

        func headSequence() throws -> UInt64 { 0 }

        func sessionInfo(for session: SessionID) throws -> SessionInfo? {
            guard session == self.session, let first = contents.transitions.first,
                let last = contents.transitions.last
            else { return nil }
            return SessionInfo(
                session: session, headVersion: contents.headVersion, headSequence: 0, machine: last.machine,
                recordCount: UInt64(contents.transitions.count), created: first.timestamp, updated: last.timestamp,
                origin: first.origin, baseVersion: contents.base?.version)
        }

        func records(of session: SessionID, fromVersion version: UInt64, limit: Int) throws -> [TransitionRecord] {
            let head = contents.headVersion
            guard session == self.session, limit > 0, version <= head else { return [] }
            let first = max(version, contents.firstVersion)
            let end = first + min(UInt64(limit), head - first + 1)
            return (first..<end).map(record(at:))
        }

        /// The session's records from version `first` on, each made as `visit` gets it, until
        /// they end or `visit` returns `false`: how an import's rebuild reads them
        /// (``SessionSnapshot/RecordReader``). Read in batches instead
        /// (``records(of:fromVersion:limit:)``), each record was copied out of its batch to be
        /// visited and destroyed again, then the batch (~540 instructions a record; callgrind,
        /// Benchmarks/HISTORY.md 2026-12-02).
        func visitRecords(from first: UInt64, _ visit: (TransitionRecord) throws -> Bool) rethrows {
            var version = max(first, contents.firstVersion)
            while version <= contents.headVersion {
                guard try visit(record(at: version)) else { return }
                version += 1
            }
        }

        /// The record of `version`, which the archive holds (`firstVersion…headVersion`).
        private func record(at version: UInt64) -> TransitionRecord {
            TransitionRecord(
                sequence: 0, session: session, version: version,
                transition: contents.transitions[Int(version - contents.firstVersion)])
        }

        func records(fromSequence sequence: UInt64, limit: Int) throws -> [TransitionRecord] {
            []  // the records have no global sequence yet
        }

        func storedDefinition(name: String, version: String) throws -> MachineDefinition? {
            name == contents.header.machine ? contents.definitions[version] : nil
        }

        /// The latest state a redacted record recorded at or before `version`, else a trimmed
        /// session's base (the archive keeps no other snapshots).
        func latestSnapshot(of session: SessionID, atOrBefore version: UInt64) throws -> SessionSnapshot? {
            guard session == self.session else { return nil }
            let recorded = contents.recordedStates.filter { $0.key <= version }.max { $0.key < $1.key }?.value
            guard let base = contents.base, base.version <= version else { return recorded }
            return recorded.map { $0.version >= base.version ? $0 : base } ?? base
        }
    }
}
