import Foundation
import RewindMachine
import RewindStore

extension LogReplay {
    /// The recorded session `session` as source literals (``RecordedSession``), read from the
    /// log's records alone (no machine is run): each version's event, payload, target
    /// configuration, entered state data and the navigation stack the records rebuild (as every
    /// log reader rebuilds it), with the state a redacted record recorded beside it.
    ///
    /// The values are those the log holds, already redacted by the store's policy; the values at
    /// `redacting` paths (the viewer's path language: `payload.card.*`, `data.*.email`,
    /// `context.token`) are replaced by the marker too, and a version whose values either
    /// changed is marked ``RecordedSession/Step/redacted``. A session that moved to another
    /// definition (a `rewind.migrate` record) is written from its last such record: the records
    /// before it ran under earlier definitions.
    ///
    /// - Throws: ``EngineError/unknownSession(_:)``, ``EngineError/corruptedEntry(what:reason:cause:)``
    ///   for a payload or state data the log's coder cannot decode, the log's errors.
    public func recordedSession(_ session: SessionID, redacting: [RedactionRule] = []) throws -> RecordedSession {
        let redactor =
            redacting.isEmpty
            ? nil : Redactor(fields: redacting.map { Redactor.Field(rule: $0, action: .marker) }, key: [])
        return try log.readLog { reader in
            let info = try reader.requireSessionInfo(for: session)
            var records: [TransitionRecord] = []
            try SessionSnapshot.records(of: session, through: info.headVersion, in: reader)(1) { record in
                if record.event == StepRecording.migrateEvent { records.removeAll() }
                records.append(record)
                return true
            }
            let startedAt = records.first?.timestamp.millisecondsSince1970 ?? 0
            var stack = ScreenStack()
            var steps: [RecordedSession.Step] = []
            for record in records {
                var redacted = record.redacted
                var request = try StepRecording.request(of: record, coder: coder)
                var data = try stateData(of: record)
                if let redactor {
                    request = redactor.redact(request, changed: &redacted)
                    data = redactor.redact(data: data, changed: &redacted)
                }
                if case .migrate(let migration) = request {
                    stack = migration.navigation
                } else {
                    stack.apply(record.navigation) { data[$0] }
                }
                var recordedState: MachineState?
                if let snapshot = try StepRecording.snapshot(writtenWith: record, in: reader) {
                    recordedState = snapshot.state
                    stack = snapshot.navigation
                }
                if let redactor {
                    stack = redactor.redact(stack, changed: &redacted)
                    recordedState = recordedState.map { redactor.redact($0, changed: &redacted) }
                }
                steps.append(
                    RecordedSession.Step(
                        version: record.version, event: record.event,
                        at: record.timestamp.millisecondsSince1970 - startedAt,
                        payload: RecordedSession.text(request.payload), configuration: record.target,
                        stateData: RecordedSession.text(.object(data)), navigation: RecordedSession.text(stack),
                        recordedState: recordedState.map { RecordedSession.text($0.jsonValue) }, redacted: redacted))
            }
            return RecordedSession(id: session.rawValue, machine: info.machine, startedAt: startedAt, steps: steps)
        }
    }

    /// The data `record`'s step entered states with, by state id (empty when none).
    private func stateData(of record: TransitionRecord) throws -> [String: JSONValue] {
        guard !record.stateData.isEmpty else { return [:] }
        let value: JSONValue
        do {
            value = try coder.decode(JSONValue.self, from: record.stateData)
        } catch {
            throw EngineError.corruptedEntry(
                what: "the state data of '\(record.session.excerpt)' version \(record.version)",
                reason: String(describing: error), cause: ErrorCause(error))
        }
        guard case .object(let members) = value else {
            throw EngineError.corruptedEntry(
                what: "the state data of '\(record.session.excerpt)' version \(record.version)",
                reason: "it is not an object by state id")
        }
        return members
    }
}

extension SessionArchive {
    /// The session of the archive `archive` (an exported session file) as source literals: see
    /// ``LogReplay/recordedSession(_:redacting:)``. The archive is checked first, as an import
    /// checks it.
    ///
    /// - Throws: ``SessionArchiveError`` with the line at fault for an archive that does not
    ///   validate; what ``LogReplay/recordedSession(_:redacting:)`` throws.
    public static func recordedSession(_ archive: Data, redacting: [RedactionRule] = []) throws -> RecordedSession {
        let contents = try parse(Array(archive))
        let session = try exportedSession(of: contents.header)
        let log = ContentsLog(session: session, contents: contents)
        return try LogReplay(log: log).recordedSession(session, redacting: redacting)
    }
}
